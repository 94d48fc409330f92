package io.synod.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Message;
import io.synod.server.wire.WireFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PeerInboundHandlerTest {
    final List<WireFrame.PeerMessage> delivered = new ArrayList<>();

    EmbeddedChannel channel() {
        return new EmbeddedChannel(new PeerInboundHandler(1, "c", Set.of(0, 1, 2), delivered::add));
    }

    static WireFrame.PeerMessage hb(int from, int to) {
        return new WireFrame.PeerMessage(0, new Message.Heartbeat(from, to, new Ballot(1, from), 0));
    }

    @Test
    void deliversMessagesAfterHello() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(new WireFrame.Hello(2, "c"), hb(2, 1), hb(2, 1));
        assertEquals(2, delivered.size());
        assertTrue(ch.isOpen());
    }

    @Test
    void refusesAMessageBeforeHello() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(hb(2, 1));
        assertFalse(ch.isOpen());
        assertTrue(delivered.isEmpty());
    }

    @Test
    void refusesAnotherClusterAnUnknownNodeOrItself() {
        for (WireFrame.Hello h : List.of(new WireFrame.Hello(2, "other"), new WireFrame.Hello(9, "c"), new WireFrame.Hello(1, "c"))) {
            EmbeddedChannel ch = channel();
            ch.writeInbound(h);
            assertFalse(ch.isOpen(), h.toString());
        }
    }

    @Test
    void refusesSpoofedSendersAndWrongReceivers() {
        // Client frames never reach this handler: the peer port's decoder refuses their types (FrameDecoderTest).
        for (WireFrame f : List.of(hb(0, 1), hb(2, 0))) {
            EmbeddedChannel ch = channel();
            ch.writeInbound(new WireFrame.Hello(2, "c"), f);
            assertFalse(ch.isOpen(), f.toString());
        }
        assertTrue(delivered.isEmpty());
    }
}
