package io.synod.bench.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short torture run of {@code ./mvnw verify}: real server processes ({@code synod cluster}), ten
 * SIGKILLs with restarts, and the run's own verdict cross-checked from the history file it wrote.
 */
class TortureCommandTest {

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void tenKillsLoseNoAcknowledgedAppendAndStayLinearizable(@TempDir Path dir) throws Exception {
        CliRun r = run("torture", "--kills", "10", "--dir", dir.toString(), "--interval-ms", "600", "--session-timeout-ms", "1500",
                "--clients", "4", "--seed", "7", "--seconds", "300");
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
