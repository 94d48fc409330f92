package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.client.Consistency;
import io.synod.client.GetResult;
import io.synod.client.SynodClient;
import io.synod.core.paxos.Role;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.server.client.NodeClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The wiped-node acceptance run on real processes (docs/membership.md, "A wiped node re-joins"; rules M6, M7): three
 * Synod server JVMs with fsync on, under a write workload; node 2 is killed, its data directory deleted ({@code rm -rf}),
 * and it is restarted with no other command. It must become a voter of every group again, caught up, with every
 * acknowledged write readable from it alone; a copy of its directory from before the wipe is then refused. Run on plain
 * groups and on quorum-lease groups.
 */
class WipedNodeProcessesTest {
    private static final int WIPED = 2;
    private static final int GROUPS = 2;

    @TempDir
    Path dir;

    private final Map<String, byte[]> acknowledged = new ConcurrentHashMap<>();

    @AfterEach
    void stopEverything() throws Exception {
        ClusterProcessesTest.stopCluster(dir);
    }

    /** Plain groups, and quorum leases (rules QL1-QL4: the re-joined replica takes the lease share of its rank). */
    @ParameterizedTest
    @ValueSource(strings = {"none", "quorum"})
    @Timeout(420)
    void aWipedNodeRestartedWithNoOtherCommandVotesAgainWithEveryAcknowledgedWrite(String lease) throws Exception {
        String[] start = ClusterProcessesTest.run("cluster", "start", "--nodes", "3", "--groups", Integer.toString(GROUPS),
                "--dir", dir.toString(),
                "--session-timeout-ms", "3000", "--set", "snapshot.every.slots=40", "--set", "log.retain.slots=10",
                "--set", "lease=" + lease, "--timeout-s", "120");
        assertEquals("0", start[0], start[1] + start[2]);
        ClusterFile file = ClusterFile.read(dir);
        Map<Integer, InetSocketAddress> endpoints = new TreeMap<>();
        for (ClusterFile.NodeEntry n : file.nodes()) {
            endpoints.put(n.id(), new InetSocketAddress("127.0.0.1", n.clientPort()));
        }
        AtomicBoolean stop = new AtomicBoolean();
        Thread workload = new Thread(() -> write(endpoints, file, stop), "wiped-node-workload");
        workload.start();
        try {
            awaitAcknowledged(60);
            assertEquals("0", ClusterProcessesTest.run("cluster", "kill", Integer.toString(WIPED), "--dir", dir.toString())[0]);
            Path data = dir.resolve("node-" + WIPED).resolve("data");
            Path before = dir.resolve("node-" + WIPED + "-before-wipe");
            NodeIdentityClusterTest.copyTree(data, before); // what a stale backup of the directory would hold
            NodeIdentityClusterTest.deleteTree(data); // rm -rf
            awaitAcknowledged(acknowledged.size() + 100); // the cluster goes on without node 2
            String[] restart = ClusterProcessesTest.run("cluster", "restart", Integer.toString(WIPED), "--dir",
                    dir.toString());
            assertEquals("0", restart[0], restart[1] + restart[2]);
            int metricsPort = file.nodes().get(WIPED).metricsPort();
            long deadline = System.nanoTime() + 180_000_000_000L;
            String why = "";
            while (System.nanoTime() < deadline && !(why = votesInEveryGroup(metricsPort)).isEmpty()) {
                Thread.sleep(200);
            }
            assertEquals("", why, "node " + WIPED + " is a voter of every group again");
            assertTrue(serverLog(WIPED).contains("started as new incarnation"), "the restart took a new incarnation");
        } finally {
            stop.set(true);
            workload.join(60_000);
        }
        System.out.printf("wiped node (lease %s): %d acknowledged writes under the workload%n", lease, acknowledged.size());
        for (int g = 0; g < GROUPS; g++) {
            awaitCaughtUp(file, g);
        }
        InetSocketAddress wiped = endpoints.get(WIPED);
        try (SynodClient alone = SynodClient.builder().servers(List.of(wiped)).timeout(Duration.ofSeconds(20))
                .tls(ClusterCommand.clientTls(dir, file)).build()) {
            for (Map.Entry<String, byte[]> e : acknowledged.entrySet()) {
                GetResult r = alone.get(e.getKey(), Consistency.STALE).join();
                assertArrayEquals(e.getValue(), r.value(), "STALE read of " + e.getKey() + " at node " + WIPED);
            }
        }
        // The directory from before the wipe, copied back: its incarnation is not the one ZooKeeper records now.
        assertEquals("0", ClusterProcessesTest.run("cluster", "kill", Integer.toString(WIPED), "--dir", dir.toString())[0]);
        Path data = dir.resolve("node-" + WIPED).resolve("data");
        NodeIdentityClusterTest.deleteTree(data);
        NodeIdentityClusterTest.copyTree(dir.resolve("node-" + WIPED + "-before-wipe"), data);
        long logBefore = Files.size(dir.resolve("node-" + WIPED).resolve("server.log"));
        ClusterFile now = ClusterFile.read(dir);
        long pid = ClusterCommand.restartNode(dir, now, now.nodes().get(WIPED), List.of());
        ProcessHandle.of(pid).ifPresent(h -> h.onExit().orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join());
        String log = serverLog(WIPED).substring((int) logBefore);
        assertTrue(log.contains("refuses to start") && log.contains("is a copy of another incarnation's state"), log);
    }

