package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.client.ListResult;
import io.synod.client.SynodClient;
import io.synod.core.check.CheckResult;
import io.synod.core.check.LinearizabilityChecker;
import io.synod.core.history.HistoryRecorder;
import io.synod.server.node.GroupNodes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node joins and replicas move on real processes, the form of the membership acceptance test (docs/membership.md,
 * "Adding a node", "Rebalancing", "Moving a replica", "Removing a node"): three Synod server JVMs with fsync on run four
 * groups of three replicas under an append + read workload recorded as a history. {@code synod cluster add-node} starts
 * a fourth node, which joins as a spare of every group, and moves replicas onto it (rules M4-M6: a learner, caught up,
 * promoted, the old replica removed) until every node hosts three; the new node is killed with SIGKILL while a move
 * onto it is under way and restarted (the move resumes from the placement and the committed membership, and the
 * command, still waiting, ends balanced). Then a fifth node joins as a spare ({@code add-node --no-rebalance}) and node 0,
 * which led groups, is emptied with {@code remove-node} (its replicas move to node 4). Every
 * acknowledged append must be in the final lists, and the whole history linearizable (the built-in checker).
 */
class PlacementProcessesTest {
    private static final int NODES = 3;
    private static final int GROUPS = 4;
    private static final int KEYS = 8;

    @TempDir
    Path dir;

    private final Map<String, Set<Long>> acknowledged = new ConcurrentHashMap<>();
    private final HistoryRecorder recorder = new HistoryRecorder();
    private final long origin = System.nanoTime();

    @AfterEach
    void stopEverything() throws Exception {
        ClusterProcessesTest.stopCluster(dir);
    }

    private String[] admin(String... args) {
        List<String> all = new ArrayList<>(List.of("admin", "--dir", dir.toString()));
        all.addAll(List.of(args));
        return ClusterProcessesTest.run(all.toArray(String[]::new));
    }

