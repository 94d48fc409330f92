package io.synod.server.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.synod.server.transport.FrameDecoder;
import io.synod.server.transport.FrameEncoder;
import io.synod.server.transport.PeerInboundHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The peer frames of client forwarding (types 14 and 15): symmetric encode/decode, and who may send them. */
class ForwardFrameTest {
    static final WireFrame.ForwardRequest REQUEST = new WireFrame.ForwardRequest(77, "client", "alice", "c", 9, 4,
            new byte[] {1, 2, 3}, 1);
    static final WireFrame.ForwardReply REPLY = new WireFrame.ForwardReply(77, 1, 0, 44, 2, new byte[] {5, 6}, 1);

    /** Bytes a peer's outbound pipeline writes for {@code frames} (length-prefixed). */
    static ByteBuf wire(WireFrame... frames) {
        EmbeddedChannel out = new EmbeddedChannel(new FrameEncoder(1 << 20));
        out.writeOutbound((Object[]) frames);
        ByteBuf all = out.alloc().buffer();
        for (ByteBuf b; (b = out.readOutbound()) != null; ) {
            all.writeBytes(b);
            b.release();
        }
        return all;
    }

    @Test
    void bothFramesRoundTripFieldForField() throws Exception {
        WireFrame.ForwardRequest request = (WireFrame.ForwardRequest) WireCodec.decode(WireCodec.encode(REQUEST));
        assertEquals(REQUEST.forwardId(), request.forwardId());
        assertEquals(List.of("client", "alice", "c"), List.of(request.role(), request.user(), request.cluster()));
        assertEquals(List.of(9L, 4L), List.of(request.clientId(), request.sequence()));
        assertArrayEquals(REQUEST.payload(), request.payload());
        assertEquals(1, request.flags());
        WireFrame.ForwardReply reply = (WireFrame.ForwardReply) WireCodec.decode(WireCodec.encode(REPLY));
        assertEquals(List.of(77L, 1L, 0L, 44L, 2L, 1L), List.of(reply.forwardId(), (long) reply.group(), (long) reply.status(),
                reply.slot(), (long) reply.leaderHint(), (long) reply.served()));
        assertArrayEquals(REPLY.result(), reply.result());
    }

    @Test
    void anOverlongIdentityIsMalformed() {
        WireFrame.ForwardRequest huge = new WireFrame.ForwardRequest(1, "client", "x".repeat(2000), "c", 1, 1, new byte[0], 0);
        MalformedInputException e = assertThrows(MalformedInputException.class, () -> WireCodec.decode(WireCodec.encode(huge)));
        assertTrue(e.getMessage().contains("forwarded user"), e.getMessage());
    }

    @Test
    void aPeerConnectionDeliversForwardedFramesWithTheNodeThatSaidHello() {
        List<String> got = new ArrayList<>();
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(1 << 20), new PeerInboundHandler(1, "c",
                Set.of(0, 1, 2), m -> { }, (from, frame) -> got.add(from + ":" + frame.getClass().getSimpleName())));
        in.writeInbound(wire(new WireFrame.Hello(2, "c"), REQUEST, REPLY));
        assertEquals(List.of("2:ForwardRequest", "2:ForwardReply"), got);
        assertTrue(in.isOpen());
    }

    @Test
    void forwardedFramesBeforeHelloOrWithoutAForwarderCloseTheConnection() {
        List<WireFrame> got = new ArrayList<>();
        EmbeddedChannel early = new EmbeddedChannel(new FrameDecoder(1 << 20), new PeerInboundHandler(1, "c",
                Set.of(0, 1, 2), m -> { }, (from, frame) -> got.add(frame)));
        early.writeInbound(wire(REQUEST));
        assertFalse(early.isOpen(), "no Hello: no node vouches for the client identity it carries");
        EmbeddedChannel none = new EmbeddedChannel(new FrameDecoder(1 << 20), new PeerInboundHandler(1, "c",
                Set.of(0, 1, 2), m -> { }));
        none.writeInbound(wire(new WireFrame.Hello(2, "c"), REQUEST));
        assertFalse(none.isOpen(), "a server without forwarding refuses the frame");
        assertTrue(got.isEmpty());
    }
}
