package io.synod.server.client;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import io.synod.server.transport.RateLimitedLog;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.LoggerFactory;

/**
 * The client port's connection caps: at most {@code max} connections at once, and at most
 * {@code maxPerAddress} from one remote IP address. A connection over either is closed as soon as it
 * opens, before TLS or any frame, with the reason logged (rate-limited); those already open are
 * unaffected, so a flood of connections cannot take the port from the clients it serves.
 */
@ChannelHandler.Sharable
public final class ConnectionLimiter extends ChannelInboundHandlerAdapter {
    private static final RateLimitedLog REFUSALS = new RateLimitedLog(LoggerFactory.getLogger(ConnectionLimiter.class));
    private static final AttributeKey<InetAddress> COUNTED = AttributeKey.valueOf("synod.counted");

    private final int max;
    private final int maxPerAddress;
    private final AtomicInteger open = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, AtomicInteger> perAddress = new ConcurrentHashMap<>();
    private final AtomicInteger refused = new AtomicInteger();

    public ConnectionLimiter(int max, int maxPerAddress) {
        this.max = max;
        this.maxPerAddress = maxPerAddress;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        InetAddress from = ((InetSocketAddress) ctx.channel().remoteAddress()).getAddress();
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            refuse(ctx, "the client port has its maximum of " + max + " connections (client.max.connections)");
            return;
        }
        AtomicInteger mine = perAddress.computeIfAbsent(from, a -> new AtomicInteger());
        if (mine.incrementAndGet() > maxPerAddress) {
            mine.decrementAndGet();
            open.decrementAndGet();
            refuse(ctx, from.getHostAddress() + " has its maximum of " + maxPerAddress
                    + " connections (client.max.connections.per.address)");
            return;
        }
        ctx.channel().attr(COUNTED).set(from);
        ctx.fireChannelActive();
    }

    private void refuse(ChannelHandlerContext ctx, String reason) {
        refused.incrementAndGet();
        REFUSALS.warn("refusing client connection from {}: {}", ctx.channel().remoteAddress(), reason);
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        InetAddress from = ctx.channel().attr(COUNTED).getAndSet(null);
        if (from != null) {
            open.decrementAndGet();
            perAddress.computeIfPresent(from, (a, n) -> n.decrementAndGet() == 0 ? null : n);
            ctx.fireChannelInactive();
        }
    }

    /** Connections open now. */
    public int open() {
        return open.get();
    }

    /** Connections refused so far. */
    public int refused() {
        return refused.get();
    }
}
