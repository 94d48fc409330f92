package io.synod.server.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientFrameCodec;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The blocking client reads replies with the client protocol's shared codec: a reply whose length prefix is outside
 * the frame limit, or whose body does not decode, ends the call with one line naming the problem (the connection is
 * dropped, nothing is allocated for the announced length); a well-formed reply arriving in pieces is read whole.
 * The "server" is a plain socket on 127.0.0.1 that reads one request frame and answers with the given bytes.
 */
class NodeClientFramingTest {

    private static final int MAX_FRAME = 1 << 16;

    @Test
    void anOversizedReplyLengthIsRefusedInOneLine() throws Exception {
        IOException e = assertThrows(IOException.class, () -> statusFrom(lengthPrefix(Integer.MAX_VALUE)));
        assertEquals("server sent a bad frame: frame length 2147483647 is outside 1.." + MAX_FRAME, e.getMessage());
    }

    @Test
    void aMalformedReplyBodyIsRefusedInOneLine() throws Exception {
        byte[] body = {(byte) ClientFrameCodec.VERSION, 99}; // a frame type nobody sends
        IOException e = assertThrows(IOException.class, () -> statusFrom(concat(lengthPrefix(body.length), body)));
        assertTrue(e.getMessage().startsWith("server sent a bad frame: malformed frame: "), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void aWellFormedReplyInPiecesIsReadWhole() throws Exception {
        byte[] body = ClientFrameCodec.encode(new ClientFrame.StatusReport(1, 7, List.of()));
        ClientFrame.StatusReport report = statusFrom(concat(lengthPrefix(body.length), body));
        assertEquals(7, report.nodeId());
    }

    @Test
    void aCommandWhoseOnlyServerSendsGarbageFailsAtItsDeadlineNamingTheLastError() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> serving = serveForever(server, lengthPrefix(0));
            try (NodeClient client = new NodeClient(Map.of(1, (InetSocketAddress) server.getLocalSocketAddress()), 1, 2_000,
                    MAX_FRAME)) {
                IOException e = assertThrows(IOException.class, () -> client.get("k", 500));
                assertTrue(e.getMessage().contains("last error: server sent a bad frame: frame length 0 is outside 1.."),
                        e.getMessage());
                assertFalse(e.getMessage().contains("\n"), e.getMessage());
            } finally {
                server.close();
                serving.get(10, TimeUnit.SECONDS);
            }
        }
    }

    /** A status query against a one-shot server answering {@code reply}, sent in two writes. */
    private static ClientFrame.StatusReport statusFrom(byte[] reply) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> serving = CompletableFuture.runAsync(() -> answerOnce(server, reply));
            try {
                return NodeClient.status((InetSocketAddress) server.getLocalSocketAddress(), 5_000, MAX_FRAME, null);
            } finally {
                serving.get(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Answers every connection's requests with {@code reply} until the server socket is closed. */
    private static CompletableFuture<Void> serveForever(ServerSocket server, byte[] reply) {
        return CompletableFuture.runAsync(() -> {
            while (!server.isClosed()) {
                answerOnce(server, reply);
            }
        });
    }

    private static void answerOnce(ServerSocket server, byte[] reply) {
        try (Socket socket = server.accept()) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            in.readFully(new byte[in.readInt()]); // the request, whatever it is
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            int half = reply.length / 2;
            out.write(reply, 0, half);
            out.flush();
            out.write(reply, half, reply.length - half);
            out.flush();
            socket.shutdownOutput();
            in.read(); // until the client closes
        } catch (IOException e) {
            // The client closed first, or the server socket was closed: this connection is over.
        }
    }

    private static byte[] lengthPrefix(int length) {
        return ByteBuffer.allocate(4).putInt(length).array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        return ByteBuffer.allocate(a.length + b.length).put(a).put(b).array();
    }
}
