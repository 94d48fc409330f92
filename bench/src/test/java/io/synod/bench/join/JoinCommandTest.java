package io.synod.bench.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.bench.BenchCli;
import io.synod.bench.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class JoinCommandTest {

    @Test
    void badArgumentsAreOneLineErrors(@TempDir Path dir) {
        CliRun records = CliRun.of("join", "--records", "5", "--out", dir.toString());
        assertEquals(BenchCli.EXIT_USAGE, records.exitCode());
        assertTrue(records.err().startsWith("error: --records must be 10..1000000, got 5"), records.err());
        CliRun logs = CliRun.of("join", "--logs", "snapshot", "--out", dir.toString());
        assertEquals(BenchCli.EXIT_USAGE, logs.exitCode());
        assertTrue(logs.err().startsWith("error: --logs takes full and/or compacted, got 'snapshot'"), logs.err());
        CliRun help = CliRun.of("join", "--help");
        assertEquals(0, help.exitCode());
        assertTrue(help.out().contains("--records") && help.out().contains("--logs") && help.out().contains("--quick"),
                help.out());
    }

    /**
     * A real run, small: 100 records of 512 B on a 3-node cluster of real processes, the log compacted, so the new
     * replica gets a checkpoint (streamed in a window of chunks) and then the log above it: both transfers in one row.
     * (One row, not one per kind of log: each row starts a cluster of three JVMs, most of this test's time. Catch-up
     * through the log alone is checked by core's {@code CatchUpScenarioTest} and the simulator; the "full" rows are
     * the bench's own.) The new replica is a voter caught up in
     * the end (else the run fails), the events come in their order, the split is read from the servers' log lines, and
     * the row says which path it took.
     */
    @Test
    @Timeout(600)
    void aWipedFollowerRejoinsAndTheRowSaysWhichPathItTookAndWhereTheTimeWent(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        CliRun run = CliRun.of("join", "--records", "100", "--sizes", "512", "--logs", "compacted",
                "--timeout-s", "240", "--out", out.toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("PaxStore"), run.out());
        List<String> csv = Files.readAllLines(out.resolve("join.csv"));
        assertEquals(2, csv.size(), String.join("\n", csv));
        List<String> header = List.of(csv.get(0).split(","));
        String line = csv.get(1);
        String[] row = line.split(",");
        assertEquals("checkpoint", row[header.indexOf("learner_got")], line);
        double opened = Double.parseDouble(row[header.indexOf("storage_opened_s")]);
        double peerPort = Double.parseDouble(row[header.indexOf("peer_port_s")]);
        double learner = Double.parseDouble(row[header.indexOf("learner_added_s")]);
        double firstApplied = Double.parseDouble(row[header.indexOf("first_applied_s")]);
        double caughtUp = Double.parseDouble(row[header.indexOf("caught_up_s")]);
        double promoted = Double.parseDouble(row[header.indexOf("promoted_s")]);
        assertTrue(0 <= opened && opened <= peerPort && peerPort <= firstApplied, "the node's start, then its data: " + line);
        assertTrue(learner <= firstApplied && firstApplied <= caughtUp && caughtUp <= promoted, line);
        assertTrue(Double.parseDouble(row[header.indexOf("start_to_request_s")]) > 0, "the request was found: " + line);
        assertTrue(Files.exists(out.resolve("logs").resolve("512-compacted").resolve("node-0.log")));
    }
}
