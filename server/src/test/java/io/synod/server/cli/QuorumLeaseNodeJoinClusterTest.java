package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.client.Consistency;
import io.synod.client.ListResult;
import io.synod.client.SynodClient;
import io.synod.core.check.CheckResult;
import io.synod.core.check.LinearizabilityChecker;
import io.synod.core.history.HistoryRecorder;
import io.synod.server.node.GroupNodes;
import io.synod.server.node.LocalCluster;
import io.synod.server.node.SynodNode;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A node joins a running cluster of quorum-lease groups (docs/membership.md, "Adding a node", rules QL1-QL4): three
 * nodes run four groups of three under {@code lease=quorum}, {@code quorum-auto} or {@code megastore}; a fourth node
 * joins as a spare of every group and {@code synod admin rebalance} moves three replicas onto it while one client
 * appends and SDK clients that prefer each node ({@code readFrom}) read, so lease reads are answered on the leaving
 * and the arriving replicas during the moves. Every read of the run is checked for linearizability (a leaving replica
 * that kept reading on a lease after its removal, or a new one reading before it holds a key, shows as a stale read),
 * the joined node answers reads under its leases once it votes, a node that no longer hosts a group answers none of
 * its reads locally any more, and every acknowledged append is read back through the log. The history is recorded by
 * one thread, so its order is real time; no assertion bounds a duration.
 */
class QuorumLeaseNodeJoinClusterTest {
    private static final int GROUPS = 4;

    @TempDir
    Path dir;

