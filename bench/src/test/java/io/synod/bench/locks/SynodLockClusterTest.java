package io.synod.bench.locks;

import io.synod.bench.report.LatencySummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Synod side of the lock experiments on real processes (3 servers + ZooKeeper on 127.0.0.1): writes through the
 * client delay proxies pay the client RTT, and a server RTT set through {@code peer.delay.ms} adds one server round
 * trip to every commit. Only lower bounds are asserted (an injected delay can make a write slower, never faster than
 * the injected time); the machine's load can only add to them.
 */
class SynodLockClusterTest {

    private static final SynodLockFactory NO_LOCKS = (primitive, client, lockPath) -> {
        throw new AssertionError("no lock is made in this test");
    };

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void clientAndServerRttsReachEveryWrite(@TempDir Path dir) throws Exception {
        Path base = dir.resolve("synod");
        StringWriter log = new StringWriter();
        try (SynodLockCluster cluster = SynodLockCluster.start(base, false, 2, NO_LOCKS, 7, new PrintWriter(log, true))) {
            assertEquals(2, cluster.clients().size());
            LatencySummary none = cluster.writeLatency("/t/none", 5);
            assertEquals(5, none.count());

            cluster.setRtts(40, 0);
            LatencySummary client = cluster.writeLatency("/t/client", 5);
            assertTrue(client.minMillis() >= 40, "a put through a 40 ms client RTT took " + client.minMillis() + " ms");

            cluster.setRtts(40, 60); // a fresh cluster with peer.delay.ms=30 on every node
            assertTrue(log.toString().contains("peer.delay.ms=30"), log.toString());
            LatencySummary both = cluster.writeLatency("/t/both", 5);
            assertTrue(both.minMillis() >= 100, "client RTT 40 + server RTT 60, but a put took " + both.minMillis() + " ms");

            assertThrows(IllegalArgumentException.class, () -> cluster.setRtts(0, 25), "odd server RTTs are refused");
        }
        assertFalse(Files.exists(base), "the cluster's files are deleted at close");
    }
}
