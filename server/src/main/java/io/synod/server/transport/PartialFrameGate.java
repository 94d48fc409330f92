package io.synod.server.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import io.synod.client.codec.FrameGate;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * A server port's guard around incomplete frames (docs/security.md, "Limits"), one per connection, used by the
 * peer port's {@link FrameDecoder} and the client port's {@code ClientFrameDecoder}: a frame waiting for its body
 * holds its length in the node-wide {@link FrameBudget} (a frame that does not fit is refused), and it must
 * complete within the frame timeout from its first byte, or the connection is closed, so a sender that stalls
 * mid-frame cannot hold the memory for long.
 */
public final class PartialFrameGate implements FrameGate {
    private static final RateLimitedLog REFUSALS = new RateLimitedLog(LoggerFactory.getLogger(PartialFrameGate.class));

    private final FrameBudget budget;
    private final long frameTimeoutMillis;
    /** Bytes of the current frame reserved in the budget (0: none). */
    private long reservedBytes;
    /** Counts completed frames, so a timeout can tell whether the frame it watched is still the current one. */
    private long framesDone;
    private ScheduledFuture<?> timeout;
    private String refusal = "frame refused";

    /** {@code frameTimeoutMillis} 0: no timeout. */
    public PartialFrameGate(FrameBudget budget, long frameTimeoutMillis) {
        this.budget = budget;
        this.frameTimeoutMillis = frameTimeoutMillis;
    }

    @Override
    public boolean waiting(ChannelHandlerContext ctx, int length) {
        if (length > 0 && reservedBytes == 0) {
            if (!budget.tryReserve(length)) {
                refusal = "the node's budget for partially received frames (" + budget.limit()
                        + " bytes) cannot hold a " + length + "-byte frame";
                return false;
            }
            reservedBytes = length;
        }
        if (frameTimeoutMillis > 0 && timeout == null) {
            long frame = framesDone;
            timeout = ctx.executor().schedule(() -> {
                timeout = null;
                if (framesDone == frame && ctx.channel().isActive()) {
                    REFUSALS.warn("closing connection from {}: {}", ctx.channel().remoteAddress(),
                            "frame incomplete " + frameTimeoutMillis + " ms after its first byte");
                    ctx.close();
                }
            }, frameTimeoutMillis, TimeUnit.MILLISECONDS);
        }
        return true;
    }

    @Override
    public void done() {
        framesDone++;
        if (reservedBytes > 0) {
            budget.release(reservedBytes);
            reservedBytes = 0;
        }
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }

    @Override
    public String refusal() {
        return refusal;
    }
}
