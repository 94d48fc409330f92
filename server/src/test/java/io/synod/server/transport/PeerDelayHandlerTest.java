package io.synod.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.synod.core.paxos.Message;
import io.synod.server.node.LocalCluster;
import io.synod.server.wire.WireFrame;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The peer transport's injected delay: never early (checked against an injected clock, and against the real
 * clock as a lower bound only), order-preserving, bounded; and end to end over 127.0.0.1 between two peer networks.
 */
class PeerDelayHandlerTest {
    private static final long MS = 1_000_000L;

    private static ByteBuf chunk(int tag) {
        return Unpooled.buffer(4).writeInt(tag);
    }

    private static List<Integer> drainTags(EmbeddedChannel ch) {
        List<Integer> tags = new ArrayList<>();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            if (b.isReadable()) {
                tags.add(b.readInt());
            }
            b.release();
        }
        return tags;
    }

    @Test
    void holdsEachChunkForTheDelayOnTheInjectedClockAndKeepsOrder() {
        AtomicLong now = new AtomicLong(1_000 * MS);
        PeerDelayHandler handler = new PeerDelayHandler(50 * MS, 1 << 20, now::get);
        EmbeddedChannel ch = new EmbeddedChannel(handler);
        ch.writeAndFlush(chunk(1));
        now.addAndGet(10 * MS);
        ch.writeAndFlush(chunk(2));
        ch.runScheduledPendingTasks(); // even if the event loop's timer fires, the injected clock says "not yet"
        assertEquals(List.of(), drainTags(ch), "nothing leaves before its delay");
        now.addAndGet(39 * MS); // 49 ms after chunk 1
        ch.runPendingTasks();
        ch.runScheduledPendingTasks();
        assertEquals(List.of(), drainTags(ch), "one millisecond early is still early");
        now.addAndGet(1 * MS); // exactly 50 ms after chunk 1
        ch.writeAndFlush(chunk(3)); // a write also drains what is due
        assertEquals(List.of(1), drainTags(ch));
        now.addAndGet(60 * MS);
        ch.writeAndFlush(chunk(4));
        assertEquals(List.of(2, 3), drainTags(ch), "FIFO, each at its own time");
        now.addAndGet(50 * MS);
        ch.writeAndFlush(Unpooled.EMPTY_BUFFER);
        assertEquals(List.of(4), drainTags(ch));
        assertFalse(ch.finish());
    }

    @Test
    @Timeout(30)
    void realClockNeverEarlyAndInOrder() throws Exception {
        long delayNanos = 30 * MS;
        EmbeddedChannel ch = new EmbeddedChannel(new PeerDelayHandler(delayNanos, 1 << 20));
        int n = 20;
        long[] written = new long[n];
        for (int i = 0; i < n; i++) {
            written[i] = System.nanoTime();
            ch.writeAndFlush(chunk(i));
        }
        List<Integer> got = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (got.size() < n && System.nanoTime() < deadline) {
            ch.runPendingTasks();
            ch.runScheduledPendingTasks();
            ByteBuf b;
            while ((b = ch.readOutbound()) != null) {
                int tag = b.readInt();
                b.release();
                long seen = System.nanoTime();
                assertTrue(seen - written[tag] >= delayNanos, "chunk " + tag + " left after "
                        + (seen - written[tag]) / 1e6 + " ms, before its 30 ms delay");
                got.add(tag);
            }
            Thread.sleep(1);
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            expected.add(i);
        }
        assertEquals(expected, got);
        ch.finishAndReleaseAll();
    }

    @Test
    void aFullQueueFailsTheWriteInsteadOfGrowing() {
        AtomicLong now = new AtomicLong();
        PeerDelayHandler handler = new PeerDelayHandler(10 * MS, 8, now::get);
        EmbeddedChannel ch = new EmbeddedChannel(handler);
        ChannelFuture a = ch.writeAndFlush(chunk(1));
        ChannelFuture b = ch.writeAndFlush(chunk(2));
        ChannelFuture c = ch.writeAndFlush(chunk(3));
        assertTrue(c.isDone() && !c.isSuccess(), "the third 4-byte chunk exceeds 8 held bytes");
        assertEquals(8, handler.heldBytes());
        now.addAndGet(10 * MS);
        ch.writeAndFlush(Unpooled.EMPTY_BUFFER);
        assertEquals(List.of(1, 2), drainTags(ch));
        assertTrue(a.isSuccess() && b.isSuccess());
        ch.finishAndReleaseAll();
    }

    @Test
    void closingFailsWhatIsHeld() {
        EmbeddedChannel ch = new EmbeddedChannel(new PeerDelayHandler(10_000 * MS, 1 << 20));
        ChannelFuture held = ch.writeAndFlush(chunk(1));
        assertFalse(held.isDone());
        ch.close();
        assertTrue(held.isDone() && !held.isSuccess());
        assertNull(ch.readOutbound());
    }

    @Test
    @Timeout(60)
    void twoPeerNetworksWithADelayedLinkDeliverInOrderAndNotEarly() throws Exception {
        InetSocketAddress a = new InetSocketAddress("127.0.0.1", LocalCluster.freePort());
        InetSocketAddress b = new InetSocketAddress("127.0.0.1", LocalCluster.freePort());
        Map<Integer, InetSocketAddress> peers = Map.of(0, a, 1, b);
        LinkedBlockingQueue<WireFrame.PeerMessage> atB = new LinkedBlockingQueue<>();
        try (PeerNetwork netA = new PeerNetwork(0, "c", peers, 1 << 16, 1 << 20, 1, m -> { });
                PeerNetwork netB = new PeerNetwork(1, "c", peers, 1 << 16, 1 << 20, 1, atB::add)) {
            netA.setOutboundDelayMillis(1, 40);
            netB.start(b);
            netA.start(a);
            // Wait for the link: probes until one arrives (each probe also delayed).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            WireFrame.PeerMessage probe = null;
            while (probe == null && System.nanoTime() < deadline) {
                netA.send(PeerNetworkTest.heartbeat(0, 1, 0));
                probe = atB.poll(100, TimeUnit.MILLISECONDS);
            }
            assertTrue(probe != null, "link A->B came up");
            Thread.sleep(200);
            atB.clear();
            int n = 50;
            long sent = System.nanoTime();
            for (int i = 1; i <= n; i++) {
                netA.send(PeerNetworkTest.heartbeat(0, 1, i));
            }
            WireFrame.PeerMessage first = atB.poll(20, TimeUnit.SECONDS);
            while (PeerNetworkTest.heartbeat(0, 1, 0).equals(first)) {
                first = atB.poll(20, TimeUnit.SECONDS); // A probe still in flight after the 200 ms on a loaded machine.
            }
            long firstArrival = System.nanoTime();
            assertEquals(PeerNetworkTest.heartbeat(0, 1, 1), first);
            assertTrue(firstArrival - sent >= 40 * MS, "arrived " + (firstArrival - sent) / 1e6 + " ms after sending, before the 40 ms delay");
            for (int i = 2; i <= n; i++) {
                assertEquals(PeerNetworkTest.heartbeat(0, 1, i), atB.poll(20, TimeUnit.SECONDS), "message " + i + " in order");
            }
        }
    }
}
