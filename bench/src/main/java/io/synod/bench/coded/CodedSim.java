package io.synod.bench.coded;

import io.synod.bench.report.CsvTable;
import io.synod.sim.CodedThroughput;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code synod bench coded --sim}: the RS-Paxos throughput comparison in the deterministic simulator
 * ({@link CodedThroughput}: the replicas' own code, links with a bandwidth model), full copies and
 * coded (5, 1, 3) with the same seed per value size, printed as a table and written to coded-sim.csv.
 */
final class CodedSim {
    private CodedSim() {}

    static void run(List<Integer> sizesBytes, long bitsPerSecond, int rttMillis, int jitterMillis, int clients, int warmupSeconds,
            int measuredSeconds, long seed, Path out, PrintWriter print) throws IOException {
        CsvTable csv = new CsvTable("value_bytes", "full_writes_per_s", "coded_writes_per_s", "throughput_ratio",
                "full_peer_bytes_per_write", "coded_peer_bytes_per_write", "byte_ratio", "full_busiest_link_bytes_per_write",
                "coded_busiest_link_bytes_per_write", "full_mean_latency_ms", "coded_mean_latency_ms", "converged");
        print.println(CodedThroughput.HEADER);
        print.flush();
        for (int size : sizesBytes) {
            CodedThroughput.Params params = new CodedThroughput.Params(5, 1, 3, size, bitsPerSecond, rttMillis * 1_000_000L,
                    jitterMillis * 1_000_000L, clients, warmupSeconds * 1_000_000_000L, measuredSeconds * 1_000_000_000L, seed);
            long started = System.nanoTime();
            CodedThroughput.Row row = CodedThroughput.measure(params);
            boolean converged = row.full().converged() && row.coded().converged();
            print.println(row.format() + (converged ? "" : " (NOT converged after the drain)")
                    + String.format(" %.0f s", (System.nanoTime() - started) / 1e9));
            print.flush();
            csv.add(size, row.full().writesPerSecond(), row.coded().writesPerSecond(), row.throughputRatio(),
                    row.full().peerBytesPerWrite(), row.coded().peerBytesPerWrite(), row.byteRatio(),
                    row.full().busiestLinkBytesPerWrite(), row.coded().busiestLinkBytesPerWrite(),
                    row.full().meanLatencyNanos() / 1e6, row.coded().meanLatencyNanos() / 1e6, converged);
        }
        Path file = out.resolve("coded-sim.csv");
        csv.write(file);
        print.println("wrote " + file);
        print.flush();
    }
}
