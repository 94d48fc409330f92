package io.synod.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A benchmark/test option of the peer transport: holds every outbound chunk of one peer connection for a
 * fixed one-way delay before it goes to the socket, a user-space stand-in for {@code tc netem} on the
 * server-server links (the "transport's latency matrix" of the lock experiments; config
 * {@code peer.delay.ms} and {@code peer.delay.ms.<nodeId>}). Two of them, one per direction, add a
 * round-trip time of twice the delay.
 *
 * <p>Sits between the socket and the {@link FrameEncoder}, so it sees encoded bytes. Rules:
 * <ul>
 *   <li>never early: a chunk is written no sooner than {@code delay} after it was handed over (a timer that
 *       fires before its time is re-armed for the rest);</li>
 *   <li>order-preserving: release times are forced to be non-decreasing and the queue is FIFO, all on the
 *       channel's event loop;</li>
 *   <li>bounded: at most {@code maxHeldBytes} are held; a chunk beyond that fails its write promise (the peer
 *       network counts it as dropped, as it does for a full socket buffer; Paxos retransmits).</li>
 * </ul>
 * Closing the channel releases what is held (the write promises fail).
 */
public final class PeerDelayHandler extends ChannelOutboundHandlerAdapter {
    private final long delayNanos;
    private final long maxHeldBytes;
    private final LongSupplier clock;
    private final ArrayDeque<Held> queue = new ArrayDeque<>();
    private long heldBytes;
    private long lastReleaseNanos = Long.MIN_VALUE;
    private boolean timerArmed;
    private ChannelHandlerContext ctx;

    private record Held(Object msg, ChannelPromise promise, long releaseNanos, long bytes) {
    }

    public PeerDelayHandler(long delayNanos, long maxHeldBytes) {
        this(delayNanos, maxHeldBytes, System::nanoTime);
    }

    /** @param clock monotonic nanoseconds (injected by tests) */
    public PeerDelayHandler(long delayNanos, long maxHeldBytes, LongSupplier clock) {
        if (delayNanos < 0) {
            throw new IllegalArgumentException("delay must be >= 0, got " + delayNanos + " ns");
        }
        if (maxHeldBytes < 1) {
            throw new IllegalArgumentException("maxHeldBytes must be >= 1, got " + maxHeldBytes);
        }
        this.delayNanos = delayNanos;
        this.maxHeldBytes = maxHeldBytes;
        this.clock = clock;
    }

    public long delayNanos() {
        return delayNanos;
    }

    /** Bytes held right now (for tests; read on the event loop). */
    long heldBytes() {
        return heldBytes;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        long bytes = msg instanceof ByteBuf b ? b.readableBytes() : 0;
        if (heldBytes + bytes > maxHeldBytes && !queue.isEmpty()) {
            ReferenceCountUtil.release(msg);
            promise.tryFailure(new IllegalStateException("peer delay queue full (" + heldBytes + " bytes held)"));
            return;
        }
        long release = Math.max(clock.getAsLong() + delayNanos, lastReleaseNanos);
        lastReleaseNanos = release;
        queue.addLast(new Held(msg, promise, release, bytes));
        heldBytes += bytes;
        drain();
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        // Every released chunk is flushed when it is written; nothing to flush ahead of its time.
    }

    private void drain() {
        long now = clock.getAsLong();
        boolean wrote = false;
        while (!queue.isEmpty() && queue.peekFirst().releaseNanos() - now <= 0) {
            Held h = queue.pollFirst();
            heldBytes -= h.bytes();
            ctx.write(h.msg(), h.promise());
            wrote = true;
        }
        if (wrote) {
            ctx.flush();
        }
        if (!queue.isEmpty() && !timerArmed) {
            timerArmed = true;
            long wait = queue.peekFirst().releaseNanos() - now;
            ctx.executor().schedule(() -> {
                timerArmed = false;
                drain();
            }, wait, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        failHeld(new IllegalStateException("peer connection closed with delayed frames held"));
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        failHeld(new IllegalStateException("peer connection closed with delayed frames held"));
        ctx.close(promise);
    }

    private void failHeld(Throwable cause) {
        Held h;
        while ((h = queue.pollFirst()) != null) {
            heldBytes -= h.bytes();
            ReferenceCountUtil.release(h.msg());
            h.promise().tryFailure(cause);
        }
    }
}
