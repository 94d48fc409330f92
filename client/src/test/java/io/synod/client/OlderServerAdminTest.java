package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.coordination.ShardMap;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientFrameCodec;
import io.synod.protocol.ClientReply;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The SDK against a server older than the admin flags and placement features bytes (docs/client.md, "Frames"): such a
 * server reads a frame with a trailing byte as malformed and closes the connection. Played here by a socket server that
 * speaks the frames as they were (a plain TCP server on 127.0.0.1, one thread per connection): the SDK's placement
 * query with the features byte is refused, the SDK asks again without it and routes commands by the answer, and its
 * admin request goes without the flags byte, so it is answered.
 */
class OlderServerAdminTest {
    @Test
    @Timeout(60)
    void anOlderServerIsAskedWithoutTheFeaturesByteAndSentNoAdminFlag() throws Exception {
        AtomicInteger refusedQueries = new AtomicInteger();
        AtomicInteger plainQueries = new AtomicInteger();
        AtomicInteger flaggedAdmin = new AtomicInteger();
        try (ServerSocket server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket s = server.accept();
                        Thread t = new Thread(() -> serve(s, refusedQueries, plainQueries, flaggedAdmin));
                        t.setDaemon(true);
                        t.start();
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
            try (SynodClient client = SynodClient.builder().servers(List.of(address)).timeout(Duration.ofSeconds(10))
                    .build()) {
                String status = client.membership(0, ClientFrame.MEMBERSHIP_STATUS, -1).get(20, TimeUnit.SECONDS)
                        .membership();
                assertEquals("group 0: leader replica 0 (node 0)", status);
            }
        }
        assertTrue(refusedQueries.get() >= 1, "the SDK asked with the features byte first");
        assertTrue(plainQueries.get() >= 1, "then without it, which the older server answers");
        assertEquals(0, flaggedAdmin.get(), "no admin request with the flags byte reached the older server");
    }

    /** One connection of the older server: answers what it knows, closes the connection on a trailing byte. */
    private static void serve(Socket s, AtomicInteger refusedQueries, AtomicInteger plainQueries,
            AtomicInteger flaggedAdmin) {
        try (s; DataInputStream in = new DataInputStream(s.getInputStream());
                DataOutputStream out = new DataOutputStream(s.getOutputStream())) {
            while (true) {
                byte[] body = new byte[in.readInt()];
                in.readFully(body);
                ClientFrame frame = ClientFrameCodec.decode(body);
                ClientFrame answer;
                if (frame instanceof ClientFrame.PlacementQuery q) {
                    if (body.length > 2 + 8) {
                        refusedQueries.incrementAndGet();
                        return; // "frame has 1 trailing bytes": the connection closes
                    }
                    plainQueries.incrementAndGet();
                    answer = new ClientFrame.PlacementReport(q.requestId(), 3, 1, 0, List.of(1L));
                } else if (frame instanceof ClientFrame.MembershipRequest m) {
                    if (body.length > 2 + 8 + 3 * 4) {
                        flaggedAdmin.incrementAndGet();
                        return;
                    }
                    answer = new ClientFrame.Response(m.requestId(), m.group(), ClientReply.Status.OK.ordinal(), 0, 0,
                            "group 0: leader replica 0 (node 0)".getBytes(StandardCharsets.UTF_8));
                } else if (frame instanceof ClientFrame.StatusQuery q) {
                    answer = new ClientFrame.StatusReport(q.requestId(), 0, List.of());
                } else if (frame instanceof ClientFrame.ShardMapQuery q) {
                    answer = new ClientFrame.ShardMapReport(q.requestId(), ShardMap.uniform(1).encode());
                } else {
                    return;
                }
                byte[] bytes = ClientFrameCodec.encode(answer);
                out.writeInt(bytes.length);
                out.write(bytes);
                out.flush();
            }
        } catch (IOException | RuntimeException e) {
            // The client closed the connection, or sent what this server does not read: the connection ends.
        }
    }
}
