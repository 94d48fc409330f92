package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client cut from the leader of its group while the servers are not (the nemesis' {@code client-cut}): the
 * SDK reaches every server through a relay and the leader's relay goes silent; the leader keeps leading.
 * The followers would send the client back to that leader; with server-side forwarding a follower the
 * client reaches sends its writes to the leader over the peer connection and relays the answers (a
 * follower proxies to its leader, as in etcd). Without forwarding every write times out: the leader is the
 * only node that can commit, and the client cannot reach it.
 */
@Timeout(240)
class ClientForwardingTest {
    private Path dir;
    private TestingServer zk;
    private LocalCluster cluster;
    private final List<FreezableRelay> relays = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        dir = Files.createTempDirectory("synod-forward");
        zk = new TestingServer(true);
        cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, 1, "forward",
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

    @Test
    void writesOfAClientThatReachesOnlyFollowersCommitThroughThem() throws Exception {
        List<InetSocketAddress> servers = relays.stream().map(FreezableRelay::address).toList();
        try (SynodClient client = SynodClient.builder().servers(servers).tls(cluster.clientTls())
                .timeout(Duration.ofSeconds(30)).attemptTimeout(Duration.ofSeconds(1)).build()) {
            client.put("k", "before".getBytes(StandardCharsets.UTF_8)).join();
            int leader = cluster.leaderOf(0);
            relays.get(leader).freeze(); // the client's link to the leader goes silent; peers and ZooKeeper are fine
            long start = System.nanoTime();
            int writes = 20;
            for (int i = 0; i < writes; i++) {
                client.put("k", ("v" + i).getBytes(StandardCharsets.UTF_8)).join();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("%d writes committed in %.1f s with the client cut from the leader (node %d)%n", writes,
                    seconds, leader);
            assertEquals(leader, cluster.leaderOf(0), "the leader kept its group: nobody else could have committed");
            long forwarded = 0;
            for (int node = 0; node < cluster.size(); node++) {
                forwarded += node == leader ? 0 : cluster.node(node).forwardedCommands();
            }
            assertTrue(forwarded >= writes, "the followers forwarded the writes (" + forwarded + ")");
            assertEquals("v" + (writes - 1), client.get("k").join().valueUtf8(), "read through a follower too");
        }
    }
}
