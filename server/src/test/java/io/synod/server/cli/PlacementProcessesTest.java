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
import java.net.InetSocketAddress;
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
 * Moving replicas on real processes (docs/membership.md, "Moving a replica", "Removing a node"): four Synod server JVMs
 * with fsync on run four groups of three replicas under an append + read workload recorded as a history. Node 0's
 * replica of a group it hosts moves onto the node that did not host it, and that node is killed with SIGKILL while
 * the move is under way and restarted (the move resumes from the placement and the committed membership); then node
 * 0, which led groups, is emptied with {@code remove-node}. Every acknowledged append must be in the final lists, and
 * the whole history linearizable (the built-in checker).
 */
class PlacementProcessesTest {
    private static final int NODES = 4;
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

    @Test
    @Timeout(600)
    void replicasMoveAndANodeIsEmptiedUnderAWorkloadWithAKillDuringAMove() throws Exception {
        String[] start = ClusterProcessesTest.run("cluster", "start", "--nodes", Integer.toString(NODES), "--groups",
                Integer.toString(GROUPS), "--dir", dir.toString(), "--session-timeout-ms", "3000", "--set", "replicas=3",
                "--timeout-s", "120");
        assertEquals("0", start[0], start[1] + start[2]);
        ClusterFile file = ClusterFile.read(dir);
        List<InetSocketAddress> servers = new ArrayList<>();
        for (ClusterFile.NodeEntry n : file.nodes()) {
            servers.add(new InetSocketAddress("127.0.0.1", n.clientPort()));
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread workload = new Thread(() -> {
            try {
                work(servers, file, stop);
            } catch (Throwable t) {
                failed.set(t);
            }
        }, "placement-workload");
        workload.start();
        try {
            awaitAcknowledged(40);
            // A group node 0 hosts, and the node that does not host it.
            int group = 0;
            while (!nodes(group).voters().contains(0)) {
                group++;
            }
            List<Integer> voters = nodes(group).voters();
            int to = 0;
            while (voters.contains(to)) {
                to++;
            }
            int target = to;
            int moved = group;
            AtomicReference<String[]> move = new AtomicReference<>();
            Thread mover = new Thread(() -> move.set(admin("move-replica", "--group", Integer.toString(moved), "--from", "0",
                    "--to", Integer.toString(target), "--wait-ms", "240000")), "placement-move");
            mover.start();
            // Kill -9 the new replica's node once the move is under way (it is a learner, or just promoted), then
            // restart it: the leader resumes from the placement and its committed membership.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            GroupNodes seen = nodes(group);
            while (!seen.learners().contains(to) && !seen.voters().contains(to) && System.nanoTime() < deadline) {
                Thread.sleep(20);
                seen = nodes(group);
            }
            assertTrue(seen.learners().contains(to) || seen.voters().contains(to), "the move started: " + seen.line());
            System.out.printf("placement processes: group %d moves from node 0 to node %d; kill -9 of node %d at %s%n",
                    group, to, to, seen.line());
            assertEquals("0", ClusterProcessesTest.run("cluster", "kill", Integer.toString(to), "--dir", dir.toString())[0]);
            awaitAcknowledged(acknowledged.values().stream().mapToInt(Set::size).sum() + 20); // the cluster goes on
            String[] restart = ClusterProcessesTest.run("cluster", "restart", Integer.toString(to), "--dir", dir.toString());
            assertEquals("0", restart[0], restart[1] + restart[2]);
            mover.join(TimeUnit.SECONDS.toMillis(300));
            assertFalse(mover.isAlive(), "move-replica returned");
            assertEquals("0", move.get()[0], move.get()[1] + move.get()[2]);
            GroupNodes after = nodes(group);
            assertTrue(after.voters().contains(to) && !after.voters().contains(0) && after.voters().size() == 3,
                    after.line());
            // Empty node 0 (it led groups at the start: every node leads one of the four).
            // The node killed during the move restarted a moment ago: until each group's leader has heard from its
            // replica within the CheckQuorum window, the strict reconfiguration check refuses a step that needs it
            // (that is its job: verify saw "1 of its 3 voters would be live"). The command is safe to repeat, so run it
            // again, as an operator would, while that is the refusal; bounded.
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
            awaitAcknowledged(acknowledged.values().stream().mapToInt(Set::size).sum() + 20);
        } finally {
            stop.set(true);
            workload.join(120_000);
        }
        if (failed.get() != null) {
            throw new AssertionError("the workload failed", failed.get());
        }
        // Every acknowledged append is in its key's list, read through the log after everything.
        try (SynodClient client = SynodClient.builder().servers(servers).timeout(Duration.ofSeconds(30))
                .tls(ClusterCommand.clientTls(dir, file)).build()) {
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

    /** Appends to and reads {@value #KEYS} keys (spread over the groups) until stopped, at most 20,000 operations. */
    private void work(List<InetSocketAddress> servers, ClusterFile file, AtomicBoolean stop) throws Exception {
        try (SynodClient client = SynodClient.builder().servers(servers).timeout(Duration.ofSeconds(10))
                .tls(ClusterCommand.clientTls(dir, file)).build()) {
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
