package io.synod.bench.locks;

import io.synod.bench.report.LatencySummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Synod side of the lock experiments on real processes (3 servers + ZooKeeper on 127.0.0.1): all eight locks
 * through {@code SynodLocks} under contention (every request served, mutual exclusion, increasing tokens); writes through the
 * client delay proxies pay the client RTT, and a server RTT set through {@code peer.delay.ms} adds one server round
 * trip to every commit. Only lower bounds are asserted (an injected delay can make a write slower, never faster than
 * the injected time); the machine's load can only add to them.
 */
class SynodLockClusterTest {


    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void everyLockWorksAndClientAndServerRttsReachEveryWrite(@TempDir Path dir) throws Exception {
        Path base = dir.resolve("synod");
        StringWriter log = new StringWriter();
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try (SynodLockCluster cluster = SynodLockCluster.start(base, false, 3, SynodLockSupport.factory(), 7,
                new PrintWriter(log, true))) {
            assertEquals(3, cluster.clients().size());
            LatencySummary none = cluster.writeLatency("/t/none", 5);
            assertEquals(5, none.count());

            // The eight locks of the experiments through SynodLocks: three clients contending, every request served,
            // no two holders at once, fencing tokens increasing.
            for (LockPrimitive primitive : LockPrimitive.values()) {
                LockWorkloadSpec spec = new LockWorkloadSpec(primitive, 6, TimeUnit.MILLISECONDS.toNanos(10),
                        TimeUnit.MILLISECONDS.toNanos(5), 11, Duration.ofSeconds(60), Duration.ofSeconds(120));
                String path = "/t/locks/" + primitive.cliName();
                cluster.prepareLockPath(path);
                LockRunResult r = new LockWorkload(spec, cluster.clientCount(), path, cluster.locks(), timer).run();
                assertEquals(6, r.completed(), primitive + ": " + r.firstError());
                assertEquals(0, r.exclusionViolations(), primitive.label());
                assertEquals(0, r.tokenOrderViolations(), primitive.label());
            }

            cluster.setRtts(40, 0);
            LatencySummary client = cluster.writeLatency("/t/client", 5);
            assertTrue(client.minMillis() >= 40, "a put through a 40 ms client RTT took " + client.minMillis() + " ms");

            cluster.setRtts(40, 60); // a fresh cluster with peer.delay.ms=30 on every node
            assertTrue(log.toString().contains("peer.delay.ms=30"), log.toString());
            LatencySummary both = cluster.writeLatency("/t/both", 5);
            assertTrue(both.minMillis() >= 100, "client RTT 40 + server RTT 60, but a put took " + both.minMillis() + " ms");

            assertThrows(IllegalArgumentException.class, () -> cluster.setRtts(0, 25), "odd server RTTs are refused");
        } finally {
            timer.shutdownNow();
        }
        assertFalse(Files.exists(base), "the cluster's files are deleted at close");
    }
}
