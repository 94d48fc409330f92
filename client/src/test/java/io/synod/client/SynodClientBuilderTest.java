package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the client does before (and without) a cluster: argument checks and unreachable servers. */
@Timeout(60)
class SynodClientBuilderTest {
    @Test
    void parsesServerListsAndRefusesBadOnes() {
        assertEquals(2, StaticDiscovery.parseHostPorts("127.0.0.1:7100, localhost:7101").size());
        for (String bad : new String[] {"", "host", "host:", ":7100", "host:0", "host:65536", "host:12ab"}) {
            assertThrows(IllegalArgumentException.class, () -> StaticDiscovery.parseHostPorts(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> SynodClient.builder().build(), "neither zookeeper nor servers");
        assertThrows(IllegalArgumentException.class,
                () -> SynodClient.builder().zookeeper("127.0.0.1:1").servers("127.0.0.1:2").build(), "both");
        assertThrows(IllegalArgumentException.class, () -> SynodClient.builder().timeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> SynodClient.builder().maxInFlight(0));
    }

    @Test
    void aClosedPortIsUnavailableWithinTheConnectTimeout() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        UnavailableException e = assertThrows(UnavailableException.class, () -> SynodClient.builder()
                .servers("127.0.0.1:" + port).connectTimeout(Duration.ofSeconds(5)).build());
        assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
    }

    /** A server that accepts and never answers (not Synod): the client gives up after its connect timeout. */
    @Test
    void aSilentServerIsUnavailable() throws Exception {
        AtomicInteger accepted = new AtomicInteger();
        try (ServerSocket s = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            // A thread of its own: the common pool (one thread on two cores) may be busy with other work.
            CompletableFuture<Socket> conn = new CompletableFuture<>();
            Thread acceptor = new Thread(() -> {
                try {
                    Socket c = s.accept();
                    accepted.incrementAndGet();
                    conn.complete(c);
                } catch (IOException e) {
                    conn.complete(null);
                }
            }, "silent-server-accept");
            acceptor.setDaemon(true);
            acceptor.start();
            UnavailableException e = assertThrows(UnavailableException.class, () -> SynodClient.builder()
                    .servers("127.0.0.1:" + s.getLocalPort()).connectTimeout(Duration.ofMillis(800)).build());
            assertTrue(e.getMessage().contains("within 800 ms"), e.getMessage());
            // The kernel completed the connection; the accepting thread may run only now on a loaded machine.
            Socket c = conn.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(1, accepted.get(), "the client did connect");
            if (c != null) {
                c.close();
            }
        }
    }
}
