package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientReply;
import io.synod.protocol.KvResult;
import io.synod.server.client.NodeClient;
import io.synod.server.group.GroupWorkers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class LocalClusterTest {
    static String scrape(java.net.InetSocketAddress address) throws Exception {
        java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + address.getPort() + "/metrics"))
                        .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        return r.body();
    }

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void threeNodesServeWritesAndReadsAndSurviveLeaderLoss() throws Exception {
        try (TestingServer zk = new TestingServer(true);
                LocalCluster cluster = new LocalCluster(new java.net.InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, 2, "t1",
                        Map.of("zookeeper.session.timeout.ms", "3000", "metrics.port", "0"))) {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "every group gets a leader");
            // Three nodes on one host, no group.workers given: each gets its share of the cores.
            assertEquals(GroupWorkers.coLocatedCount(3), cluster.config(0).groupWorkers());
            try (NodeClient client = cluster.client(7, 2_000)) {
                for (int i = 0; i < 20; i++) {
                    NodeClient.Result r = client.put("k" + i, ("v" + i).getBytes(StandardCharsets.UTF_8), 30_000);
                    assertEquals(ClientReply.Status.OK, r.status());
                }
                int leader = cluster.leaderOf(0);
                String metrics = scrape(cluster.node(leader).metricsAddress());
                for (String name : new String[] {"synod_commit_latency_seconds_count{group=\"0\"}", "synod_fsync_latency_seconds",
                        "synod_batch_entries", "synod_leader_changes_total", "synod_log_bytes", "synod_apply_lag_slots",
                        "synod_peer_sent_bytes_total"}) {
                    assertTrue(metrics.contains(name), name + " in /metrics");
                }
                cluster.crash(leader);
                for (int i = 0; i < 20; i++) {
                    NodeClient.Result r = client.get("k" + i, 60_000);
                    assertEquals(ClientReply.Status.OK, r.status());
                    KvResult.Value v = (KvResult.Value) KvResult.decode(r.result());
                    assertArrayEquals(("v" + i).getBytes(StandardCharsets.UTF_8), v.value());
                }
            }
        }
    }
}