    /** This node's reads of {@code group} answered OK under its lease, as leader and as follower. */
    private static double leaseReads(SynodNode node, int group) {
        double out = 0;
        for (String role : List.of("leader", "follower")) {
            out += node.registry().get("synod.reads").tag("group", Integer.toString(group)).tag("path", "lease")
                    .tag("role", role).counter().count();
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"quorum", "quorum-auto", "megastore"})
    @Timeout(600)
    void replicasMoveOntoAJoinedNodeWhileLeaseReadsGoOn(String lease) throws Exception {
        String name = "joined-" + lease;
        Map<String, String> settings = new HashMap<>(Map.of("zookeeper.session.timeout.ms", "3000", "replicas", "3",
                "lease", lease, "lease.delta.ms", "2000", "lease.drift.ppm", "10000", "lease.guard.ms", "800",
                "lease.renew.ms", "400", "lease.grace.ms", "800"));
        if (lease.equals("quorum-auto")) {
            settings.put("lease.auto.period.ms", "500");
        }
        try (TestingServer zk = new TestingServer(RejoinClusterTest.ZK, true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, GROUPS,
                        name, settings)) {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "a leader of every group, spread");
            // Five keys of each group (the uniform shard map splits on the first byte, over the printable range).
            List<String> keys = new ArrayList<>();
            int[] perGroup = new int[GROUPS];
            for (int i = 0; keys.size() < 5 * GROUPS && i < 10_000; i++) {
                String key = (char) ('!' + i % 94) + "j" + i;
                int g = cluster.node(0).shardMap().groupFor(key.getBytes(StandardCharsets.UTF_8));
                if (perGroup[g] < 5) {
                    perGroup[g]++;
                    keys.add(key);
                }
            }
            assertEquals(5 * GROUPS, keys.size(), "five keys of every group");
            HistoryRecorder history = new HistoryRecorder();
            long origin = System.nanoTime();
            Map<String, Set<Long>> acknowledged = new HashMap<>();
            List<SynodClient> readers = new ArrayList<>();
            try (SynodClient writer = client(zk, cluster, name, -1)) {
                for (int n = 0; n < 3; n++) {
                    readers.add(client(zk, cluster, name, n));
                }
                cluster.addNode();
                readers.add(client(zk, cluster, name, 3)); // it learns node 3's address from ZooKeeper
                CompletableFuture<String[]> rebalance = CompletableFuture.supplyAsync(() -> {
                    try {
                        return RejoinClusterTest.admin(cluster, "rebalance");
                    } catch (Exception e) {
                        return new String[] {"exception", "", e.toString()};
                    }
                });
                // Appends and reads, one at a time, until the rebalance is done (at least 100 rounds, at most 3000).
                long value = 0;
                int round = 0;
                for (; round < 3000 && (round < 100 || !rebalance.isDone()); round++) {
                    String key = keys.get(round % keys.size());
                    value = step(history, origin, writer, readers.get(round % readers.size()), round % readers.size(),
                            key, value, acknowledged);
                }
                String[] moved = rebalance.get(300, TimeUnit.SECONDS);
                assertEquals("0", moved[0], moved[1] + moved[2]);
                assertTrue(moved[1].contains("balanced: replicas per node differ by at most one (3 moves done)"), moved[1]);
                String status = PlacementClusterTest.admin(cluster, "status");
                for (int n = 0; n < 4; n++) {
                    assertTrue(status.contains("node " + n + ": 3 replicas"), status);
                }
                // Each group's voters as its leader sees them (a removed replica need not learn of its own removal, so
                // the nodes' own gauges may still count it).
                boolean[][] votes = new boolean[4][GROUPS];
                for (int g = 0; g < GROUPS; g++) {
                    GroupNodes nodes = GroupNodes.find(status.substring(status.indexOf("group " + g + ": leader")))
                            .orElseThrow();
                    assertEquals(3, nodes.voters().size(), status);
                    for (int n : nodes.voters()) {
                        votes[n][g] = true;
                    }
                }
                // The joined node reads under its leases once it votes (bounded: until it served one through its
                // own preferring client).
                double joinedBefore = 0;
                for (int g = 0; g < GROUPS; g++) {
                    joinedBefore += leaseReads(cluster.node(3), g);
                }
                // A node that left a group answers none of its reads locally any more (QL1: NOT_VOTER).
                double[][] leftReads = new double[3][GROUPS];
                for (int n = 0; n < 3; n++) {
                    for (int g = 0; g < GROUPS; g++) {
                        leftReads[n][g] = votes[n][g] ? 0 : leaseReads(cluster.node(n), g);
                    }
                }
                // Bounded by rounds and by time: the preferring client learns that node 3 hosts groups from a newer
                // placement, which it asks for once its own is 10 s old.
                double joined = joinedBefore;
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                for (int more = 0; more < 20_000 && (more < 200 || (joined == joinedBefore && System.nanoTime() < until));
                        more++, round++) {
                    String key = keys.get(round % keys.size());
                    value = step(history, origin, writer, readers.get(round % readers.size()), round % readers.size(),
                            key, value, acknowledged);
                    joined = 0;
                    for (int g = 0; g < GROUPS; g++) {
                        joined += leaseReads(cluster.node(3), g);
                    }
                }
                CheckResult result = new LinearizabilityChecker().check(history.history());
                double leaving = 0;
                for (double[] n : leftReads) {
                    for (double g : n) {
                        leaving += g;
                    }
                }
                String counts = lease + ": " + round + " rounds, " + acknowledged.values().stream().mapToLong(Set::size).sum()
                        + " appends acknowledged, lease reads of the replicas that moved away "
                        + (long) leaving + " (before they left), node 3's lease reads " + (long) joinedBefore
                        + " once the rebalance was done, " + (long) joined + " at the end";
                System.out.println("quorum-lease node join: " + counts + "; verdict " + result.verdict());
                assertTrue(result.isLinearizable(), counts + ": " + result.explanation());
                long appended = acknowledged.values().stream().mapToLong(Set::size).sum();
                assertTrue(appended >= round / 2, "most appends acknowledged (" + appended + " of " + round + "): " + counts);
                assertTrue(leaving > 0, "the replicas that moved away held leases and read on them: " + counts);
                assertTrue(joined > joinedBefore, "the joined node answered reads under its leases: " + counts);
                for (int n = 0; n < 3; n++) {
                    for (int g = 0; g < GROUPS; g++) {
                        if (!votes[n][g]) {
                            assertEquals(leftReads[n][g], leaseReads(cluster.node(n), g),
                                    "node " + n + " left group " + g + " and answered no read under a lease: " + counts);
                        }
                    }
                }
                for (String key : keys) {
                    ListResult r = writer.readList(key, Consistency.LOG).get(90, TimeUnit.SECONDS);
                    Set<Long> found = new LinkedHashSet<>();
                    for (long e : r.elements()) {
                        found.add(e);
                    }
                    assertTrue(found.containsAll(acknowledged.getOrDefault(key, Set.of())),
                            "every acknowledged append to " + key + " is in the log: " + found);
                }
            } finally {
                for (SynodClient c : readers) {
                    c.close();
                }
            }
        }
    }

    /** One append of {@code key} by the writer, then one read of it through {@code reader}; returns the next value. */
    private static long step(HistoryRecorder history, long origin, SynodClient writer, SynodClient reader, int readerId,
            String key, long value, Map<String, Set<Long>> acknowledged) {
        int op = history.invokeAppend(0, key, value, System.nanoTime() - origin);
        try {
            writer.append(key, value).get(90, TimeUnit.SECONDS);
            history.okAppend(op, System.nanoTime() - origin);
            acknowledged.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(value);
        } catch (Exception e) {
            history.info(op, System.nanoTime() - origin); // it may or may not have been applied
        }
        int read = history.invokeRead(1 + readerId, key, System.nanoTime() - origin);
        try {
            ListResult r = reader.readList(key).get(90, TimeUnit.SECONDS);
            List<Long> seen = new ArrayList<>();
            for (long e : r.elements()) {
                seen.add(e);
            }
            history.okRead(read, seen, System.nanoTime() - origin);
        } catch (Exception e) {
            history.fail(read, System.nanoTime() - origin); // a read changes nothing
        }
        return value + 1;
    }

    private static SynodClient client(TestingServer zk, LocalCluster cluster, String name, int readFrom) {
        SynodClient.Builder b = SynodClient.builder().zookeeper(zk.getConnectString()).cluster(name)
                .timeout(Duration.ofSeconds(60)).tls(cluster.clientTls());
        return (readFrom < 0 ? b : b.readFrom(readFrom)).build();
    }
}
