package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionCounter;
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
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node joins a running cluster, in process (docs/membership.md, "Adding a node"): three nodes run four groups of
 * three replicas; a fourth node started with the next id registers itself in ZooKeeper's placement and takes a replica
 * id in every group, a spare in each (no member, so nothing it answers counts: rules M2, M3); {@code synod admin
 * rebalance} moves replicas onto it one at a time (learner, caught up, promoted, the old replica removed: M4-M6) until
 * every node hosts three; every acknowledged write stays readable. A founding node restarted with a configuration that
 * lists only the founding nodes learns the new node's address from ZooKeeper and sends to it. A node whose id skips
 * one, and a configuration that names a joined node at another address, are refused with one line.
 */
class NodeJoinClusterTest {
    private static final int GROUPS = 4;

    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void aFourthNodeJoinsAndReplicasMoveOntoIt() throws Exception {
        try (TestingServer zk = new TestingServer(RejoinClusterTest.ZK, true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, GROUPS,
                        "joined", Map.of("zookeeper.session.timeout.ms", "3000", "replicas", "3"))) {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "a leader of every group, spread");
            try (NodeClient client = cluster.client(41, 2_000)) {
                for (int i = 0; i < 40; i++) {
                    assertEquals(ClientReply.Status.OK, client.put("k" + i, bytes("v" + i), 30_000).status(), "k" + i);
                }
            }
            cluster.addNode();
            String before = PlacementClusterTest.admin(cluster, "status");
            for (int g = 0; g < GROUPS; g++) {
                GroupNodes nodes = GroupNodes.find(before.substring(before.indexOf("group " + g + ": leader"))).orElseThrow();
                assertEquals(List.of(0, 1, 2), nodes.voters(), "node 3 joined as a spare: " + before);
            }
            String[] rebalance = RejoinClusterTest.admin(cluster, "rebalance");
            assertEquals("0", rebalance[0], rebalance[1] + rebalance[2]);
            assertTrue(rebalance[1].contains("balanced: replicas per node differ by at most one (3 moves done)"),
                    rebalance[1]);
            assertTrue(rebalance[1].contains("move 1: group ") && rebalance[1].contains("to node 3 (moves to do after it: 2)"),
                    rebalance[1]);
            String after = PlacementClusterTest.admin(cluster, "status");
            for (int n = 0; n < 4; n++) {
                assertTrue(after.contains("node " + n + ": 3 replicas"), after);
            }
            String[] again = RejoinClusterTest.admin(cluster, "rebalance");
            assertEquals("0", again[0], again[1] + again[2]);
            assertTrue(again[1].contains("(0 moves done)"), "repeating it moves nothing: " + again[1]);
            // Node 1 again, its configuration listing only the founding nodes: the placement gives it node 3's address.
            cluster.stop(1);
            SynodNode restarted = cluster.start(1);
            assertEquals(3, cluster.config(1).nodes().size());
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (messagesTo(restarted, 3) == 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(messagesTo(restarted, 3) > 0, "node 1 sends to node 3 without it in its configuration");
            try (NodeClient client = cluster.client(42, 2_000)) {
                for (int i = 0; i < 40; i++) {
                    NodeClient.Result r = client.get("k" + i, 60_000);
                    assertEquals(ClientReply.Status.OK, r.status(), "k" + i);
                    assertArrayEquals(bytes("v" + i), ((KvResult.Value) KvResult.decode(r.result())).value(), "k" + i);
                    assertEquals(ClientReply.Status.OK, client.put("k" + i, bytes("w" + i), 60_000).status(), "k" + i);
                }
            }
            // Refused at start, one line each: an id that skips one, and a joined node named at another address.
            String nodes = String.join(",", cluster.config(3).nodes().entrySet().stream()
                    .map(e -> e.getKey() + "@" + e.getValue()).toList());
            IllegalStateException gap = assertThrows(IllegalStateException.class, () -> new SynodNode(load(cluster, zk, 3,
                    "node.id=5", "nodes=" + nodes + ",4@127.0.0.1:1:2,5@127.0.0.1:3:4")).start());
            assertTrue(gap.getMessage().contains("a new node takes id 4"), gap.getMessage());
            IllegalStateException moved = assertThrows(IllegalStateException.class, () -> new SynodNode(load(cluster, zk, 2,
                    "nodes=" + nodes.substring(0, nodes.lastIndexOf(',')) + ",3@127.0.0.1:5:6")).start());
            assertTrue(moved.getMessage().contains("list node 3 at 127.0.0.1:5:6, but node 3 joined cluster 'joined' at "
                    + cluster.config(3).nodes().get(3)), moved.getMessage());
        }
    }

