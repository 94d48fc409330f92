package io.synod.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.synod.client.codec.ClientFrameDecoder;
import io.synod.protocol.ClientFrame;
import io.synod.server.client.ClientServer;
import io.synod.server.wire.WireCodec;
import io.synod.server.wire.WireFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class ClientInboundHandlerTest {
    final List<Consumer<ClientFrame.Response>> pending = new ArrayList<>();

    final ClientServer.Handler handler = new ClientServer.Handler() {
        @Override
        public void onCommand(ClientFrame.Command command, Consumer<ClientFrame.Response> respond) {
            pending.add(respond);
        }

        @Override
        public ClientFrame.StatusReport status(long requestId) {
            return new ClientFrame.StatusReport(requestId, 4, List.of());
        }
    };

    @Test
    void answersStatusAndRelaysResponses() {
        EmbeddedChannel ch = new EmbeddedChannel(new ClientServer.ClientInboundHandler(handler, 8));
        ch.writeInbound(new ClientFrame.StatusQuery(3));
        assertEquals(new ClientFrame.StatusReport(3, 4, List.of()), ch.readOutbound());
        ch.writeInbound(new ClientFrame.Command(9, 1, 1, new byte[] {1}));
        pending.get(0).accept(new ClientFrame.Response(9, 0, 0, 1, 0, new byte[0]));
        ch.runPendingTasks();
        assertInstanceOf(ClientFrame.Response.class, ch.readOutbound());
    }

    @Test
    void stopsReadingAtTheInFlightBoundAndResumesWhenAnswered() {
        EmbeddedChannel ch = new EmbeddedChannel(new ClientServer.ClientInboundHandler(handler, 2));
        ch.writeInbound(new ClientFrame.Command(1, 1, 1, new byte[] {1}));
        assertTrue(ch.config().isAutoRead());
        ch.writeInbound(new ClientFrame.Command(2, 1, 2, new byte[] {1}));
        assertFalse(ch.config().isAutoRead(), "backpressure at the bound");
        pending.get(0).accept(new ClientFrame.Response(1, 0, 0, 1, 0, new byte[0]));
        ch.runPendingTasks();
        assertTrue(ch.config().isAutoRead(), "reading resumes below the bound");
    }

    @Test
    void responsesAnsweredTogetherLeaveInOrderInOneFlushAndReadingResumes() {
        EmbeddedChannel ch = new EmbeddedChannel(new ClientServer.ClientInboundHandler(handler, 3));
        int[] flushes = {0};
        ch.pipeline().addFirst(new io.netty.channel.ChannelOutboundHandlerAdapter() {
            @Override
            public void flush(io.netty.channel.ChannelHandlerContext ctx) {
                flushes[0]++;
                ctx.flush();
            }
        });
        for (long id = 1; id <= 3; id++) {
            ch.writeInbound(new ClientFrame.Command(id, 1, id, new byte[] {1}));
        }
        assertFalse(ch.config().isAutoRead(), "backpressure at the bound");
        int before = flushes[0];
        // A group thread answers all three in one Ready: one drain task writes them with one flush.
        for (int i = 2; i >= 0; i--) {
            pending.get(i).accept(new ClientFrame.Response(3 - i, 0, 0, 1, 0, new byte[0]));
        }
        assertNull((Object) ch.readOutbound(), "nothing is written off the event loop");
        ch.runPendingTasks();
        assertEquals(before + 1, flushes[0], "one flush for the three responses");
        for (long id = 1; id <= 3; id++) {
            ClientFrame.Response r = assertInstanceOf(ClientFrame.Response.class, ch.readOutbound());
            assertEquals(id, r.requestId(), "responses leave in the order they were given");
        }
        assertNull((Object) ch.readOutbound());
        assertTrue(ch.config().isAutoRead(), "reading resumes below the bound");
        // A later answer schedules a new drain.
        ch.writeInbound(new ClientFrame.Command(4, 1, 4, new byte[] {1}));
        pending.get(3).accept(new ClientFrame.Response(4, 0, 0, 1, 0, new byte[0]));
        ch.runPendingTasks();
        assertEquals(4, assertInstanceOf(ClientFrame.Response.class, ch.readOutbound()).requestId());
    }

    @Test
    void peerFramesOnTheClientPortClose() {
        EmbeddedChannel ch = new EmbeddedChannel(new ClientFrameDecoder(1024),
                new ClientServer.ClientInboundHandler(handler, 8));
        byte[] hello = WireCodec.encode(new WireFrame.Hello(1, "c"));
        ch.writeInbound(Unpooled.buffer().writeInt(hello.length).writeBytes(hello));
        assertFalse(ch.isOpen());
    }
}
