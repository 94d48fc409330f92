package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.server.node.LocalCluster;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A leader that goes silent without closing its connections (a paused process, a half-open link): the
 * SDK reaches every server through a relay, the leader's relay freezes and the leader crashes behind it.
 * With the per-attempt timeout the next write goes to another server once the first attempt expires and
 * commits under the new leader; with it turned off the same write waits on the silent connection until
 * its own timeout (the control that shows the test can fail).
 *
 * <p>A client cut from the leader of its group while the servers are not (the nemesis' {@code client-cut}):
 * the leader's relay goes silent and the leader keeps leading. The followers would send the client back to
 * that leader; with server-side forwarding a follower the client reaches sends its writes to the leader over
 * the peer connection and relays the answers (a follower proxies to its leader, as in etcd). Without
 * forwarding every write times out: the leader is the only node that can commit, and the client cannot reach it
 * (measured with the server's forwarding turned off: the first write ends unknown at its 30 s deadline).
 */
@Timeout(240)
class SilentServerFailoverTest {
    private Path dir;
    private TestingServer zk;
    private LocalCluster cluster;
    private final List<FreezableRelay> relays = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        dir = Files.createTempDirectory("synod-silent");
        zk = new TestingServer(true);
        cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, 1, "silent",
                Map.of("zookeeper.session.timeout.ms", "3000", "metrics.port", "-1"));
        cluster.startAll();
        assertTrue(cluster.awaitLeaders(60_000), "the group gets a leader");
        Map<Integer, InetSocketAddress> addresses = cluster.clientAddresses();
        for (int node = 0; node < cluster.size(); node++) {
            relays.add(new FreezableRelay(addresses.get(node))); // relays.get(i) stands for node i
        }
    }

    @AfterEach
    void stop() throws Exception {
        relays.forEach(FreezableRelay::close);
        cluster.close();
        zk.close();
        try (var paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private SynodClient client(Duration attemptTimeout, Duration timeout) {
        List<InetSocketAddress> servers = relays.stream().map(FreezableRelay::address).toList();
        return SynodClient.builder().servers(servers).tls(cluster.clientTls()).timeout(timeout)
                .attemptTimeout(attemptTimeout).build();
    }

    /** Freezes the leader's relay (relays are in node order), then crashes the leader behind it. */
    private void silenceLeader() {
        int leader = cluster.leaderOf(0);
        relays.get(leader).freeze();
        cluster.crash(leader);
    }

    @Test
    void aWriteMovesOnFromASilentLeader() throws Exception {
        try (SynodClient client = client(Duration.ofSeconds(1), Duration.ofSeconds(60))) {
            client.put("k", "before".getBytes(StandardCharsets.UTF_8)).join();
            silenceLeader();
            long start = System.nanoTime();
            client.put("k", "after".getBytes(StandardCharsets.UTF_8)).join();
            System.out.printf("write committed %.1f s after the leader went silent (session timeout 3 s)%n",
                    (System.nanoTime() - start) / 1e9);
            assertEquals("after", client.get("k").join().valueUtf8());
        }
    }

    @Test
    void writesOfAClientThatReachesOnlyFollowersCommitThroughThem() throws Exception {
        try (SynodClient client = client(Duration.ofSeconds(1), Duration.ofSeconds(30))) {
            client.put("k", "before".getBytes(StandardCharsets.UTF_8)).join();
            int leader = cluster.leaderOf(0);
            relays.get(leader).freeze(); // the client's link to the leader goes silent; peers and ZooKeeper are fine
            long start = System.nanoTime();
            int writes = 20;
            for (int i = 0; i < writes; i++) {
                client.put("k", ("v" + i).getBytes(StandardCharsets.UTF_8)).join();
            }
            System.out.printf("%d writes committed in %.1f s with the client cut from the leader (node %d)%n", writes,
                    (System.nanoTime() - start) / 1e9, leader);
            assertEquals(leader, cluster.leaderOf(0), "the leader kept its group: nobody else could have committed");
            long forwarded = 0;
            for (int node = 0; node < cluster.size(); node++) {
                forwarded += node == leader ? 0 : cluster.node(node).forwardedCommands();
            }
            assertTrue(forwarded >= writes, "the followers forwarded the writes (" + forwarded + ")");
            assertEquals("v" + (writes - 1), client.get("k").join().valueUtf8(), "read through a follower too");
        }
    }

    @Test
    void withoutTheAttemptTimeoutTheWriteWaitsOnTheSilentLeader() throws Exception {
        try (SynodClient client = client(Duration.ZERO, Duration.ofSeconds(12))) {
            client.put("k", "before".getBytes(StandardCharsets.UTF_8)).join();
            silenceLeader();
            CompletionException e = assertThrows(CompletionException.class,
                    () -> client.put("k", "after".getBytes(StandardCharsets.UTF_8)).join());
            assertTrue(e.getCause() instanceof OutcomeUnknownException || e.getCause() instanceof SynodTimeoutException,
                    "timed out on the silent server: " + e.getCause());
        }
    }
}
