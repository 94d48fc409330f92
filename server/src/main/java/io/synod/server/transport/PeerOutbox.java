package io.synod.server.transport;

import io.netty.channel.Channel;
import io.synod.server.wire.WireFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;

/**
 * The outbound queue of one peer link. Any thread posts peer messages; a flush hands them to the link's event
 * loop, where one task writes all that were posted, packed by the {@link PeerBatchEncoder}, and flushes once:
 * one frame, one socket write and (with TLS) as few records as the bytes need, where each message used to cost
 * its own task, frame, flush and record. Messages are dropped (counted) when the link is down or full, as a
 * single send always was: Paxos retransmits what matters.
 */
final class PeerOutbox {
    private static final RateLimitedLog REFUSALS = new RateLimitedLog(LoggerFactory.getLogger(PeerOutbox.class));

    private final int peer;
    private final PeerBatchEncoder batches;
    private final PeerNetwork.LinkStats stats;
    private final AtomicLong nodeDropped;
    private final Supplier<Channel> channel;
    private final Queue<WireFrame.PeerMessage> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();

    /** {@code channel}: the link's connection now (null while down); {@code nodeDropped} counts drops of every link. */
    PeerOutbox(int peer, PeerBatchEncoder batches, PeerNetwork.LinkStats stats, AtomicLong nodeDropped,
            Supplier<Channel> channel) {
        this.peer = peer;
        this.batches = batches;
        this.stats = stats;
        this.nodeDropped = nodeDropped;
        this.channel = channel;
    }

    /** Queues {@code m} for the next {@link #flush}, or drops it (counted) when the link cannot take it now. */
    void post(WireFrame.PeerMessage m) {
        Channel ch = channel.get();
        if (ch == null || !ch.isActive() || !ch.isWritable()) {
            dropped(1);
            return;
        }
        queue.add(m);
    }

    /** Hands what was posted to the link's event loop (a no-op when nothing was, or a drain is already due). */
    void flush() {
        if (queue.isEmpty() || !drainScheduled.compareAndSet(false, true)) {
            return;
        }
        Channel ch = channel.get();
        try {
            if (ch == null) {
                throw new RejectedExecutionException("link down");
            }
            ch.eventLoop().execute(() -> drain(ch));
        } catch (RejectedExecutionException e) {
            // The link went down or the network is closing: what was posted is lost, as on a full link.
            drainScheduled.set(false);
            dropped(clear());
        }
    }

    /** On the event loop: every posted message in as few frames as the limit allows, then one flush. */
    private void drain(Channel ch) {
        drainScheduled.set(false); // Before polling: a message posted and flushed from now on schedules another drain.
        List<WireFrame.PeerMessage> messages = new ArrayList<>();
        WireFrame.PeerMessage m;
        while ((m = queue.poll()) != null) {
            messages.add(m);
        }
        if (messages.isEmpty()) {
            return;
        }
        if (!ch.isActive()) {
            dropped(messages.size());
            return;
        }
        for (PeerBatchEncoder.Frame frame : batches.encode(messages, tooLarge -> {
            REFUSALS.warn("dropping a {} to peer {}: larger than the frame limit", tooLarge.message().getClass().getSimpleName(),
                    peer);
            dropped(1);
        })) {
            int n = frame.messages();
            stats.bytesSent.addAndGet(frame.bytes().readableBytes());
            stats.framesSent.incrementAndGet();
            stats.messagesSent.addAndGet(n);
            ch.write(frame.bytes()).addListener(f -> {
                if (!f.isSuccess()) {
                    stats.framesDropped.addAndGet(n);
                }
            });
        }
        stats.flushes.incrementAndGet();
        ch.flush();
    }

    private int clear() {
        int n = 0;
        while (queue.poll() != null) {
            n++;
        }
        return n;
    }

    private void dropped(int messages) {
        stats.framesDropped.addAndGet(messages);
        nodeDropped.addAndGet(messages);
    }
}
