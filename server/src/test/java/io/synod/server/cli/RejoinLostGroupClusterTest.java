package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.server.client.NodeClient;
import io.synod.server.node.LocalCluster;
import io.synod.server.node.NodeIdentity;
import io.synod.server.node.SynodNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partly lost data directory (docs/membership.md, "A partly lost data directory"; rule M7): node 2 keeps its
 * {@code node.identity} but loses {@code group-1/} (its promise, snapshots and RocksDB; its accepted entries stay in
 * the shared node log). At start the loss is detected, group 1 alone takes a new replica id and re-joins (learner,
 * caught up, voter) while group 0 keeps its replica and the node its incarnation; nothing acknowledged is lost. A
 * group directory that is no clean loss — the pre-loss copy of the replaced replica, or another node's — is refused
 * with one line.
 */
class RejoinLostGroupClusterTest {
    @TempDir
    Path dir;

    private static String refusal(LocalCluster cluster, int node, String... words) {
        Exception e = assertThrows(Exception.class, () -> cluster.start(node), "node " + node + " must not start");
        cluster.stop(node);
        String m = e.getMessage();
        for (String w : words) {
            assertTrue(m.contains(w), "'" + w + "' in: " + m);
        }
        assertFalse(m.contains("\n"), "one line: " + m);
        return m;
    }

    @Test
    @Timeout(240)
    void aLostGroupDirectoryReJoinsThatGroupAloneUnderANewReplicaId() throws Exception {
        Map<String, byte[]> acknowledged = new LinkedHashMap<>();
        try (TestingServer zk = new TestingServer(RejoinClusterTest.ZK, true);
                LocalCluster cluster = RejoinClusterTest.started(zk, dir, 3, "rejoin-lost")) {
            Path own = dir.resolve("node-2");
            Path lostDir = own.resolve("group-1");
            Path backup = dir.resolve("node-2-group-1.backup");
            try (NodeClient client = cluster.client(31, 2_000)) {
                RejoinClusterTest.put(client, acknowledged, 0, 60, 16);
                cluster.stop(2);
                NodeIdentityClusterTest.copyTree(lostDir, backup);
                NodeIdentityClusterTest.deleteTree(lostDir);
                RejoinClusterTest.put(client, acknowledged, 60, 120, 16); // the lost group must learn these
            }
            UUID incarnation = NodeIdentity.read(own).orElseThrow().incarnation();
            SynodNode again = cluster.start(2);
            assertEquals(incarnation, NodeIdentity.read(own).orElseThrow().incarnation(), "the node keeps its incarnation");
            assertEquals(2, RejoinClusterTest.gauge(again, "synod.group.replica.id", 0), "group 0 keeps replica 2");
            assertEquals(5, RejoinClusterTest.gauge(again, "synod.group.replica.id", 1), "group 1 re-joins as 2 + 3");
            RejoinClusterTest.awaitVoter(again, 3, 0, 1);
            // The copy of group-1/ from before the loss holds replica 2's old promises: refused.
            cluster.stop(2);
            Path rejoined = dir.resolve("node-2-group-1.rejoined");
            Files.move(lostDir, rejoined);
            NodeIdentityClusterTest.copyTree(backup, lostDir);
            refusal(cluster, 2, "holds the state of replica 2 of group 1", "this node runs replica 5 there",
                    "Remove " + lostDir);
            // Node 1's group-0/ in node 2's place (node 1 stopped for a consistent copy): refused.
            NodeIdentityClusterTest.deleteTree(lostDir);
            Files.move(rejoined, lostDir);
            Path group0 = own.resolve("group-0");
            Path saved0 = dir.resolve("node-2-group-0.saved");
            Files.move(group0, saved0);
            cluster.stop(1);
            NodeIdentityClusterTest.copyTree(dir.resolve("node-1").resolve("group-0"), group0);
            cluster.start(1);
            refusal(cluster, 2, "holds the state of group 0 of node 1", "copied from elsewhere");
            NodeIdentityClusterTest.deleteTree(group0);
            Files.move(saved0, group0);
            again = cluster.start(2);
            RejoinClusterTest.awaitVoter(again, 3, 0, 1);
            RejoinClusterTest.readAllAndWriteWithoutNode0(cluster, acknowledged);
        }
    }
}
