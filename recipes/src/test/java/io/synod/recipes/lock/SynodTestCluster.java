package io.synod.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.client.SynodClient;
import io.synod.server.node.LocalCluster;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.TestingServer;

/**
 * A real Synod cluster for the recipes' tests: {@code nodes} in-process servers (each with its RocksDB, peer and
 * client ports on 127.0.0.1) and a Curator {@link TestingServer} as their ZooKeeper; clients found through it.
 */
final class SynodTestCluster implements AutoCloseable {
    final Path dir;
    final TestingServer zk;
    final LocalCluster cluster;
    private final List<AutoCloseable> opened = new ArrayList<>();

    SynodTestCluster(int nodes, int groups) throws Exception {
        dir = Files.createTempDirectory("synod-locks-it");
        zk = new TestingServer(true);
        cluster = new LocalCluster(new InetSocketAddress(ZkTestSupport.HOST, zk.getPort()), dir, nodes, groups, "locks",
                Map.of("zookeeper.session.timeout.ms", "3000", "metrics.port", "-1"));
        cluster.startAll();
        assertTrue(cluster.awaitLeaders(60_000), "every group gets a leader");
    }

    /** A new SDK client (closed with the cluster). */
    synchronized SynodClient newClient() {
        SynodClient client = SynodClient.builder().zookeeper(zk.getConnectString()).cluster("locks")
                .timeout(Duration.ofSeconds(15)).tls(cluster.clientTls()).build();
        opened.add(client);
        return client;
    }

    /** A new backend with a session of its own, on a client of its own (closed with the cluster). */
    synchronized SynodLockBackend newBackend(Duration ttl) {
        SynodLockBackend backend = new SynodLockBackend(newClient(), ttl);
        opened.add(0, backend);
        return backend;
    }

    /** The node leading the session group (where sessions, lock keys and watches live). */
    int sessionGroupLeader() {
        return cluster.leaderOf(0);
    }

    /** Closes every client and backend made so far, keeping the cluster (a test that shares it, after itself). */
    synchronized void closeClients() {
        for (AutoCloseable c : opened) {
            try {
                c.close();
            } catch (Exception e) {
                // best effort
            }
        }
        opened.clear();
    }

    @Override
    public void close() throws Exception {
        closeClients();
        cluster.close();
        zk.close();
        ZkTestSupport.deleteTree(dir);
    }
}
