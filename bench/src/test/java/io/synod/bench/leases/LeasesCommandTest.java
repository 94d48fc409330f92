package io.synod.bench.leases;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.bench.BenchCli;
import io.synod.leases.QuorumLease;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A tiny real run of {@code bench leases} (one seed, two Fig. 7 variants, two Fig. 8 skews): checks the
 * output's shape (files, rows, a verdict per claim) and that every run passed the simulator's checks
 * (linearizability of its whole history); not the verdicts themselves, which are measurements. Fig. 8 runs
 * at Zipf 0 and 2: the Zipf >= 1.5 runs used to fail the end-of-seed liveness check when the seed drew tiny
 * snapshot chunks (the restarted old leader could not fetch the large snapshot in time); the experiments
 * now run on a fixed LAN environment (docs/leases.md).
 */
class LeasesCommandTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(600)
    void aTinyRunWritesEveryFileAndAVerdictPerClaim() throws Exception {
        CommandLine cli = BenchCli.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute("leases", "--seeds", "1", "--variants", "quorum,leaseguard", "--skews", "0,2", "--keys", "200",
                "--ql-policies", "quorum-lease", "--ql-seconds", "1",
                "--out", dir.toString());
        String text = out.toString();
        assertEquals(0, exit, text + err);
        assertTrue(text.contains("LeaseGuard Fig. 7"), text);
        assertTrue(text.contains("LeaseGuard Fig. 8"), text);
        assertTrue(text.contains("simulator checks: 0 run(s) with violations"), text);

        List<String> summary = Files.readAllLines(dir.resolve("leaseguard-fig7-summary.csv"));
        assertEquals(3, summary.size(), summary.toString());
        assertTrue(summary.get(1).startsWith("quorum,1,"), summary.toString());
        assertTrue(summary.get(2).startsWith("leaseguard,1,"), summary.toString());
        List<String> timeline = Files.readAllLines(dir.resolve("leaseguard-fig7.csv"));
        // 3 s of 50 ms buckets per variant and seed.
        assertEquals(1 + 2 * 60, timeline.size());
        List<String> fig8 = Files.readAllLines(dir.resolve("leaseguard-fig8.csv"));
        assertEquals(3, fig8.size(), fig8.toString());
        for (String row : fig8.subList(1, 3)) {
            assertTrue(row.endsWith(",passed"), row);
        }
        List<String> verdicts = Files.readAllLines(dir.resolve("leases-verdicts.csv"));
        // quorum -> one claim; leaseguard -> wait, burst, inherited reads; Fig. 8 -> one; quorum leases alone -> Table 2, Fig. 7.
        assertEquals(1 + 7, verdicts.size(), verdicts.toString());
        for (String row : verdicts.subList(1, verdicts.size())) {
            assertTrue(row.endsWith(",confirmed") || row.endsWith(",refuted"), row);
        }
        assertEquals(7, text.split("=> (CONFIRMED|REFUTED)", -1).length - 1, text);
        assertTrue(text.contains("goal beyond the paper"), text);
        List<String> latency = Files.readAllLines(dir.resolve("quorumleases-latency.csv"));
        // one policy x two read shares x five sites x reads and writes
        assertEquals(1 + 2 * 5 * 2, latency.size(), latency.toString());
        List<String> table2 = Files.readAllLines(dir.resolve("quorumleases-table2.csv"));
        assertEquals(1 + 5, table2.size(), table2.toString());
        // five sites x every local-read decision the lease can make, and every site's own reads were decided at least once
        List<String> decisions = Files.readAllLines(dir.resolve("quorumleases-read-decisions.csv"));
        assertEquals(1 + 5 * QuorumLease.ReadDecision.values().length, decisions.size(), decisions.toString());
        for (String site : List.of("JP", "CA", "OR", "VA", "IE")) {
            assertTrue(decisions.stream().anyMatch(row -> row.startsWith(site + ",served,") && !row.startsWith(site + ",served,0,")),
                    decisions.toString());
        }
        assertTrue(text.contains("writes at their KEY's minimum latency"), text);
        assertTrue(Files.size(dir.resolve("quorumleases-fig6.png")) > 1000);
        // Quorum leases Fig. 7: 7 s of 250 ms buckets for the one policy and seed.
        assertEquals(1 + 28, Files.readAllLines(dir.resolve("quorumleases-fig7.csv")).size());
        assertTrue(Files.size(dir.resolve("quorumleases-fig7.png")) > 1000);
        assertTrue(Files.size(dir.resolve("leaseguard-fig7.png")) > 1000);
        assertTrue(Files.size(dir.resolve("leaseguard-fig8.png")) > 1000);
    }

    @Test
    void anUnknownVariantIsABadArgument() {
        CommandLine cli = BenchCli.commandLine();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(new StringWriter(), true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute("leases", "--variants", "nolease", "--out", dir.toString());
        assertEquals(BenchCli.EXIT_USAGE, exit, err.toString());
        assertTrue(err.toString().contains("unknown variant 'nolease'"), err.toString());
    }
}