    /** The group's nodes as its leader's status names them (retried: a leader may be changing). */
    private GroupNodes nodes(int group) throws InterruptedException {
        for (int attempt = 0; attempt < 100; attempt++) {
            String[] status = admin("status", "--group", Integer.toString(group));
            if (status[0].equals("0")) {
                return GroupNodes.find(status[1]).orElseThrow();
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no status of group " + group);
    }

    /** The group whose membership names {@code node} (a learner or a voter), or -1. */
    private int groupWith(int node) throws InterruptedException {
        for (int g = 0; g < GROUPS; g++) {
            GroupNodes n = nodes(g);
            if (n.learners().contains(node) || n.voters().contains(node)) {
                return g;
            }
        }
        return -1;
    }

    @Test
    @Timeout(900)
    void aNodeJoinsReplicasMoveOntoItAndANodeIsEmptiedUnderAWorkloadWithAKillDuringAMove() throws Exception {
        String[] start = ClusterProcessesTest.run("cluster", "start", "--nodes", Integer.toString(NODES), "--groups",
                Integer.toString(GROUPS), "--dir", dir.toString(), "--session-timeout-ms", "3000", "--set", "replicas=3",
                "--timeout-s", "120");
        assertEquals("0", start[0], start[1] + start[2]);
        ClusterFile file = ClusterFile.read(dir);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread workload = new Thread(() -> {
            try {
                work(file, stop);
            } catch (Throwable t) {
                failed.set(t);
            }
        }, "placement-workload");
        workload.start();
        try {
            awaitAcknowledged(40);
            // Node 3 joins and replicas move onto it (three moves: 12 replicas on 4 nodes).
            AtomicReference<String[]> added = new AtomicReference<>();
            Thread adder = new Thread(() -> added.set(ClusterProcessesTest.run("cluster", "add-node", "--dir",
                    dir.toString(), "--wait-ms", "240000")), "placement-add-node");
            adder.start();
            // Kill -9 the new node once a move onto it is under way (a learner, or just promoted), then restart it:
            // the leader resumes from the placement and its committed membership, and add-node goes on waiting.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            int group = -1;
            while (group < 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
                group = Files.exists(dir.resolve("node-3")) && ClusterFile.read(dir).nodes().size() > NODES ? groupWith(3)
                        : -1;
            }
            assertTrue(group >= 0, "a move onto node 3 started");
            System.out.printf("placement processes: group %d moves onto node 3; kill -9 of node 3 at %s%n", group,
                    nodes(group).line());
            assertEquals("0", ClusterProcessesTest.run("cluster", "kill", "3", "--dir", dir.toString())[0]);
            awaitAcknowledged(acknowledged.values().stream().mapToInt(Set::size).sum() + 20); // the cluster goes on
            String[] restart = ClusterProcessesTest.run("cluster", "restart", "3", "--dir", dir.toString());
            assertEquals("0", restart[0], restart[1] + restart[2]);
            adder.join(TimeUnit.SECONDS.toMillis(600));
            assertFalse(adder.isAlive(), "add-node returned");
            assertEquals("0", added.get()[0], added.get()[1] + added.get()[2]);
            assertTrue(added.get()[1].contains("balanced: replicas per node differ by at most one (3 moves done)"),
                    added.get()[1]);
            String status = admin("status")[1];
            for (int n = 0; n <= NODES; n++) {
                assertTrue(status.contains("node " + n + ": 3 replicas"), status);
            }
            String[] cluster = ClusterProcessesTest.run("cluster", "status", "--dir", dir.toString());
            assertTrue(cluster[1].contains("node 3 "), "cluster status knows the new node: " + cluster[1]);
            // Node 4 joins as a spare only: after the rebalance, each group's one node without it is, in three of the
            // four groups, the node whose replica moved to node 3, and a move back onto a node whose id in the group was
            // removed waits for that node's restart (rule M7: a new id, a reset replica). Node 4 needs none anywhere.
            String[] fifth = ClusterProcessesTest.run("cluster", "add-node", "--dir", dir.toString(), "--no-rebalance");
            assertEquals("0", fifth[0], fifth[1] + fifth[2]);
            assertTrue(fifth[1].contains("node 4 joined cluster"), fifth[1]);
            // Empty node 0 (it led groups at the start: every node leads some of the four): its replicas move to node 4.
            // The node killed during the move restarted a moment ago: until each group's leader has heard from its
            // replica within the CheckQuorum window, the strict reconfiguration check refuses a step that needs it
            // (that is its job). The command is safe to repeat, so run it again, as an operator would, while that is
            // the refusal; bounded.
            String[] removed = admin("remove-node", "0", "--wait-ms", "240000");
            long strictDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!"0".equals(removed[0]) && (removed[1] + removed[2]).contains("strict reconfiguration check")
                    && System.nanoTime() < strictDeadline) {
                Thread.sleep(1_000);
                removed = admin("remove-node", "0", "--wait-ms", "240000");
            }
            assertEquals("0", removed[0], removed[1] + removed[2]);
            assertTrue(removed[1].contains("node 0 hosts no replica of the " + GROUPS + " groups"), removed[1]);
            for (int g = 0; g < GROUPS; g++) {
                GroupNodes n = nodes(g);
                assertTrue(n.voters().size() == 3 && !n.voters().contains(0) && n.learners().isEmpty(), n.line());
            }
            assertTrue(admin("status")[1].contains("node 4: 3 replicas"), "node 0's three replicas moved to node 4");
            awaitAcknowledged(acknowledged.values().stream().mapToInt(Set::size).sum() + 20);
        } finally {
            stop.set(true);
            workload.join(120_000);
        }
        if (failed.get() != null) {
            throw new AssertionError("the workload failed", failed.get());
        }
        // Every acknowledged append is in its key's list, read through the log after everything.
        try (SynodClient client = client(file, 30)) {
            for (int k = 0; k < KEYS; k++) {
                String key = "p" + k;
                int op = invokeRead(key);
                ListResult r = client.readList(key).get(60, TimeUnit.SECONDS);
                okRead(op, r.elements());
                Set<Long> present = new HashSet<>();
                for (long e : r.elements()) {
                    present.add(e);
                }
                Set<Long> missing = new HashSet<>(acknowledged.getOrDefault(key, Set.of()));
                missing.removeAll(present);
                assertTrue(missing.isEmpty(), key + ": acknowledged appends missing: " + missing);
            }
        }
        CheckResult result;
        synchronized (recorder) {
            result = new LinearizabilityChecker().check(recorder.history());
        }
        System.out.printf("placement processes: %d acknowledged appends, history %s%n",
                acknowledged.values().stream().mapToInt(Set::size).sum(), result.verdict());
        assertTrue(result.isLinearizable(), result.explanation());
    }

    /** A client that finds the servers through ZooKeeper, so it learns of the node that joins. */
    private SynodClient client(ClusterFile file, int timeoutSeconds) {
        return SynodClient.builder().zookeeper("127.0.0.1:" + file.zookeeperPort()).cluster(file.cluster())
                .timeout(Duration.ofSeconds(timeoutSeconds)).tls(ClusterCommand.clientTls(dir, file)).build();
    }

    /** Appends to and reads {@value #KEYS} keys (spread over the groups) until stopped, at most 20,000 operations. */
    private void work(ClusterFile file, AtomicBoolean stop) throws Exception {
        try (SynodClient client = client(file, 10)) {
            for (int i = 0; i < 20_000 && !stop.get(); i++) {
                String key = "p" + (i % KEYS);
                if (i % 2 == 0) {
                    long value = i;
                    int op;
                    synchronized (recorder) {
                        op = recorder.invokeAppend(1, key, value, System.nanoTime() - origin);
                    }
                    try {
                        client.append(key, value).get(30, TimeUnit.SECONDS);
                        synchronized (recorder) {
                            recorder.okAppend(op, System.nanoTime() - origin);
                        }
                        acknowledged.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(value);
                    } catch (Exception e) {
                        synchronized (recorder) {
                            recorder.info(op, System.nanoTime() - origin); // it may or may not have been applied
                        }
                    }
                } else {
                    int op = invokeRead(key);
                    try {
                        okRead(op, client.readList(key).get(30, TimeUnit.SECONDS).elements());
                    } catch (Exception e) {
                        synchronized (recorder) {
                            recorder.fail(op, System.nanoTime() - origin); // a read changes nothing
                        }
                    }
                }
            }
        }
    }

    private int invokeRead(String key) {
        synchronized (recorder) {
            return recorder.invokeRead(1, key, System.nanoTime() - origin);
        }
    }

    private void okRead(int op, long[] elements) {
        List<Long> list = new ArrayList<>(elements.length);
        for (long e : elements) {
            list.add(e);
        }
        synchronized (recorder) {
            recorder.okRead(op, list, System.nanoTime() - origin);
        }
    }

    private void awaitAcknowledged(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (acknowledged.values().stream().mapToInt(Set::size).sum() < count && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(acknowledged.values().stream().mapToInt(Set::size).sum() >= count, "acknowledged appends: waited for "
                + count);
    }
}
