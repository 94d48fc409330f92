package io.synod.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.synod.server.wire.MalformedInputException;
import io.synod.server.wire.WireCodec;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * Splits the byte stream into {@code [length u32][body]} frames and decodes each body into a
 * {@code WireFrame}. The length is checked against the maximum before a single body byte is read or
 * buffered, so a hostile length never makes us allocate: a length outside {@code 1..maxFrameBytes}
 * or a body that does not decode closes this connection, with the reason logged, and nothing else.
 * A frame waiting for its body holds its length in the node-wide {@link FrameBudget} (a connection
 * whose frame does not fit is closed), and a frame must be complete within the frame timeout from its
 * first byte, so a peer that stalls mid-frame cannot hold the memory for long.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    private static final RateLimitedLog REFUSALS = new RateLimitedLog(LoggerFactory.getLogger(FrameDecoder.class));

    private final int maxFrameBytes;
    private final FrameBudget budget;
    private final long frameTimeoutMillis;
    private boolean closed;
    /** Bytes of the current frame reserved in the budget (0: none). */
    private long reservedBytes;
    /** Counts completed frames, so a timeout can tell whether the frame it watched is still the current one. */
    private long framesDone;
    private ScheduledFuture<?> timeout;

    /** Without a budget or timeout: for tests of the framing alone. */
    public FrameDecoder(int maxFrameBytes) {
        this(maxFrameBytes, FrameBudget.UNLIMITED, 0);
    }

    /** {@code frameTimeoutMillis} 0: no timeout. */
    public FrameDecoder(int maxFrameBytes, FrameBudget budget, long frameTimeoutMillis) {
        if (maxFrameBytes < 16) {
            throw new IllegalArgumentException("max frame must be >= 16 bytes, got " + maxFrameBytes);
        }
        this.maxFrameBytes = maxFrameBytes;
        this.budget = budget;
        this.frameTimeoutMillis = frameTimeoutMillis;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (closed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.readableBytes() >= 4) {
            int length = in.getInt(in.readerIndex());
            if (length < 1 || length > maxFrameBytes) {
                reject(ctx, in, "frame length " + Integer.toUnsignedString(length) + " is outside 1.." + maxFrameBytes);
                return;
            }
            if (in.readableBytes() < 4 + length) {
                // Wait for the rest; at most maxFrameBytes + 4 are ever buffered, and only within the budget.
                if (reservedBytes == 0) {
                    if (!budget.tryReserve(length)) {
                        reject(ctx, in, "the node's budget for partially received frames (" + budget.limit()
                                + " bytes) cannot hold a " + length + "-byte frame");
                        return;
                    }
                    reservedBytes = length;
                }
                watch(ctx);
                return;
            }
            in.skipBytes(4);
            frameDone();
            byte[] body = new byte[length];
            in.readBytes(body);
            try {
                out.add(WireCodec.decode(body));
            } catch (MalformedInputException e) {
                reject(ctx, in, "malformed frame: " + e.getMessage());
                return;
            }
        }
        if (in.isReadable()) {
            watch(ctx); // A length prefix has begun.
        }
    }

    /** Starts the frame timeout when a frame is incomplete and none is running for it. */
    private void watch(ChannelHandlerContext ctx) {
        if (frameTimeoutMillis <= 0 || timeout != null) {
            return;
        }
        long frame = framesDone;
        timeout = ctx.executor().schedule(() -> {
            timeout = null;
            if (!closed && framesDone == frame) {
                ByteBuf held = internalBuffer();
                reject(ctx, held, "frame incomplete " + frameTimeoutMillis + " ms after its first byte (" + held.readableBytes()
                        + " bytes received)");
            }
        }, frameTimeoutMillis, TimeUnit.MILLISECONDS);
    }

    private void frameDone() {
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
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        super.decodeLast(ctx, in, out);
        frameDone();
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        frameDone(); // The connection is gone (or the decoder removed): its reservation goes back.
    }

    private void reject(ChannelHandlerContext ctx, ByteBuf in, String reason) {
        closed = true;
        frameDone();
        in.skipBytes(in.readableBytes());
        REFUSALS.warn("closing connection from {}: {}", ctx.channel().remoteAddress(), reason);
        ctx.close();
    }
}
