package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.server.node.LocalCluster;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;

/**
 * A real ZooKeeper server (Curator's TestingServer) and a {@link LocalCluster} of Synod nodes on
 * 127.0.0.1 in a temporary directory, every group with a leader once {@link #start} returns; {@link
 * #close} stops both and deletes the directory. The harness every test of this module shares.
 */
final class RealCluster implements AutoCloseable {
    final Path dir;
    final TestingServer zk;
    final LocalCluster cluster;

    private RealCluster(Path dir, TestingServer zk, LocalCluster cluster) {
        this.dir = dir;
        this.zk = zk;
        this.cluster = cluster;
    }

    /** Starts ZooKeeper and cluster {@code name} with the server settings {@code extra}; waits for every group's leader. */
    static RealCluster start(String name, int nodes, int groups, Map<String, String> extra) throws Exception {
        Path dir = Files.createTempDirectory("synod-" + name);
        TestingServer zk = null;
        LocalCluster cluster = null;
        try {
            zk = new TestingServer(true);
            cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, nodes, groups, name, extra);
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "every group gets a leader");
            return new RealCluster(dir, zk, cluster);
        } catch (Exception | AssertionError e) {
            close(dir, zk, cluster);
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        close(dir, zk, cluster);
    }

    private static void close(Path dir, TestingServer zk, LocalCluster cluster) throws IOException {
        if (cluster != null) {
            cluster.close();
        }
        if (zk != null) {
            zk.close();
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
