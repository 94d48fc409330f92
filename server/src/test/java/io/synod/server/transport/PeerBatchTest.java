package io.synod.server.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Message;
import io.synod.server.node.LocalCluster;
import io.synod.server.wire.WireCodec;
import io.synod.server.wire.WireFrame;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Cross-group batching on the peer links: the {@link PeerBatchEncoder} packs the messages of many groups for one
 * peer into frames within the limit, the {@link FrameDecoder} reads them back as {@link WireFrame.PeerBatch}es in
 * order, and the receiver refuses a batch with a forged message as it refuses a single one.
 */
class PeerBatchTest {
    static final Ballot B = new Ballot(3, 0);

    static WireFrame.PeerMessage accept(int group, int valueBytes, long slot) {
        Entry e = new Entry(slot, B, new Command(7, slot, new byte[valueBytes]));
        return new WireFrame.PeerMessage(group, new Message.Accept(0, 1, B, List.of(e), slot - 1));
    }

    static WireFrame.PeerMessage heartbeat(int group) {
        return new WireFrame.PeerMessage(group, new Message.Heartbeat(0, 1, B, 4));
    }

    /** Every message of every batch decoded from {@code frames} by a peer port's decoder, in order. */
    static List<WireFrame.PeerMessage> decodeAll(List<PeerBatchEncoder.Frame> frames, int maxFrameBytes) {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(maxFrameBytes));
        for (PeerBatchEncoder.Frame f : frames) {
            assertTrue(f.bytes().readableBytes() <= maxFrameBytes + 4, "a frame within the limit");
            ch.writeInbound(f.bytes());
        }
        assertTrue(ch.isOpen(), "every frame decoded");
        List<WireFrame.PeerMessage> out = new ArrayList<>();
        WireFrame frame;
        while ((frame = ch.readInbound()) != null) {
            out.addAll(((WireFrame.PeerBatch) frame).messages());
        }
        return out;
    }

    static void assertSameMessages(List<WireFrame.PeerMessage> expected, List<WireFrame.PeerMessage> actual) {
        assertEquals(expected.size(), actual.size());
        for (int i = 0; i < expected.size(); i++) {
            // Records with arrays inside compare by identity: compare the bytes instead.
            assertArrayEquals(WireCodec.encode(expected.get(i)), WireCodec.encode(actual.get(i)), "message " + i);
        }
    }

    @Test
    void manyGroupsMessagesGoInOneFrameAndComeBackInOrder() {
        List<WireFrame.PeerMessage> sent = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            sent.add(i % 5 == 4 ? heartbeat(i % 4) : accept(i % 4, 1024, 10 + i));
        }
        List<PeerBatchEncoder.Frame> frames = new PeerBatchEncoder(1 << 20).encode(sent, m -> { throw new AssertionError(m); });
        assertEquals(1, frames.size(), "40 messages of 4 groups fit one frame of 1 MiB");
        assertEquals(40, frames.get(0).messages());
        assertSameMessages(sent, decodeAll(frames, 1 << 20));
    }

    @Test
    void theFrameLimitSplitsABatchAndATooLargeMessageIsRefusedAlone() {
        int max = 8 * 1024;
        List<WireFrame.PeerMessage> sent = new ArrayList<>();
        List<WireFrame.PeerMessage> refused = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            sent.add(accept(i % 3, 1000, 100 + i));
        }
        WireFrame.PeerMessage huge = accept(2, max, 99);
        List<WireFrame.PeerMessage> withHuge = new ArrayList<>(sent);
        withHuge.add(12, huge);
        List<PeerBatchEncoder.Frame> frames = new PeerBatchEncoder(max).encode(withHuge, refused::add);
        assertEquals(List.of(huge), refused, "the one message larger than a frame is refused, not the batch");
        assertTrue(frames.size() >= 4 && frames.size() < 30, "30 messages of ~1 KiB in frames of 8 KiB: " + frames.size());
        assertEquals(30, frames.stream().mapToInt(PeerBatchEncoder.Frame::messages).sum());
        assertSameMessages(sent, decodeAll(frames, max));
    }

    @Test
    void aBatchSplitAcrossReadsIsReassembledAndAMalformedOneClosesTheConnection() {
        List<PeerBatchEncoder.Frame> frames = new PeerBatchEncoder(1 << 16)
                .encode(List.of(accept(0, 300, 5), heartbeat(1), accept(2, 300, 6)), m -> { });
        ByteBuf whole = frames.get(0).bytes();
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 16));
        int half = whole.readableBytes() / 2;
        ch.writeInbound(whole.retainedSlice(0, half));
        assertTrue(ch.inboundMessages().isEmpty(), "half a batch waits");
        ch.writeInbound(whole.retainedSlice(half, whole.readableBytes() - half));
        assertEquals(3, ((WireFrame.PeerBatch) ch.readInbound()).messages().size());

        // The count says 3 but only 2 items follow: refused, the connection closed.
        byte[] body = WireCodec.encode(new WireFrame.PeerBatch(List.of(heartbeat(0), heartbeat(1))));
        body[5] = 3;
        EmbeddedChannel bad = new EmbeddedChannel(new FrameDecoder(1 << 16));
        bad.writeInbound(Unpooled.buffer().writeInt(body.length).writeBytes(body));
        assertFalse(bad.isOpen());
        assertTrue(bad.inboundMessages().isEmpty());
    }

    @Test
    void aBatchWithOneForgedMessageIsRefusedWhole() {
        List<WireFrame.PeerMessage> delivered = new ArrayList<>();
        EmbeddedChannel ch = new EmbeddedChannel(new PeerInboundHandler(1, "c", Set.of(0, 1, 2), delivered::add));
        WireFrame.PeerMessage forged = new WireFrame.PeerMessage(0, new Message.Heartbeat(2, 1, B, 4)); // Node 2's, on node 0's link.
        ch.writeInbound(new WireFrame.Hello(0, "c"), new WireFrame.PeerBatch(List.of(heartbeat(0), heartbeat(1))));
        assertEquals(2, delivered.size());
        ch.writeInbound(new WireFrame.PeerBatch(List.of(heartbeat(2), forged, heartbeat(3))));
        assertFalse(ch.isOpen());
        assertEquals(2, delivered.size(), "nothing of the forged batch was delivered");
    }

    @Test
    @Timeout(60)
    void postedMessagesOfManyGroupsLeaveInOneFrameAtTheFlush() throws Exception {
        InetSocketAddress a = new InetSocketAddress("127.0.0.1", LocalCluster.freePort());
        InetSocketAddress b = new InetSocketAddress("127.0.0.1", LocalCluster.freePort());
        Map<Integer, InetSocketAddress> peers = Map.of(0, a, 1, b);
        LinkedBlockingQueue<WireFrame.PeerMessage> atB = new LinkedBlockingQueue<>();
        try (PeerNetwork netA = new PeerNetwork(0, "c", peers, 1 << 20, 4 << 20, 1, m -> { });
                PeerNetwork netB = new PeerNetwork(1, "c", peers, 1 << 20, 4 << 20, 1, atB::add)) {
            netB.start(b);
            netA.start(a);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!netA.connected(1) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(netA.connected(1), "A connected to B");
            // The Hello is delivered before anything posted after the link is up: wait for the link to carry a message.
            WireFrame.PeerMessage probe = null;
            while (probe == null && System.nanoTime() < deadline) {
                netA.send(heartbeat(9));
                probe = atB.poll(100, TimeUnit.MILLISECONDS);
            }
            assertTrue(probe != null, "the link carries messages");
            atB.clear();
            long framesBefore = netA.stats(1).framesSent.get();
            List<WireFrame.PeerMessage> posted = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                posted.add(accept(i % 4, 1024, 1 + i));
            }
            posted.forEach(netA::post);
            assertTrue(atB.poll(200, TimeUnit.MILLISECONDS) == null, "nothing leaves before the flush");
            netA.flush();
            List<WireFrame.PeerMessage> got = new ArrayList<>();
            while (got.size() < posted.size() && System.nanoTime() < deadline) {
                WireFrame.PeerMessage m = atB.poll(100, TimeUnit.MILLISECONDS);
                if (m != null) {
                    got.add(m);
                }
            }
            assertSameMessages(posted, got);
            assertEquals(framesBefore + 1, netA.stats(1).framesSent.get(), "32 messages of 4 groups, one frame");
            assertEquals(0, netA.stats(1).framesDropped.get());
        }
    }
}
