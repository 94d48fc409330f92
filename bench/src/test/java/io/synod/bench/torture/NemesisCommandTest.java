package io.synod.bench.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.synod.bench.BenchCli;
import io.synod.bench.CliRun;
import io.synod.core.check.LinearizabilityChecker;
import io.synod.core.check.Verdict;
import io.synod.core.history.History;
import io.synod.core.history.HistoryJson;
import java.io.InputStream;
import java.nio.file.Files;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bounded nemesis runs of {@code ./mvnw verify} on real server processes whose peer and ZooKeeper
 * links go through relays on 127.0.0.1 (docs/nemesis.md).
 */
class NemesisCommandTest {

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void partitionsAPauseAndAKillLoseNothingStayLinearizableAndRecover(@TempDir Path dir) throws Exception {
        // One round of each fault: split, leader isolated from its peers, a bridge (two halves sharing one
        // node), leader cut from ZooKeeper, the client cut from one server, SIGSTOP of a leader past its
        // 1.5 s session timeout, SIGKILL and restart.
        CliRun r = CliRun.of("nemesis", "--dir", dir.toString(), "--faults", "partition,pause,kill", "--rounds", "7",
                "--fault-ms", "4000", "--interval-ms", "500", "--session-timeout-ms", "1500", "--clients", "4", "--seed", "11",
                "--seconds", "300");
        System.out.println(r.out());
        assertEquals(0, r.exitCode(), r.out() + r.err());
        assertTrue(r.out().contains("faults:              7 (7 recovered within 30 s)"), r.out());
        assertTrue(r.out().contains(", lost 0"), r.out());
        assertTrue(r.out().contains("checker:             LINEARIZABLE"), r.out());
        List<String> kinds = new ArrayList<>(NemesisCommand.PARTITIONS);
        kinds.addAll(List.of("pause", "kill"));
        for (String kind : kinds) {
            assertTrue(Pattern.compile("fault \\d/7: " + kind + " of ").matcher(r.out()).find(), kind + " missing: " + r.out());
        }
        assertLinearizable(dir);
        assertEveryProcessStopped(dir);
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aLeaderOnADriftingClockWithinTheLeaseBoundServesNoStaleRead(@TempDir Path dir) throws Exception {
        // Timer leases (leader-timer, LeaseGuard §4) are safe while every clock's rate error stays within
        // lease.drift.ppm (10 000 ppm by default): a follower restarts 0.5 % fast and 250 ms ahead, then the
        // leader is cut from its peers (its clients still reach it), so a node on that clock may take over
        // while the old leader's lease runs out.
        CliRun r = CliRun.of("nemesis", "--dir", dir.toString(), "--faults", "clock", "--rounds", "1", "--lease",
                "leader-timer", "--clock-drift-ppm", "5000", "--clock-skew-ms", "250", "--fault-ms", "4000",
                "--interval-ms", "500", "--session-timeout-ms", "1500", "--clients", "4", "--seed", "13", "--seconds", "120");
        System.out.println(r.out());
        assertEquals(0, r.exitCode(), r.out() + r.err());
        assertTrue(r.out().contains("fault 1/1: clock of node "), r.out());
        assertTrue(r.out().contains("clock +250 ms +5000 ppm; leader "), r.out());
        assertTrue(r.out().contains("checker:             LINEARIZABLE"), r.out());
        assertLinearizable(dir);
        assertEveryProcessStopped(dir);
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void asRootNamespacePartitionsAndAFullDiskLoseNothingAndRecover(@TempDir Path dir) throws Exception {
        // Network namespaces, veth pairs and loop-mounted ext4 need root; other users get the one-line
        // refusal checked in badArgumentsAreOneLineErrors.
        assumeTrue(isRoot(), "needs root: network namespaces and a loop-mounted ext4 image");
        CliRun r = CliRun.of("nemesis", "--dir", dir.toString(), "--net", "namespaces", "--faults",
                "split,client-cut,zk-isolation,disk-full", "--rounds", "4", "--fault-ms", "4000", "--interval-ms", "500",
                "--session-timeout-ms", "1500", "--clients", "4", "--seed", "17", "--seconds", "300");
        System.out.println(r.out());
        assertEquals(0, r.exitCode(), r.out() + r.err());
        assertTrue(r.out().contains("faults:              4 (4 recovered within 30 s)"), r.out());
        assertTrue(r.out().contains(", lost 0"), r.out());
        assertTrue(r.out().contains("a cut is a blackhole route"), r.out());
        // The fsyncgate rule: a replica whose write or fsync fails stops rather than acknowledging what is not
        // durable. The node log writes into preallocated segments, so a full disk is met only when a new segment
        // (16 MiB) or a RocksDB flush needs space, which a short hold may not reach: then the replicas keep serving
        // with every write durable (lost 0 and the checker above). Either outcome must be reported.
        assertTrue(r.out().contains("; a replica stopped after ") || r.out().contains("; its replicas kept serving"), r.out());
        assertLinearizable(dir);
        assertEveryProcessStopped(dir);
        String links = NemesisNet.run(List.of("ip", "-o", "link")) + NemesisNet.run(List.of("ip", "netns", "list"));
        assertFalse(links.contains("sn" + Long.toHexString(ProcessHandle.current().pid())), "left behind: " + links);
        assertFalse(NemesisNet.run(List.of("mount")).contains(dir.toString()), "an image is still mounted");
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aLeaderCutOffFromItsPeersIsReplacedWhileTheCutLasts(@TempDir Path dir) throws Exception {
        // CheckQuorum (etcd's rule): the leader's ZooKeeper session stays healthy, so only its own step-down
        // after 1 s without a quorum's answer lets ZooKeeper elect another node. Without it the group
        // served nothing for as long as the cut lasted (30 s of 30 s measured, docs/nemesis.md). The
        // bound: 1 s CheckQuorum, at most two rounds of deferral to the cut-off node's unchosen log tail
        // (each a 2 s phase 1 timeout), the election itself: well under the 15 s the cut is held here.
        CliRun r = CliRun.of("nemesis", "--dir", dir.toString(), "--faults", "leader-isolation", "--rounds", "1",
                "--fault-ms", "15000", "--interval-ms", "500", "--clients", "4", "--seed", "5", "--seconds", "120");
        System.out.println(r.out());
        assertEquals(0, r.exitCode(), r.out() + r.err());
        Matcher m = Pattern.compile("another leader after ([0-9.]+) s; no ok operation for ([0-9.]+) s").matcher(r.out());
        assertTrue(m.find(), "no other leader was elected while the leader was cut off: " + r.out());
        double failover = Double.parseDouble(m.group(1));
        double unavailable = Double.parseDouble(m.group(2));
        assertTrue(failover <= 10.0, "another leader only after " + failover + " s");
        assertTrue(unavailable <= 12.0, "no operation completed for " + unavailable + " s of a 15 s cut");
        assertEveryProcessStopped(dir);
    }

    @Test
    void badArgumentsAreOneLineErrors(@TempDir Path dir) {
        CliRun faults = CliRun.of("nemesis", "--dir", dir.toString(), "--faults", "partition,flood");
        assertEquals(BenchCli.EXIT_USAGE, faults.exitCode());
        assertTrue(faults.err().startsWith("error: --faults: unknown fault 'flood'"), faults.err());
        CliRun nodes = CliRun.of("nemesis", "--dir", dir.toString(), "--nodes", "4");
        assertEquals(BenchCli.EXIT_USAGE, nodes.exitCode());
        assertTrue(nodes.err().startsWith("error: --nodes must be 3 or 5, got 4"), nodes.err());
        CliRun rounds = CliRun.of("nemesis", "--dir", dir.toString(), "--rounds", "0");
        assertEquals(BenchCli.EXIT_USAGE, rounds.exitCode());
        assertTrue(rounds.err().startsWith("error: --rounds must be 1..10000, got 0"), rounds.err());
        CliRun net = CliRun.of("nemesis", "--dir", dir.toString(), "--net", "tc");
        assertEquals(BenchCli.EXIT_USAGE, net.exitCode());
        assertTrue(net.err().startsWith("error: --net must be relays or namespaces, got 'tc'"), net.err());
        CliRun drift = CliRun.of("nemesis", "--dir", dir.toString(), "--clock-drift-ppm", "-1000000");
        assertEquals(BenchCli.EXIT_USAGE, drift.exitCode());
        assertTrue(drift.err().startsWith("error: --clock-drift-ppm must be -900000..1000000"), drift.err());
        if (!isRoot()) {
            CliRun ns = CliRun.of("nemesis", "--dir", dir.toString(), "--net", "namespaces");
            assertEquals(BenchCli.EXIT_USAGE, ns.exitCode());
            assertTrue(ns.err().startsWith("error: --net namespaces needs root"), ns.err());
            CliRun disk = CliRun.of("nemesis", "--dir", dir.toString(), "--faults", "disk-full");
            assertEquals(BenchCli.EXIT_USAGE, disk.exitCode());
            assertTrue(disk.err().startsWith("error: the disk-full fault needs root"), disk.err());
        }
        CliRun help = CliRun.of("nemesis", "--help");
        assertEquals(0, help.exitCode());
        assertTrue(help.out().contains("--faults"), help.out());
    }

    private static boolean isRoot() {
        try {
            return NemesisNet.run(List.of("id", "-u")).strip().equals("0");
        } catch (IOException e) {
            return false;
        }
    }

    private static void assertLinearizable(Path dir) throws Exception {
        History history;
        try (InputStream in = Files.newInputStream(dir.resolve("history.jsonl"))) {
            history = HistoryJson.read(in);
        }
        assertEquals(Verdict.LINEARIZABLE, new LinearizabilityChecker().check(history).verdict());
    }

    private static void assertEveryProcessStopped(Path dir) throws Exception {
        String clusterJson = Files.readString(dir.resolve("cluster").resolve("cluster.json"));
        Matcher pids = Pattern.compile("\"pid\": (\\d+)").matcher(clusterJson);
        int count = 0;
        while (pids.find()) {
            long pid = Long.parseLong(pids.group(1));
            count++;
            assertTrue(ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true), "process " + pid + " still runs");
        }
        assertTrue(count >= 4, "cluster.json lists " + count + " processes");
    }
}
