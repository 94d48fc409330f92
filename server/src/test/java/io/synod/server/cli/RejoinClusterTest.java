package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.leases.KeyAssignment;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvResult;
import io.synod.server.client.NodeClient;
import io.synod.server.node.LocalCluster;
import io.synod.server.node.NodeIdentity;
import io.synod.server.node.SynodNode;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A wiped node re-joins by itself, in process (docs/membership.md, "A wiped node re-joins"; rules M6 and M7): node 2's
 * directory is deleted while it is down, it starts again with no other command, takes a new incarnation and new
 * replica ids, and each group's leader removes its old id, adds the new one as a learner and promotes it once caught
 * up. Every acknowledged write is then readable from it alone, and the cluster commits with node 2 as a voter while
 * another node is down (so node 2's new replica really votes).
 */
class RejoinClusterTest {
    @TempDir
    Path dir;

    static double gauge(SynodNode node, String name, int group) {
        return node.registry().get(name).tag("group", Integer.toString(group)).gauge().value();
    }

    /** {@code synod admin --connect SERVERS --certs CERTS ARGS}: exit status, out, err. */
    static String[] admin(LocalCluster cluster, String... args) throws Exception {
        java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of("admin", "--connect",
                cluster.clientAddressList(), "--certs", cluster.dir().resolve("certs").toString()));
        all.addAll(java.util.List.of(args));
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        int code = SynodCli.execute(all.toArray(String[]::new), new java.io.PrintWriter(out, true),
                new java.io.PrintWriter(err, true));
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    static final InstanceSpec ZK = new InstanceSpec(null, -1, -1, -1, true, -1, -1, -1,
            Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1");

    /** Key i's value: {@code bytes} bytes (coded when at or above the coding threshold). */
    static byte[] value(int i, int bytes) {
        byte[] v = new byte[bytes];
        Arrays.fill(v, (byte) ('a' + i % 26));
        byte[] tag = ("v" + i).getBytes(StandardCharsets.UTF_8);
        System.arraycopy(tag, 0, v, 0, Math.min(tag.length, bytes));
        return v;
    }

    static void put(NodeClient client, Map<String, byte[]> acknowledged, int from, int to, int bytes) throws Exception {
        for (int i = from; i < to; i++) {
            byte[] v = value(i, bytes);
            assertEquals(ClientReply.Status.OK, client.put("k" + i, v, 30_000).status(), "k" + i);
            acknowledged.put("k" + i, v);
        }
    }

    /** Waits (bounded) until node's replica votes in each of {@code groups} with {@code voters} voters and no learner. */
    static void awaitVoter(SynodNode node, int voters, int... groups) throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        boolean voter = false;
        while (!voter && System.nanoTime() < deadline) {
            voter = true;
            for (int g : groups) {
                voter &= gauge(node, "synod.group.voter", g) == 1 && gauge(node, "synod.group.voters", g) == voters
                        && gauge(node, "synod.group.learners", g) == 0;
            }
            Thread.sleep(50);
        }
        assertTrue(voter, "node " + node.nodeId() + " votes again in groups " + Arrays.toString(groups) + " (voters "
                + voters + ", no learner left)");
    }

    /**
     * With node 0 down, every acknowledged write is readable (the others answer from their state) and a write commits,
     * which needs the re-joined replica's vote: with 3 nodes two of the voters are left, with 5 coded ones F + X = 4.
     */
    static void readAllAndWriteWithoutNode0(LocalCluster cluster, Map<String, byte[]> acknowledged) throws Exception {
        cluster.stop(0);
        try (NodeClient client = cluster.client(22, 2_000)) {
            readAll(client, acknowledged);
            assertEquals(ClientReply.Status.OK, client.put("after", new byte[] {1}, 60_000).status());
        }
    }

    /** Every acknowledged key reads back its value. */
    static void readAll(NodeClient client, Map<String, byte[]> acknowledged) throws Exception {
        for (Map.Entry<String, byte[]> e : acknowledged.entrySet()) {
            NodeClient.Result r = client.get(e.getKey(), 60_000);
            assertEquals(ClientReply.Status.OK, r.status(), e.getKey());
            assertArrayEquals(e.getValue(), ((KvResult.Value) KvResult.decode(r.result())).value(), e.getKey());
        }
    }

    /**
     * Writes, stops node {@code wiped}, deletes its data directory, writes more, starts it again and waits until it
     * votes in every group under its next replica id ({@code wiped} + nodes). Returns the node.
     */
    static SynodNode wipeAndRejoin(LocalCluster cluster, Path dir, int wiped, Map<String, byte[]> acknowledged, int bytes,
            UUID[] incarnations) throws Exception {
        return wipeAndRejoin(cluster, dir, wiped, acknowledged, bytes, incarnations, null);
    }

    /** As above, keeping a copy of the directory as it was before the wipe at {@code copy} (a stale backup), if not null. */
    static SynodNode wipeAndRejoin(LocalCluster cluster, Path dir, int wiped, Map<String, byte[]> acknowledged, int bytes,
            UUID[] incarnations, Path copy) throws Exception {
        int nodes = cluster.size();
        try (NodeClient client = cluster.client(21, 2_000)) {
            put(client, acknowledged, 0, 60, bytes);
            Path own = dir.resolve("node-" + wiped);
            incarnations[0] = NodeIdentity.read(own).orElseThrow().incarnation();
            cluster.stop(wiped);
            if (copy != null) {
                NodeIdentityClusterTest.copyTree(own, copy);
            }
            NodeIdentityClusterTest.deleteTree(own);
            put(client, acknowledged, 60, 120, bytes); // written while the node is down: it must learn them
        }
        SynodNode again = cluster.start(wiped);
        incarnations[1] = NodeIdentity.read(dir.resolve("node-" + wiped)).orElseThrow().incarnation();
        assertNotEquals(incarnations[0], incarnations[1], "a new incarnation");
        int[] all = new int[cluster.groups()];
        for (int g = 0; g < all.length; g++) {
            all[g] = g;
            assertEquals(wiped + nodes, gauge(again, "synod.group.replica.id", g), "the node's next replica id");
        }
        awaitVoter(again, nodes, all);
        return again;
    }

    /**
     * Only the re-joined node 2 is asked for {@code keys}: each is answered with its acknowledged value, from node 2's
     * own state once its lease is granted; if node 2 follows in a group, its follower lease-read counter must grow.
     */
    static void readAloneOnItsLease(LocalCluster cluster, SynodNode again, List<String> keys, Map<String, byte[]> acknowledged,
            int clientId) throws Exception {
        boolean follows = false;
        for (int g = 0; g < cluster.groups(); g++) {
            follows |= cluster.leaderOf(g) != 2;
        }
        long followerReads = again.readsByPath()[2];
        try (NodeClient local = new NodeClient(Map.of(2, cluster.clientAddresses().get(2)), clientId, 2_000, 16 << 20,
                cluster.clientTls())) {
            for (String key : keys) {
                NodeClient.Result r = local.get(key, 60_000);
                assertEquals(ClientReply.Status.OK, r.status(), key);
                assertArrayEquals(acknowledged.get(key), ((KvResult.Value) KvResult.decode(r.result())).value(), key);
            }
        }
        if (follows) {
            assertTrue(again.readsByPath()[2] > followerReads, "node 2 answered reads on its lease as a follower");
        }
    }

    /**
     * A started cluster of {@code nodes} nodes and 2 groups, snapshots every 20 slots keeping 5 (so the log is compacted
     * and a re-joined replica may need a checkpoint), with {@code settings} (key, value, ...) added; a leader of every group.
     */
    static LocalCluster started(TestingServer zk, Path dir, int nodes, String name, String... settings) throws Exception {
        Map<String, String> config = new LinkedHashMap<>(Map.of("zookeeper.session.timeout.ms", "3000",
                "snapshot.every.slots", "20", "log.retain.slots", "5"));
        for (int i = 0; i < settings.length; i += 2) {
            config.put(settings[i], settings[i + 1]);
        }
        LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, nodes, 2, name, config);
        try {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "a leader of every group");
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    @Test
    @Timeout(240)
    void aWipedNodeStartsAsANewIncarnationAndIsAVoterOfEveryGroupAgain() throws Exception {
        Map<String, byte[]> acknowledged = new LinkedHashMap<>();
        try (TestingServer zk = new TestingServer(ZK, true);
                LocalCluster cluster = started(zk, dir, 3, "rejoin")) {
            UUID[] incarnations = new UUID[2];
            wipeAndRejoin(cluster, dir, 2, acknowledged, 8, incarnations);
            UUID before = incarnations[0];
            UUID after = incarnations[1];
            // synod admin status: each group's leader names the ids, their nodes and incarnations, and progress.
            String[] status = admin(cluster, "status");
            assertEquals("0", status[0], status[2]);
            System.out.print("synod admin status after the re-join:\n" + status[1]);
            for (String want : new String[] {"group 0: leader replica", "group 1: leader replica",
                    "5 (node 2, incarnation " + after, "retired: 2 (node 2, incarnation " + before,
                    "0 (node 0, incarnation first"}) {
                assertTrue(status[1].contains(want), "'" + want + "' in:\n" + status[1]);
            }
            // A removed id never returns (rule M7): refused with the rule, exit 1.
            String[] reuse = admin(cluster, "add-learner", "--group", "0", "--replica", "2");
            assertEquals("1", reuse[0], reuse[1] + reuse[2]);
            assertTrue(reuse[2].contains("was removed before"), reuse[2]);
            readAllAndWriteWithoutNode0(cluster, acknowledged);
            // Leader hints name nodes (LeaderHints): with node 0 down the balancer gives node 2 one of the two groups,
            // led by replica 5, and node 1 names node 2 (a client knows nodes; it ignored the hint 5 before).
            assertTrue(cluster.awaitLeaders(60_000), "leaders spread over nodes 1 and 2");
            int led = -1;
            for (int g = 0; g < cluster.groups(); g++) {
                led = cluster.leaderOf(g) == 2 ? g : led;
            }
            assertTrue(led >= 0, "node 2 leads a group");
            int group = led;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (cluster.status(1, group).leaderHint() != 2 && System.nanoTime() < deadline) {
                Thread.sleep(20); // node 1 learns the new leader from its heartbeats
            }
            assertEquals(2, cluster.status(1, group).leaderHint(), "node 1 names the leader's node, not its replica id");
        }
    }

    /**
     * Quorum leases (rules QL1-QL4): the re-joined replica 5 holds leases again once it votes (QL1, the holders are the
     * lease configuration over the voters' ranks, so replica 5 takes rank 2, node 2's share before the wipe), and its
     * local lease reads answer the current values of every key it holds.
     */
    @Test
    @Timeout(240)
    void aWipedNodeOfAQuorumLeaseClusterReJoinsAndServesLocalLeaseReads() throws Exception {
        Map<String, byte[]> acknowledged = new LinkedHashMap<>();
        try (TestingServer zk = new TestingServer(ZK, true);
                LocalCluster cluster = started(zk, dir, 3, "rejoin-quorum", "lease", "quorum", "lease.delta.ms", "1000")) {
            SynodNode again = wipeAndRejoin(cluster, dir, 2, acknowledged, 8, new UUID[2]);
            long voters = (1L << 0) | (1L << 1) | (1L << 5);
            List<String> held = new ArrayList<>();
            for (String key : acknowledged.keySet()) {
                if ((KeyAssignment.HASHED_MAJORITY.holdersAmong(key, voters) & (1L << 5)) != 0) {
                    held.add(key);
                }
            }
            assertFalse(held.isEmpty(), "replica 5 holds some keys");
            readAloneOnItsLease(cluster, again, held, acknowledged, 23);
            readAllAndWriteWithoutNode0(cluster, acknowledged);
        }
    }

    /**
     * RS-Paxos coding 5,1,3 (rule M9): the code keeps its length 5 and node 2's new replica id 7 lies past it, so it gets
     * full copies. Node 2 is wiped while 120 coded values (512 B, threshold 64 B) are written around it; it re-joins
     * as replica 7 and votes in both groups (remove 2, add 7, promote 7: 4 voters in between, more than 2F). With node 0
     * down every acknowledged value is read back and a coded value commits, which takes F + X = 4 acceptances of the 4
     * voters left, replica 7's among them. The directory as it was before the wipe is then refused.
     */
    @Test
    @Timeout(300)
    void aWipedNodeOfACodedClusterReJoinsUnderAnIdPastTheCode() throws Exception {
        Map<String, byte[]> acknowledged = new LinkedHashMap<>();
        Path before = dir.resolve("node-2-before-wipe");
        try (TestingServer zk = new TestingServer(ZK, true);
                LocalCluster cluster = started(zk, dir, 5, "rejoin-coded", "coding", "5,1,3", "coding.threshold.bytes", "64")) {
            wipeAndRejoin(cluster, dir, 2, acknowledged, 512, new UUID[2], before);
            readAllAndWriteWithoutNode0(cluster, acknowledged);
            try (NodeClient client = cluster.client(26, 2_000)) {
                assertEquals(ClientReply.Status.OK, client.put("after-coded", value(7, 512), 60_000).status(),
                        "a coded write with node 0 down needs replica 7's acceptance");
            }
            cluster.stop(2);
            Path own = dir.resolve("node-2");
            NodeIdentityClusterTest.deleteTree(own);
            NodeIdentityClusterTest.copyTree(before, own);
            Exception e = assertThrows(Exception.class, () -> cluster.start(2), "the pre-wipe copy must not start");
            cluster.stop(2);
            assertTrue(e.getMessage().contains("refuses to start") && e.getMessage().contains("is a copy of another incarnation's state"),
                    e.getMessage());
            assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        }
    }

    /**
     * RS-Paxos coding 5,1,3 with a leader lease (rule M9 with LL1; simulated together with membership changes,
     * docs/membership.md, "Which modes"): node 2 is wiped while 120 coded values (1 KiB, threshold 512 B) are written
     * around it, re-joins as replica 7 past the code and votes in both groups; with node 0 down every acknowledged value
     * is read back and a coded value commits, which needs replica 7's acceptance (F + X = 4 of 4).
     */
    @ParameterizedTest
    @ValueSource(strings = {"leader", "leader-timer"})
    @Timeout(300)
    void aWipedNodeOfACodedClusterWithALeaseReJoins(String lease) throws Exception {
        Map<String, byte[]> acknowledged = new LinkedHashMap<>();
        try (TestingServer zk = new TestingServer(ZK, true);
                LocalCluster cluster = started(zk, dir, 5, "rejoin-coded-" + lease, "coding", "5,1,3",
                        "coding.threshold.bytes", "512", "lease", lease, "lease.delta.ms", "1000")) {
            wipeAndRejoin(cluster, dir, 2, acknowledged, 1024, new UUID[2]);
            readAllAndWriteWithoutNode0(cluster, acknowledged);
            try (NodeClient client = cluster.client(27, 2_000)) {
                assertEquals(ClientReply.Status.OK, client.put("after-coded", value(7, 1024), 60_000).status(),
                        "a coded write with node 0 down needs replica 7's acceptance");
            }
        }
    }

    /**
     * Coding with quorum leases is not simulated safe with membership changes (a stale read, docs/membership.md "Not
     * done"), so a wiped node of a coded cluster with {@code lease=quorum} is refused with one line naming both.
     */
    @Test
    @Timeout(120)
    void aWipedNodeOfACodedClusterWithQuorumLeasesIsRefusedNamingBoth() throws Exception {
        try (TestingServer zk = new TestingServer(ZK, true);
                LocalCluster cluster = started(zk, dir, 5, "rejoin-coded-quorum", "coding", "5,1,3", "coding.threshold.bytes",
                        "64", "lease", "quorum")) {
            cluster.stop(1);
            NodeIdentityClusterTest.deleteTree(dir.resolve("node-1"));
            Exception e = assertThrows(Exception.class, () -> cluster.start(1));
            cluster.stop(1);
            assertTrue(e.getMessage().contains("cannot re-join as a new incarnation: RS-Paxos coded groups with quorum "
                    + "leases (QUORUM) are not simulated safe with membership changes"), e.getMessage());
            assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        }
    }

    /**
     * Megastore leases (every voter holds every key: rule QL1 over {@code KeyAssignment.ALL}; a leaving replica's lease
     * is invalidated or lapses before its removal commits, QL2-QL3 after Megastore §4.4.1): node 2 re-joins as replica
     * 5, and, asked alone, answers every acknowledged key with its current value; as a follower, from its own state on
     * its lease (a key it has not applied yet is refused and the client retries it there).
     */
    @Test
    @Timeout(240)
    void aWipedNodeOfAMegastoreClusterReJoinsAndHoldsEveryKey() throws Exception {
        Map<String, byte[]> acknowledged = new LinkedHashMap<>();
        try (TestingServer zk = new TestingServer(ZK, true);
                LocalCluster cluster = started(zk, dir, 3, "rejoin-megastore", "lease", "megastore", "lease.delta.ms", "1000")) {
            SynodNode again = wipeAndRejoin(cluster, dir, 2, acknowledged, 8, new UUID[2]);
            readAloneOnItsLease(cluster, again, new ArrayList<>(acknowledged.keySet()), acknowledged, 24);
            readAllAndWriteWithoutNode0(cluster, acknowledged);
        }
    }

    /**
     * Timer leader leases (rule LL1) and quorum leases through the log (rule QL5) re-join too: node 2 votes again in
     * both groups under replica 5, and with node 0 down every acknowledged write is read back and a write commits.
     */
    @ParameterizedTest
    @ValueSource(strings = {"leader-timer", "quorum-auto"})
    @Timeout(240)
    void aWipedNodeReJoinsUnderTheOtherLeaseModes(String lease) throws Exception {
        Map<String, byte[]> acknowledged = new LinkedHashMap<>();
        try (TestingServer zk = new TestingServer(ZK, true);
                LocalCluster cluster = started(zk, dir, 3, "rejoin-" + lease, "lease", lease, "lease.delta.ms", "1000")) {
            wipeAndRejoin(cluster, dir, 2, acknowledged, 8, new UUID[2]);
            readAllAndWriteWithoutNode0(cluster, acknowledged);
        }
    }

    /**
     * Groups of 3 replicas placed on 4 nodes (docs/membership.md, "Placement"): a wiped node re-joins only the groups the
     * placement gives it; in the other group it stays a spare (its new id is not added), so that group keeps 3 voters.
     */
    @Test
    @Timeout(240)
    void aWipedNodeOfAPlacedClusterReJoinsOnlyTheGroupsItHosts() throws Exception {
        Map<String, byte[]> acknowledged = new LinkedHashMap<>();
        try (TestingServer zk = new TestingServer(ZK, true);
                LocalCluster cluster = started(zk, dir, 4, "rejoin-placed", "replicas", "3")) {
            int wiped = -1;
            int hosted = -1;
            for (int n = 0; n < 4 && wiped < 0; n++) { // 2 groups of 3 on 4 nodes: two nodes host one group each
                double in0 = gauge(cluster.node(n), "synod.group.voter", 0);
                double in1 = gauge(cluster.node(n), "synod.group.voter", 1);
                if (in0 + in1 == 1) {
                    wiped = n;
                    hosted = in0 == 1 ? 0 : 1;
                }
            }
            assertTrue(wiped >= 0, "a node that hosts one group of two");
            try (NodeClient client = cluster.client(25, 2_000)) {
                put(client, acknowledged, 0, 40, 8);
                cluster.stop(wiped);
                NodeIdentityClusterTest.deleteTree(dir.resolve("node-" + wiped));
                put(client, acknowledged, 40, 80, 8);
            }
            SynodNode again = cluster.start(wiped);
            awaitVoter(again, 3, hosted);
            int spare = 1 - hosted;
            // The leader balancer may be handing the group over right now (the restarted node changed the counts).
            long deadline = System.nanoTime() + 30_000_000_000L;
            int leader = cluster.leaderOf(spare);
            while (leader < 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
                leader = cluster.leaderOf(spare);
            }
            assertTrue(leader >= 0 && leader != wiped, "a leader of group " + spare + ": " + leader);
            SynodNode lead = cluster.node(leader);
            assertEquals(3, gauge(lead, "synod.group.voters", spare), "group " + spare + " keeps its three voters");
            assertEquals(0, gauge(lead, "synod.group.learners", spare), "and adds no learner for the spare");
            assertEquals(0, gauge(again, "synod.group.voter", spare), "the wiped node stays a spare of group " + spare);
        }
    }
}
