package io.synod.bench.locks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole harness on a one-server ensemble with a tiny profile: every experiment runs, every lock
 * request completes with mutual exclusion intact, and the CSV, PNG and findings files appear.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LockExperimentsTest {

    private static Profile tiny() {
        return new Profile("tiny",
                List.of(0), 5, 4,
                List.of(0, 10), List.of(0), 5,
                List.of(0, 10), List.of(0),
                10, List.of(0),
                10, 0, 20,
                List.of(1, 5),
                List.of(0, 10),
                20, 1,
                20, 5,
                6, Duration.ofSeconds(20), Duration.ofSeconds(30));
    }

    @Test
    void tinyProfileRunsEveryExperimentAndWritesCsvPngAndFindings(@TempDir Path outDir) throws Exception {
        StringWriter printed = new StringWriter();
        LockExperiments.Config config = new LockExperiments.Config(tiny(), outDir, 1, EnumSet.allOf(Experiment.class),
                7, 3, false, new RecipesLocks());
        List<Findings.Finding> findings = new LockExperiments(config, new PrintWriter(printed, true)).run();

        String output = printed.toString();
        assertTrue(output.contains("lock-grid point 2/2"), output);
        assertTrue(output.contains("Findings of \"The Cost of Consensus\""), output);
        assertEquals(List.of("F1", "F2", "F3", "F4", "A", "check"), findings.stream().map(Findings.Finding::id).toList());
        assertTrue(output.contains("Adaptive lock vs the best fixed primitive at each point"), output);
        for (LockPrimitive primitive : LockPrimitive.values()) {
            assertTrue(output.contains(primitive.label()), "no run of " + primitive.label());
        }
        assertEquals(Findings.Verdict.CONFIRMED,
                findings.stream().filter(f -> f.id().equals("check")).findFirst().orElseThrow().verdict(),
                "a lock run saw two holders at once");
        for (String file : List.of("fig07-baseline.csv", "fig07-baseline.png", "fig08-09-create-grid.csv",
                "fig08-async-create-heatmap.png", "fig09-sync-create-heatmap.png", "fig10-lock-grid.csv",
                "fig10-lock-grid-median.png", "fig10-lock-grid-mean.png", "fig10-lock-grid-p99.png", "fig11-server-rtt.csv", "fig11-server-rtt.png",
                "fig13-contention-high-rtt.csv", "fig13-contention-high-rtt.png", "fig14-contention-low-rtt.csv",
                "fig14-contention-low-rtt.png", "fig15-low-contention-rtt.csv", "fig15-low-contention-rtt.png",
                "fig16-high-contention-rtt.csv", "fig16-high-contention-rtt.png", "lock-runs.csv", "lock-requests.csv",
                "findings.csv", "findings.md", "adaptive-vs-best.csv")) {
            Path path = outDir.resolve(file);
            assertTrue(Files.size(path) > 0, file + " missing or empty");
            if (file.endsWith(".png")) {
                byte[] header = Files.readAllBytes(path);
                assertEquals((byte) 0x89, header[0], file + " is not a PNG");
                assertEquals('P', header[1], file + " is not a PNG");
            }
        }
        // Every lock request of every run completed (no timeouts or errors on an undelayed one-server ensemble).
        List<String> runs = Files.readAllLines(outDir.resolve("lock-runs.csv"));
        List<String> header = List.of(runs.get(0).split(","));
        int completed = header.indexOf("completed");
        int requests = header.indexOf("requests");
        int violations = header.indexOf("exclusion_violations");
        for (String row : runs.subList(1, runs.size())) {
            String[] cells = row.split(",");
            assertEquals(cells[requests], cells[completed], row);
            assertEquals("0", cells[violations], row);
        }
    }
}
