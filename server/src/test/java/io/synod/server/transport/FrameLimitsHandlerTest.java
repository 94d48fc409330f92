package io.synod.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Message;
import io.synod.server.wire.WireCodec;
import io.synod.server.wire.WireFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The decoder's frame budget and timeout, and the peer handler's hello timeout and one-connection-per-peer rule. */
class FrameLimitsHandlerTest {
    static byte[] framed(WireFrame f) {
        byte[] body = WireCodec.encode(f);
        byte[] out = new byte[4 + body.length];
        out[0] = (byte) (body.length >>> 24);
        out[1] = (byte) (body.length >>> 16);
        out[2] = (byte) (body.length >>> 8);
        out[3] = (byte) body.length;
        System.arraycopy(body, 0, out, 4, body.length);
        return out;
    }

    @Test
    void aPartialFrameHoldsItsLengthInTheBudgetUntilItCompletes() {
        FrameBudget budget = new FrameBudget(1 << 20);
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 16, budget, 1000));
        byte[] hello = framed(new WireFrame.Hello(2, "c"));
        ch.writeInbound(Unpooled.wrappedBuffer(hello, 0, 6));
        assertEquals(hello.length - 4, budget.reserved());
        ch.writeInbound(Unpooled.wrappedBuffer(hello, 6, hello.length - 6));
        assertEquals(new WireFrame.Hello(2, "c"), ch.readInbound());
        assertEquals(0, budget.reserved(), "released when the frame completed");
        assertTrue(ch.isOpen());
    }

    @Test
    void aFrameThatDoesNotFitTheBudgetClosesOnlyItsConnection() {
        FrameBudget budget = new FrameBudget(1000);
        EmbeddedChannel first = new EmbeddedChannel(new FrameDecoder(1 << 16, budget, 0));
        EmbeddedChannel second = new EmbeddedChannel(new FrameDecoder(1 << 16, budget, 0));
        first.writeInbound(Unpooled.buffer().writeInt(800));
        second.writeInbound(Unpooled.buffer().writeInt(800));
        assertTrue(first.isOpen());
        assertFalse(second.isOpen());
        assertEquals(800, budget.reserved());
        first.close();
        assertEquals(0, budget.reserved(), "a closed connection returns its reservation");
    }

    @Test
    void aFrameIncompleteAfterTheTimeoutIsClosed() {
        FrameBudget budget = new FrameBudget(1 << 20);
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 16, budget, 500));
        ch.writeInbound(Unpooled.buffer().writeInt(60_000).writeZero(100));
        ch.advanceTimeBy(499, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertTrue(ch.isOpen(), "still within the timeout");
        ch.advanceTimeBy(2, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertFalse(ch.isOpen());
        assertEquals(0, budget.reserved());
    }

    @Test
    void completeFramesNeverTimeOut() {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 16, new FrameBudget(1 << 20), 500));
        ch.writeInbound(Unpooled.wrappedBuffer(framed(new WireFrame.Hello(2, "c"))));
        ch.advanceTimeBy(10, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertTrue(ch.isOpen(), "an idle connection between frames is not a stalled frame");
    }

    @Test
    void aPeerThatDoesNotSayHelloInTimeIsClosed() {
        EmbeddedChannel ch = new EmbeddedChannel(new PeerInboundHandler(1, "c", Set.of(0, 1, 2), m -> { },
                new ConcurrentHashMap<>(), 300));
        ch.advanceTimeBy(301, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertFalse(ch.isOpen());
    }

    @Test
    void withoutTlsASecondHelloForAPeerDoesNotCloseItsLiveLink() {
        // Without TLS a Hello proves nothing: a forged Hello claiming node 2 must not cut node 2's real link
        // (ForgedPeerMessagesClusterTest); with TLS the newer connection of an authenticated peer replaces the older.
        Map<Integer, Channel> registry = new ConcurrentHashMap<>();
        List<WireFrame.PeerMessage> delivered = new ArrayList<>();
        EmbeddedChannel older = new EmbeddedChannel(new PeerInboundHandler(1, "c", Set.of(0, 1, 2),
                delivered::add, registry, 0));
        EmbeddedChannel newer = new EmbeddedChannel(new PeerInboundHandler(1, "c", Set.of(0, 1, 2),
                delivered::add, registry, 0));
        older.writeInbound(new WireFrame.Hello(2, "c"));
        newer.writeInbound(new WireFrame.Hello(2, "c"));
        assertTrue(older.isOpen(), "an unauthenticated Hello closes no live link");
        assertTrue(newer.isOpen());
        older.writeInbound(new WireFrame.PeerMessage(0, new Message.Heartbeat(2, 1, new Ballot(1, 2), 0)));
        assertEquals(1, delivered.size());
        older.close();
        newer.close();
        assertTrue(registry.isEmpty(), "a closed connection leaves the registry");
    }
}
