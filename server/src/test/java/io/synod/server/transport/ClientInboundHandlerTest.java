package io.synod.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import io.synod.server.client.ClientServer;
import io.synod.server.wire.WireFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class ClientInboundHandlerTest {
    final List<Consumer<WireFrame.ClientResponse>> pending = new ArrayList<>();

    final ClientServer.Handler handler = new ClientServer.Handler() {
        @Override
        public void onCommand(WireFrame.ClientCommand command, Consumer<WireFrame.ClientResponse> respond) {
            pending.add(respond);
        }

        @Override
        public WireFrame.StatusReport status(long requestId) {
            return new WireFrame.StatusReport(requestId, 4, List.of());
        }
    };

    @Test
    void answersStatusAndRelaysResponses() {
        EmbeddedChannel ch = new EmbeddedChannel(new ClientServer.ClientInboundHandler(handler, 8));
        ch.writeInbound(new WireFrame.StatusQuery(3));
        assertEquals(new WireFrame.StatusReport(3, 4, List.of()), ch.readOutbound());
        ch.writeInbound(new WireFrame.ClientCommand(9, 1, 1, new byte[] {1}));
        pending.get(0).accept(new WireFrame.ClientResponse(9, 0, 0, 1, 0, new byte[0]));
        ch.runPendingTasks();
        assertInstanceOf(WireFrame.ClientResponse.class, ch.readOutbound());
    }

    @Test
    void stopsReadingAtTheInFlightBoundAndResumesWhenAnswered() {
        EmbeddedChannel ch = new EmbeddedChannel(new ClientServer.ClientInboundHandler(handler, 2));
        ch.writeInbound(new WireFrame.ClientCommand(1, 1, 1, new byte[] {1}));
        assertTrue(ch.config().isAutoRead());
        ch.writeInbound(new WireFrame.ClientCommand(2, 1, 2, new byte[] {1}));
        assertFalse(ch.config().isAutoRead(), "backpressure at the bound");
        pending.get(0).accept(new WireFrame.ClientResponse(1, 0, 0, 1, 0, new byte[0]));
        ch.runPendingTasks();
        assertTrue(ch.config().isAutoRead(), "reading resumes below the bound");
    }

    @Test
    void peerFramesOnTheClientPortClose() {
        EmbeddedChannel ch = new EmbeddedChannel(new ClientServer.ClientInboundHandler(handler, 8));
        ch.writeInbound(new WireFrame.Hello(1, "c"));
        assertFalse(ch.isOpen());
    }
}
