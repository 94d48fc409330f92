package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.server.node.LocalCluster;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;

/**
 * The harness of the lease cluster tests: a real ZooKeeper (Curator's TestingServer) and a 3-node,
 * one-group {@link LocalCluster} on 127.0.0.1 in a temporary directory, started by {@link #start} and
 * torn down after each test.
 */
abstract class OneGroupClusterTest {
    Path dir;
    TestingServer zk;
    LocalCluster cluster;

    /** Starts ZooKeeper and cluster {@code name} with the server settings {@code extra}, and waits for a leader. */
    void start(String name, Map<String, String> extra) throws Exception {
        dir = Files.createTempDirectory("synod-" + name);
        zk = new TestingServer(true);
        cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, 1, name, extra);
        cluster.startAll();
        assertTrue(cluster.awaitLeaders(60_000), "the group gets a leader");
    }

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        if (zk != null) {
            zk.close();
        }
        if (dir != null) {
            try (var paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
