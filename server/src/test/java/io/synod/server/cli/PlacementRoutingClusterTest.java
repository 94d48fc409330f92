package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.client.Consistency;
import io.synod.client.SynodClient;
import io.synod.client.SynodTimeoutException;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.server.client.NodeClient;
import io.synod.server.node.LocalCluster;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SDK routes by the placement (docs/membership.md, "Routing by the placement"): with groups of 3 replicas on 4
 * nodes every node is a spare of one group, and an SDK client that learned the placement from the servers sends
 * none of its writes, linearizable reads or stale reads to a spare, as every node's count of requests for groups it
 * does not host shows. The count can fail: a client that does not route by the placement (the protocol's minimal
 * client, as an older SDK) sent to a spare first is counted there, and still served (the spare names the leader); an
 * SDK that knows only a spare is told NOT_HOSTED and never reaches the group.
 */
class PlacementRoutingClusterTest {
    private static final int NODES = 4;
    private static final int GROUPS = 4;

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void theSdkSendsAGroupsRequestsOnlyToNodesHostingIt() throws Exception {
        try (TestingServer zk = new TestingServer(RejoinClusterTest.ZK, true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, NODES, GROUPS,
                        "routed", Map.of("zookeeper.session.timeout.ms", "3000", "replicas", "3"))) {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "a leader of every group");
            List<List<Integer>> spares = new ArrayList<>();
            for (int g = 0; g < GROUPS; g++) {
                List<Integer> spare = new ArrayList<>();
                for (int n = 0; n < NODES; n++) {
                    if (PlacementClusterTest.gauge(cluster.node(n), "synod.group.voter", g) == 0.0) {
                        spare.add(n);
                    }
                }
                assertEquals(1, spare.size(), "group " + g + " has one spare");
                spares.add(spare);
            }
            List<InetSocketAddress> all = new ArrayList<>(cluster.clientAddresses().values());
            List<List<String>> keysOf = new ArrayList<>();
            try (SynodClient client = SynodClient.builder().servers(all).tls(cluster.clientTls())
                    .timeout(Duration.ofSeconds(30)).build()) {
                for (int g = 0; g < GROUPS; g++) {
                    keysOf.add(new ArrayList<>());
                }
                for (int i = 0; i < 400 && keysOf.stream().anyMatch(k -> k.size() < 5); i++) {
                    String key = (char) ('!' + i * 7 % 90) + "r" + i; // first bytes spread over the groups' ranges
                    List<String> keys = keysOf.get(client.shardMap().groupFor(key.getBytes(StandardCharsets.UTF_8)));
                    if (keys.size() < 5) {
                        keys.add(key);
                    }
                }
                for (List<String> keys : keysOf) {
                    for (String key : keys) {
                        client.put(key, "v-" + key).get(30, TimeUnit.SECONDS);
                        assertEquals("v-" + key, client.get(key).get(30, TimeUnit.SECONDS).valueUtf8(), key);
                        client.get(key, Consistency.STALE).get(30, TimeUnit.SECONDS);
                    }
                }
            }
            assertEquals(0, notHosted(cluster), "no request of the SDK reached a node not hosting its group");

            // Control: the minimal client (no placement) sent to a spare first is counted there and still served.
            for (int g = 0; g < GROUPS; g++) {
                int spare = spares.get(g).get(0);
                Map<Integer, InetSocketAddress> spareFirst = new LinkedHashMap<>();
                spareFirst.put(spare, cluster.clientAddresses().get(spare));
                spareFirst.putAll(cluster.clientAddresses());
                long before = cluster.node(spare).notHostedRequests();
                try (NodeClient plain = new NodeClient(spareFirst, 100 + g, 5_000, 16 << 20, cluster.clientTls())) {
                    String key = keysOf.get(g).get(0);
                    assertEquals(ClientReply.Status.OK, plain.put(key, ("w-" + key).getBytes(StandardCharsets.UTF_8),
                            30_000).status(), key);
                }
                assertEquals(before + 1, cluster.node(spare).notHostedRequests(), "node " + spare + " counted it");
            }

            // An SDK that knows only a spare of group 0 is told NOT_HOSTED: the write never reaches the group.
            int spare = spares.get(0).get(0);
            long before = cluster.node(spare).notHostedRequests();
            try (SynodClient lost = SynodClient.builder().servers(List.of(cluster.clientAddresses().get(spare)))
                    .tls(cluster.clientTls()).timeout(Duration.ofSeconds(2)).build()) {
                CompletionException e = assertThrows(CompletionException.class,
                        () -> lost.put(keysOf.get(0).get(1), "x").join());
                assertTrue(e.getCause() instanceof SynodTimeoutException
                        && e.getCause().getMessage().contains("does not host group 0"), String.valueOf(e.getCause()));
            }
            assertTrue(cluster.node(spare).notHostedRequests() > before, "the spare refused it");

            // Admin requests are routed the same way (the flag, once the server's placement answer named the feature):
            // every group's status through the SDK that knows every node, and NOT_HOSTED from the spare to the one that
            // knows only the spare (without the flag its replica would answer NOT_LEADER, knowing no leader).
            try (SynodClient admin = SynodClient.builder().servers(all).tls(cluster.clientTls())
                    .timeout(Duration.ofSeconds(30)).build()) {
                for (int g = 0; g < GROUPS; g++) {
                    String status = admin.membership(g, ClientFrame.MEMBERSHIP_STATUS, -1).get(30, TimeUnit.SECONDS)
                            .membership();
                    assertTrue(status.startsWith("group " + g + ": leader"), status);
                }
            }
            try (SynodClient lost = SynodClient.builder().servers(List.of(cluster.clientAddresses().get(spare)))
                    .tls(cluster.clientTls()).timeout(Duration.ofSeconds(2)).build()) {
                CompletionException e = assertThrows(CompletionException.class,
                        () -> lost.membership(0, ClientFrame.MEMBERSHIP_STATUS, -1).join());
                assertTrue(e.getCause() instanceof SynodTimeoutException
                        && e.getCause().getMessage().contains("does not host group 0"), String.valueOf(e.getCause()));
            }
        }
    }

    private static long notHosted(LocalCluster cluster) {
        long total = 0;
        for (int n = 0; n < NODES; n++) {
            total += cluster.node(n).notHostedRequests();
        }
        return total;
    }
}
