package io.synod.bench.coded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.bench.BenchCli;
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
 * A short real run of {@code bench coded}: both modes on real servers through capped proxies. Asserts
 * what holds regardless of machine load: writes were acknowledged in both modes, the files exist,
 * and coded writes move at most half the peer-link bytes of full copies. Each follower gets a third of
 * a 64 KiB value in the Accept (RS-Paxos, Mu et al. 2014, §4) and, with deferred follower rebuild (the
 * servers' default, docs/erasure.md), applies it from its header without a recovery read, while the
 * full-copy baseline moves about 4 values per write: about 1/X = 0.33 plus metadata (0.334 measured
 * by {@code bench coded --quick}). The bench writes every key once and reads none, and no snapshot falls
 * within the run, so no deferred value is rebuilt here. No throughput ratio is asserted. Each run also reports
 * its costs (process CPU, the leader's threads, GC, the leader's link use against the cap; {@link RunCosts}).
 */
class CodedBenchTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void aShortRunWritesBothModesAndCodedMovesFewerBytes() throws Exception {
        CommandLine cli = BenchCli.commandLine();
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute("coded", "--sizes", "64", "--seconds", "2", "--clients", "4", "--bandwidth-mbit", "200",
                "--rtt-ms", "2", "--jitter-ms", "0", "--failover-kib", "64", "--out", dir.toString());
        assertEquals(0, exit, out + "\nstderr:\n" + err);
        assertTrue(out.toString().contains("coded vs full copies"), out.toString());
        List<String> rows = Files.readAllLines(dir.resolve("coded-runs.csv"));
        assertEquals(3, rows.size(), rows.toString());
        String[] header = rows.get(0).split(",");
        assertEquals("process_cpu_cores", header[10], rows.get(0));
        assertEquals("leader_link_use_max", header[17], rows.get(0));
        for (String row : rows.subList(1, 3)) {
            String[] cells = row.split(",");
            assertTrue(Long.parseLong(cells[2]) > 0, "writes acknowledged: " + row);
            // The run's own costs: the JVM burnt CPU, and the leader's links carried the accepts, within their cap
            // (the proxies serialize at it; a little above it if the window cut a chunk's accounting).
            assertTrue(Double.parseDouble(cells[10]) > 0, "process CPU measured: " + row);
            double leaderLinkUse = Double.parseDouble(cells[17]);
            assertTrue(leaderLinkUse > 0 && leaderLinkUse < 1.1, "leader link use as a fraction of the cap: " + row);
        }
        assertTrue(out.toString().contains("leader->follower links"), out.toString());
        String[] ratio = Files.readAllLines(dir.resolve("coded-ratios.csv")).get(1).split(",");
        double byteRatio = Double.parseDouble(ratio[6]);
        assertTrue(byteRatio <= 0.50, "coded moves at most half the peer bytes per write of full copies: " + byteRatio);
        assertTrue(Files.size(dir.resolve("coded.png")) > 1000);
        List<String> failover = Files.readAllLines(dir.resolve("coded-failover.csv"));
        assertEquals(3, failover.size(), "a fail-over per mode: " + failover);
        for (String row : failover.subList(1, 3)) {
            assertTrue(Double.parseDouble(row.split(",")[2]) > 0, row);
        }
    }
}
