package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientReply;
import io.synod.protocol.KvResult;
import io.synod.server.client.NodeClient;
import io.synod.server.config.ServerConfig;
import io.synod.server.node.GroupNodes;
import io.synod.server.node.LocalCluster;
import io.synod.server.node.SynodNode;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Groups of 3 replicas on 4 nodes, in process (docs/membership.md, "Placement"): each group's replicas vote exactly on
 * the nodes the recorded placement names, the fourth node's replica is a spare (no member, never elected, rules M2 and
 * M3 with the election naming voters only), every group serves, and keeps serving with one of its nodes down. A node
 * whose {@code replicas} differs from the record, and coded groups on fewer nodes, are refused with one line
 * (quorum-lease groups on fewer nodes: {@code PlacedQuorumLeaseClusterTest} in the integration tests).
 */
class PlacementClusterTest {
    private static final int NODES = 4;
    private static final int GROUPS = 4;

    @TempDir
    Path dir;

    static double gauge(SynodNode node, String name, int group) {
        return node.registry().get(name).tag("group", Integer.toString(group)).gauge().value();
    }

    /** Waits up to 30 s for what the nodes' gauges show (they follow each node's own applied membership). */
    private static void awaitGauges(BooleanSupplier shown, String what) throws InterruptedException {
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); !shown.getAsBoolean(); Thread.sleep(20)) {
            assertTrue(System.nanoTime() - deadline < 0, "not shown within 30 s: " + what);
        }
    }

    @Test
    @Timeout(240)
    void groupsOfThreeOnFourNodesVoteWherePlacedAndServe() throws Exception {
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, -1, -1,
                Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1");
        try (TestingServer zk = new TestingServer(spec, true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, NODES, GROUPS,
                        "placed", Map.of("zookeeper.session.timeout.ms", "3000", "replicas", "3"))) {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "a leader of every group, spread");
            // Each group votes on three nodes, each node votes in three groups (4 x 3 / 4), the leader among them.
            List<List<Integer>> placed = new ArrayList<>();
            int[] perNode = new int[NODES];
            for (int g = 0; g < GROUPS; g++) {
                List<Integer> voters = new ArrayList<>();
                for (int n = 0; n < NODES; n++) {
                    assertEquals(3.0, gauge(cluster.node(n), "synod.group.voters", g), "three voters");
                    if (gauge(cluster.node(n), "synod.group.voter", g) == 1.0) {
                        voters.add(n);
                        perNode[n]++;
                    }
                }
                assertEquals(3, voters.size(), "group " + g + " votes on " + voters);
                assertTrue(voters.contains(cluster.leaderOf(g)), "group " + g + " is led by one of " + voters);
                placed.add(voters);
            }
            assertArrayEquals(new int[] {3, 3, 3, 3}, perNode, "replicas per node");
            // synod admin status: each group's voters on its placed nodes, then replicas and leaderships per node.
            String status = admin(cluster, "status");
            for (int n = 0; n < NODES; n++) {
                assertTrue(status.contains("node " + n + ": 3 replicas, leads "), status);
            }
            for (int g = 0; g < GROUPS; g++) {
                GroupNodes nodes = GroupNodes.find(status.substring(status.indexOf("group " + g + ": leader"))).orElseThrow();
                assertEquals(placed.get(g), nodes.voters(), status);
            }
            try (NodeClient client = cluster.client(31, 2_000)) {
                for (int i = 0; i < 40; i++) {
                    assertEquals(ClientReply.Status.OK, client.put("k" + i, bytes("v" + i), 30_000).status(), "k" + i);
                }
                // Move group 0's replica away from its leader onto the node that does not host it (rules M4-M6: a
                // learner, promoted once caught up, then the leader's own id removed).
                int from = cluster.leaderOf(0);
                int to = 0;
                while (placed.get(0).contains(to)) {
                    to++;
                }
                String[] move = RejoinClusterTest.admin(cluster, "move-replica", "--group", "0", "--from",
                        Integer.toString(from), "--to", Integer.toString(to));
                assertEquals("0", move[0], move[1] + move[2]);
                assertTrue(move[1].contains("done: group 0: nodes: leader"), move[1]);
                // "done" is the leader's word: the other nodes apply the last step when its commit reaches them.
                SynodNode target = cluster.node(to);
                SynodNode source = cluster.node(from);
                awaitGauges(() -> gauge(target, "synod.group.voter", 0) == 1.0
                        && gauge(source, "synod.group.voter", 0) == 0.0
                        && gauge(target, "synod.group.voters", 0) == 3.0,
                        "node " + to + " votes in group 0 of three voters, node " + from + " left it");
                String[] again = RejoinClusterTest.admin(cluster, "move-replica", "--group", "0", "--from",
                        Integer.toString(from), "--to", Integer.toString(to));
                assertEquals("0", again[0], "repeating a move is safe: " + again[1] + again[2]);
                String[] hosted = RejoinClusterTest.admin(cluster, "move-replica", "--group", "0", "--from", Integer.toString(to),
                        "--to", Integer.toString(placed.get(0).stream().filter(n -> n != from).findFirst().orElseThrow()));
                assertEquals("1", hosted[0]);
                assertTrue(hosted[2].contains("already hosts a replica of group 0"), hosted[2]);
                // Back onto the node it left, whose id in group 0 was removed (M7): the leader gives that node a new
                // id, which it takes at its next start with an empty replica of the group; the move then completes.
                String[] back = RejoinClusterTest.admin(cluster, "move-replica", "--group", "0", "--from", Integer.toString(to),
                        "--to", Integer.toString(from), "--wait-ms", "0");
                assertEquals("1", back[0], "recorded, not done before the restart: " + back[1] + back[2]);
                assertTrue(back[1].contains("so it takes new id " + (from + NODES)) && back[1].contains("restart node "
                        + from), back[1]);
                cluster.stop(from);
                cluster.start(from);
                String[] backDone = RejoinClusterTest.admin(cluster, "move-replica", "--group", "0", "--from",
                        Integer.toString(to), "--to", Integer.toString(from));
                assertEquals("0", backDone[0], backDone[1] + backDone[2]);
                SynodNode restarted = cluster.node(from);
                awaitGauges(() -> gauge(restarted, "synod.group.voter", 0) == 1.0
                        && gauge(restarted, "synod.group.voters", 0) == 3.0,
                        "node " + from + " votes in group 0 of three voters again");
                String movedBack = admin(cluster, "status");
                String group0 = movedBack.substring(movedBack.indexOf("group 0: leader"));
                assertEquals(new TreeSet<>(placed.get(0)),
                        new TreeSet<>(GroupNodes.find(group0).orElseThrow().voters()), movedBack);
                assertTrue(group0.contains((from + NODES) + " (node " + from + ", moved back in place of replica " + from
                        + ", applied"), "a new id, named by the one it replaced: " + movedBack);
                for (int n = 0; n < NODES; n++) {
                    assertTrue(movedBack.contains("node " + n + ": 3 replicas"), movedBack);
                }
                for (int i = 0; i < 40; i++) {
                    NodeClient.Result r = client.get("k" + i, 60_000);
                    assertArrayEquals(bytes("v" + i), ((KvResult.Value) KvResult.decode(r.result())).value(), "k" + i);
                }
                // Remove the node that led group 0 (it led at least one group): each of its replicas moves to the one
                // node that does not host that group, one group at a time, until it hosts nothing.
                // Group 0's only target is node `to`, whose id in it was removed: the command waits for its restart.
                String[] waits = RejoinClusterTest.admin(cluster, "remove-node", Integer.toString(from), "--wait-ms",
                        "500");
                assertEquals("1", waits[0], waits[1] + waits[2]);
                assertTrue(waits[1].contains("restart node " + to), waits[1]);
                cluster.stop(to);
                cluster.start(to);
                String[] removed = RejoinClusterTest.admin(cluster, "remove-node", Integer.toString(from));
                assertEquals("0", removed[0], removed[1] + removed[2]);
                assertTrue(removed[1].contains("node " + from + " hosts no replica of the " + GROUPS + " groups"),
                        removed[1]);
                // The node set in ZooKeeper changed before remove-node returned; the answering node's cached placement
                // follows through its watch: wait for it, then judge everything on that one observation.
                String emptied = admin(cluster, "status");
                long until = System.nanoTime() + 30_000_000_000L;
                while (!emptied.contains("node " + from + ": removed from the node set") && System.nanoTime() < until) {
                    Thread.sleep(100);
                    emptied = admin(cluster, "status");
                }
                for (int g = 0; g < GROUPS; g++) {
                    GroupNodes nodes = GroupNodes.find(emptied.substring(emptied.indexOf("group " + g + ": leader")))
                            .orElseThrow();
                    assertTrue(nodes.voters().size() == 3 && !nodes.voters().contains(from), emptied);
                }
                for (int n = 0; n < NODES; n++) {
                    if (n == from) {
                        // The removed replicas need not learn of their own removal (the leader stops sending them
                        // the log once it commits): only the others' view counts, and the placement's node set.
                        assertTrue(emptied.contains("node " + n + ": removed from the node set"), emptied);
                        assertFalse(emptied.contains("node " + n + ": 0 replicas"), emptied);
                        continue;
                    }
                    assertTrue(emptied.contains("node " + n + ": 4 replicas"), emptied);
                    for (int g = 0; g < GROUPS; g++) {
                        assertEquals(1.0, gauge(cluster.node(n), "synod.group.voter", g), "node " + n + " in group " + g);
                    }
                }
                assertTrue(removed[1].contains("node " + from + " is removed from the node set"), removed[1]);
                String[] again2 = RejoinClusterTest.admin(cluster, "remove-node", Integer.toString(from));
                assertEquals("0", again2[0], "repeating remove-node is safe: " + again2[1] + again2[2]);
                // The emptied node left the node set: 12 replicas on the 3 nodes left are balanced, nothing to fill.
                String[] rebalanced = RejoinClusterTest.admin(cluster, "rebalance");
                assertEquals("0", rebalanced[0], rebalanced[1] + rebalanced[2]);
                assertTrue(rebalanced[1].contains("balanced: replicas per node differ by at most one (0 moves done)"),
                        rebalanced[1]);
                String[] back2 = RejoinClusterTest.admin(cluster, "move-replica", "--group", "1", "--from",
                        Integer.toString(to), "--to", Integer.toString(from));
                assertEquals("1", back2[0]);
                assertTrue(back2[2].contains("node " + from + " was removed from the cluster's node set"), back2[2]);
                for (int i = 0; i < 40; i++) {
                    NodeClient.Result r = client.get("k" + i, 60_000);
                    assertEquals(ClientReply.Status.OK, r.status(), "k" + i);
                    assertArrayEquals(bytes("v" + i), ((KvResult.Value) KvResult.decode(r.result())).value(), "k" + i);
                }
                cluster.stop(1); // every group keeps a majority of its three voters
                for (int i = 0; i < 40; i++) {
                    NodeClient.Result r = client.get("k" + i, 60_000);
                    assertEquals(ClientReply.Status.OK, r.status(), "k" + i);
                    assertArrayEquals(bytes("v" + i), ((KvResult.Value) KvResult.decode(r.result())).value(), "k" + i);
                    assertEquals(ClientReply.Status.OK, client.put("k" + i, bytes("w" + i), 60_000).status(), "k" + i);
                }
            }
            // Node 1 with another replica count is refused at start, naming both.
            Path file = dir.resolve("node-1-other.properties");
            Files.writeString(file, cluster.config(1).toProperties());
            ServerConfig other = ServerConfig.load(file, List.of("replicas=2",
                    "zookeeper.connect=127.0.0.1:" + zk.getPort())); // node 1's relay to ZooKeeper is cut
            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> new SynodNode(other).start());
            assertTrue(refused.getMessage().contains("placed " + GROUPS + " groups of 3 replicas on 4 nodes")
                    && refused.getMessage().contains("says " + GROUPS + " groups of 2"), refused.getMessage());
        }
    }

    @Test
    @Timeout(120)
    void codedGroupsOnFewerNodesAreRefused() throws Exception {
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, -1, -1,
                Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1");
        try (TestingServer zk = new TestingServer(spec, true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 5, 2,
                        "placedc", Map.of("coding", "5,1,3", "replicas", "3"))) {
            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> cluster.start(0));
            assertTrue(refused.getMessage().contains("refused for RS-Paxos coded groups"), refused.getMessage());
        }
    }

    /** {@code synod admin --connect SERVERS --certs CERTS ARGS}: its output; fails unless it exits 0. */
    static String admin(LocalCluster cluster, String... args) throws Exception {
        String[] r = RejoinClusterTest.admin(cluster, args);
        assertEquals("0", r[0], r[1] + "\n" + r[2]);
        return r[1];
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
