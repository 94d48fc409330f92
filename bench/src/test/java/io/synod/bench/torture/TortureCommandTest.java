package io.synod.bench.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.bench.BenchCli;
import io.synod.bench.CliRun;
import io.synod.core.check.LinearizabilityChecker;
import io.synod.core.check.Verdict;
import io.synod.core.history.History;
import io.synod.core.history.HistoryEvent;
import io.synod.core.history.HistoryJson;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short torture run of {@code ./mvnw verify}: real server processes ({@code synod cluster}) with eight
 * groups each, so that every node's one log interleaves the records of eight groups and one fsync covers
 * many groups' appends; ten SIGKILLs with restarts while every group commits. An acknowledged append was
 * fsynced before it was acknowledged (the Ready contract, step 1), so it survives each kill in every group;
 * the run's own verdict is cross-checked from the history file it wrote.
 */
class TortureCommandTest {

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void tenKillsWhileEightGroupsCommitLoseNoAcknowledgedAppendAndStayLinearizable(@TempDir Path dir) throws Exception {
        // One run for what were two (10 kills of a 2-group cluster, and 4 kills of an 8-group one): the same
        // command, the same node log, the union of their checks. --seconds only caps the run: 315 s at load 45-50,
        // where restarts took up to 38 s.
        CliRun r = run("torture", "--kills", "10", "--groups", "8", "--keys", "16", "--dir", dir.toString(),
                "--interval-ms", "600", "--session-timeout-ms", "1500", "--clients", "6", "--seed", "7", "--seconds", "480");
        System.out.println(r.out());
        assertEquals(0, r.exitCode(), r.out() + r.err());
        assertTrue(r.out().contains("kills:               10 SIGKILLs"), r.out());
        assertTrue(r.out().contains(", lost 0"), r.out());
        assertTrue(r.out().contains("checker:             LINEARIZABLE"), r.out());
        Matcher ok = Pattern.compile("operations:          ok (\\d+)").matcher(r.out());
        assertTrue(ok.find(), r.out());
        assertTrue(Long.parseLong(ok.group(1)) > 100, "too few operations completed: " + ok.group(1));

        // The exported history is in the documented format and the checker agrees when reading it back.
        History history;
        try (InputStream in = Files.newInputStream(dir.resolve("history.jsonl"))) {
            history = HistoryJson.read(in);
        }
        assertTrue(history.events().stream().map(HistoryEvent::function).distinct().count() == 2, "appends and reads");
        assertEquals(Verdict.LINEARIZABLE, new LinearizabilityChecker().check(history).verdict());
        // Every server process was stopped at the end (the data stays).
        String clusterJson = Files.readString(dir.resolve("cluster").resolve("cluster.json"));
        Matcher pids = Pattern.compile("\"pid\": (\\d+)").matcher(clusterJson);
        while (pids.find()) {
            long pid = Long.parseLong(pids.group(1));
            assertTrue(ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true), "process " + pid + " still runs");
        }
        // The nodes kept one log each, and no group kept a log of its own.
        Path cluster = dir.resolve("cluster");
        for (int node = 0; node < 3; node++) {
            Path data = cluster.resolve("node-" + node).resolve("data");
            try (Stream<Path> s = Files.list(data.resolve("log"))) {
                assertTrue(s.anyMatch(p -> p.getFileName().toString().startsWith("nodelog-")), "node " + node + " has its log");
            }
            for (int g = 0; g < 8; g++) {
                assertFalse(Files.exists(data.resolve("group-" + g).resolve("log")), "node " + node + " group " + g);
            }
        }
    }

    @Test
    void badArgumentsAreOneLineErrors(@TempDir Path dir) {
        CliRun kills = run("torture", "--kills", "0", "--dir", dir.toString());
        assertEquals(BenchCli.EXIT_USAGE, kills.exitCode());
        assertTrue(kills.err().startsWith("error: --kills must be 1..100000, got 0"), kills.err());
        CliRun nodes = run("torture", "--kills", "3", "--nodes", "4", "--dir", dir.toString());
        assertEquals(BenchCli.EXIT_USAGE, nodes.exitCode());
        assertTrue(nodes.err().startsWith("error: --nodes must be 3 or 5, got 4"), nodes.err());
        CliRun missing = run("torture", "--kills", "3");
        assertEquals(BenchCli.EXIT_USAGE, missing.exitCode());
        assertTrue(missing.err().contains("--dir"), missing.err());
    }
}
