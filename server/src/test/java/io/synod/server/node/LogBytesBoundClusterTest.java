package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvResult;
import io.synod.server.client.NodeClient;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code snapshot.every.bytes} and {@code log.retain.bytes} reach every group of real nodes (docs/server.md, "The log
 * between snapshots is held in memory"): 48 puts of 32 KiB, far below the 10,000-slot bound, make every replica
 * snapshot by bytes, and the values read back after the leader is gone. Without the byte keys wired through, no
 * node would snapshot within this run.
 */
class LogBytesBoundClusterTest {
    private static final int PUTS = 48;
    private static final int VALUE = 32 * 1024;

    @TempDir
    Path dir;

    private static byte[] value(int i) {
        byte[] v = new byte[VALUE];
        Arrays.fill(v, (byte) i);
        return v;
    }

    private static long snapshotSlot(LocalCluster cluster, int node) {
        ClientFrame.StatusReport report = cluster.node(node).statusReport(0);
        return report.groups().get(0).snapshotSlot();
    }

    @Test
    @Timeout(180)
    void everyReplicaSnapshotsByBytesLongBeforeTheSlotBound() throws Exception {
        try (TestingServer zk = new TestingServer(true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, 1, "logbytes",
                        Map.of("zookeeper.session.timeout.ms", "4000", "metrics.port", "-1", "insecure", "true",
                                "snapshot.every.bytes", "262144", "log.retain.bytes", "65536"))) {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "the group gets a leader");
            try (NodeClient client = cluster.client(7, 30_000)) {
                for (int i = 0; i < PUTS; i++) {
                    assertEquals(ClientReply.Status.OK, client.put("k" + (i % 8), value(i), 30_000).status());
                }
                // 48 x 32 KiB is 1.5 MiB: about six snapshots' worth at 256 KiB each. Followers apply a little later.
                long deadline = System.nanoTime() + 60_000_000_000L;
                for (int node = 0; node < cluster.size(); node++) {
                    while (snapshotSlot(cluster, node) == 0 && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                    long slot = snapshotSlot(cluster, node);
                    assertTrue(slot > 0, "node " + node + " snapshotted by bytes (snapshot slot " + slot + ")");
                }
                cluster.crash(cluster.leaderOf(0));
                for (int k = 0; k < 8; k++) {
                    NodeClient.Result r = client.get("k" + k, 60_000);
                    assertEquals(ClientReply.Status.OK, r.status());
                    KvResult.Value v = (KvResult.Value) KvResult.decode(r.result());
                    assertArrayEquals(value(PUTS - 8 + k), v.value(), "the last value of k" + k);
                }
            }
        }
    }
}