    /** Writes keys until stopped (at most 20,000), recording each acknowledged one. */
    private void write(Map<Integer, InetSocketAddress> endpoints, ClusterFile file, AtomicBoolean stop) {
        try (NodeClient client = new NodeClient(endpoints, 7, 2_000, ClusterCommand.MAX_FRAME,
                ClusterCommand.clientTls(dir, file))) {
            for (int i = 0; i < 20_000 && !stop.get(); i++) {
                byte[] value = ("v" + i).getBytes(StandardCharsets.UTF_8);
                try {
                    if (client.put("w" + i, value, 30_000).status() == ClientReply.Status.OK) {
                        acknowledged.put("w" + i, value);
                    }
                } catch (IOException e) {
                    // Not acknowledged: not checked.
                }
            }
        }
    }

    private void awaitAcknowledged(int count) throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (acknowledged.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(acknowledged.size() >= count, acknowledged.size() + " acknowledged, waited for " + count);
    }

    /** Empty if node's metrics say it votes in every group of a membership of three voters and no learner; else why not. */
    private static String votesInEveryGroup(int metricsPort) {
        String text;
        try (InputStream in = URI.create("http://127.0.0.1:" + metricsPort + "/metrics").toURL().openStream()) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "metrics not reachable: " + e;
        }
        for (int g = 0; g < GROUPS; g++) {
            for (String[] want : new String[][] {{"synod_group_voter", "1.0"}, {"synod_group_voters", "3.0"},
                    {"synod_group_learners", "0.0"}}) {
                Matcher m = Pattern.compile("(?m)^" + want[0] + "\\{group=\"" + g + "\",?\\} (\\S+)$").matcher(text);
                if (!m.find() || !m.group(1).equals(want[1])) {
                    return "group " + g + ": " + want[0] + " " + (m.find(0) ? m.group(1) : "absent");
                }
            }
        }
        return "";
    }

    private void awaitCaughtUp(ClusterFile file, int group) throws Exception {
        long deadline = System.nanoTime() + 90_000_000_000L;
        ClientFrame.GroupStatus s = null;
        while (System.nanoTime() < deadline) {
            try {
                long commit = -1;
                for (ClusterFile.NodeEntry n : file.nodes()) {
                    ClientFrame.GroupStatus other = status(file, n.id(), group);
                    if (other.role() == Role.LEADER.ordinal()) {
                        commit = other.commitSlot();
                    }
                }
                s = status(file, WIPED, group);
                if (commit >= 0 && s.appliedSlot() >= commit) {
                    return;
                }
            } catch (IOException e) {
                // A node not answering yet.
            }
            Thread.sleep(100);
        }
        throw new AssertionError("node " + WIPED + " did not catch up in group " + group + ": " + s);
    }

    private ClientFrame.GroupStatus status(ClusterFile file, int node, int group) throws IOException {
        return NodeClient.status(new InetSocketAddress("127.0.0.1", file.nodes().get(node).clientPort()), 2_000,
                ClusterCommand.MAX_FRAME, ClusterCommand.clientTls(dir, file)).groups().get(group);
    }

    private String serverLog(int node) throws IOException {
        return Files.readString(dir.resolve("node-" + node).resolve("server.log"), StandardCharsets.UTF_8);
    }
}
