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
     * A real run, small: 200 records of 512 B on a 3-node cluster of real processes, once with the full log and once
     * compacted. Each row's new replica is a voter caught up in the end (else the run fails), the events come in
     * their order, and each row took the path its log leaves: the log, or a checkpoint.
     */
    @Test
    @Timeout(600)
    void aWipedFollowerRejoinsAndEachRowSaysWhichPathItTook(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        CliRun run = CliRun.of("join", "--records", "200", "--sizes", "512", "--logs", "full,compacted",
                "--timeout-s", "240", "--out", out.toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("PaxStore"), run.out());
        List<String> csv = Files.readAllLines(out.resolve("join.csv"));
        assertEquals(3, csv.size(), String.join("\n", csv));
        List<String> header = List.of(csv.get(0).split(","));
        for (String line : csv.subList(1, 3)) {
            String[] row = line.split(",");
            String log = row[header.indexOf("log")];
            assertEquals(log.equals("full") ? "log" : "checkpoint", row[header.indexOf("learner_got")], line);
            double learner = Double.parseDouble(row[header.indexOf("learner_added_s")]);
            double caughtUp = Double.parseDouble(row[header.indexOf("caught_up_s")]);
            double promoted = Double.parseDouble(row[header.indexOf("promoted_s")]);
            assertTrue(learner <= caughtUp && caughtUp <= promoted, line);
            assertTrue(Double.parseDouble(row[header.indexOf("start_to_request_s")]) > 0, "the request was found: " + line);
        }
        assertTrue(Files.exists(out.resolve("logs").resolve("512-compacted").resolve("node-0.log")));
    }
}