    /**
     * An RS-Paxos coded cluster takes a new node too (rule M9): four nodes coded 4,1,2 (threshold 64 B), a fifth joins
     * (its configuration without {@code coding}: it takes the cluster's from ZooKeeper) as a spare under id 4, past the
     * code length, and group 1's replica (the group of the keys "k...", the upper half of the key space) moves from
     * node 0 onto it, so node 4 gets full copies. With node 1 down every acknowledged coded value is read back and coded
     * values commit: X = 2 for the 4 voters, so F + X = 3 acceptances of the 3 voters left, node 4's among them.
     */
    @Test
    @Timeout(300)
    void aNodeJoinsACodedClusterAndAReplicaMovesOntoIt() throws Exception {
        try (TestingServer zk = new TestingServer(RejoinClusterTest.ZK, true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 4, 2,
                        "joined-coded", Map.of("zookeeper.session.timeout.ms", "3000", "coding", "4,1,2",
                                "coding.threshold.bytes", "64"))) {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "a leader of every group");
            Map<String, byte[]> acknowledged = new java.util.LinkedHashMap<>();
            try (NodeClient client = cluster.client(43, 2_000)) {
                RejoinClusterTest.put(client, acknowledged, 0, 40, 512);
            }
            cluster.addNode();
            String[] move = RejoinClusterTest.admin(cluster, "move-replica", "--group", "1", "--from", "0", "--to", "4");
            assertEquals("0", move[0], move[1] + move[2]);
            assertTrue(move[1].contains("done: group 1: nodes: leader"), move[1]);
            RejoinClusterTest.awaitVoter(cluster.node(4), 4, 1);
            try (NodeClient client = cluster.client(44, 2_000)) {
                RejoinClusterTest.put(client, acknowledged, 40, 60, 512);
            }
            cluster.stop(1);
            try (NodeClient client = cluster.client(45, 2_000)) {
                RejoinClusterTest.readAll(client, acknowledged);
                // Group 1 again: each coded write now needs node 4's acceptance.
                RejoinClusterTest.put(client, new java.util.LinkedHashMap<>(), 60, 70, 512);
            }
        }
    }

    /**
     * Node {@code id}'s configuration with {@code overrides}, reaching ZooKeeper directly (its relay may be cut) and
     * with a data directory of its own (a refused start must not depend on what is in the node's).
     */
    private ServerConfig load(LocalCluster cluster, TestingServer zk, int id, String... overrides) throws Exception {
        Path file = dir.resolve("node-" + id + "-refused.properties");
        Files.writeString(file, cluster.config(id).toProperties());
        List<String> all = new ArrayList<>(List.of(overrides));
        all.add("zookeeper.connect=127.0.0.1:" + zk.getPort());
        all.add("data.dir=" + dir.resolve("refused-" + id));
        return ServerConfig.load(file, all);
    }

    private static long messagesTo(SynodNode node, int peer) {
        FunctionCounter c = node.registry().find("synod.peer.messages").tag("peer", Integer.toString(peer))
                .functionCounter();
        return c == null ? 0 : (long) c.count();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
