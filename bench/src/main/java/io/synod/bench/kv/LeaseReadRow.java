package io.synod.bench.kv;

import io.synod.bench.report.CsvTable;
import io.synod.client.Consistency;
import io.synod.client.GetResult;
import io.synod.client.ServedBy;
import io.synod.client.SynodClient;
import io.synod.coordination.ShardMap;
import io.synod.server.cli.DemoCommand;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntUnaryOperator;

/**
 * The read row of {@code synod bench kv}: on one real 3-node cluster with {@code lease=leader}
 * (LeaseGuard, docs/leases.md), linearizable reads under the leader's lease against reads through
 * the log ({@code Consistency.LOG}, one replication round each), same keys, same load, same run;
 * the ratio is printed next to the target (≥ 10× read throughput, issue 10). Every reply says which
 * path served it, and the row reports the share of each run that took the intended path.
 */
final class LeaseReadRow {
    static final int NODES = 3;
    static final int GROUPS = 4;

    /** What the row measured. */
    record Result(LoadRun.Result log, LoadRun.Result lease, long leaseServedInLog, long logServedInLease,
                  long readsInLeaseRun) {
        double ratio() {
            return lease.opsPerSecond() / log.opsPerSecond();
        }
    }

    private LeaseReadRow() {}

    static Result measure(Path clusterDir, int threads, int window, int keyCount, long warmup, long measure,
            IntUnaryOperator scramble, boolean insecure, PrintWriter out, Consumer<String> progress) throws Exception {
        String[] keys = new String[keyCount];
        List<String> prefixes = new ArrayList<>(DemoCommand.prefixesPerGroup(ShardMap.uniform(GROUPS)).values());
        for (int i = 0; i < keyCount; i++) {
            keys[i] = prefixes.get(i % prefixes.size()) + "kvbench-" + i;
        }
        try (ProcessCluster cluster = ProcessCluster.start(clusterDir, NODES, GROUPS, 4_000, List.of("lease=leader"),
                out, false, insecure);
             SynodClient client = SynodClient.builder().servers(new ArrayList<>(cluster.clientAddresses().values()))
                     .timeout(Duration.ofSeconds(30)).connectTimeout(Duration.ofSeconds(30)).maxInFlight(window)
                     .tls(cluster.clientTls()).build()) {
            progress.accept(String.format("lease reads: %d server processes, %d groups, lease=leader (delta 1000 ms, "
                    + "clock bound 10 ms); writing %d keys of 1 KiB", NODES, GROUPS, keyCount));
            writeKeys(client, keys, window);
            AtomicLong leaseInLog = new AtomicLong();
            LoadRun.Result log = LoadRun.run(threads, window, warmup, measure, i ->
                    count(client.get(keys[scramble.applyAsInt(i)], Consistency.LOG), ServedBy.LEASE, leaseInLog));
            progress.accept(String.format("lease reads: read through the log (Consistency.LOG): %.0f ops/s, p50 %.2f ms, "
                    + "p99 %.2f ms, %d failed", log.opsPerSecond(), log.latency().medianMillis(), log.latency().p99Millis(),
                    log.failed()));
            AtomicLong logInLease = new AtomicLong();
            AtomicLong all = new AtomicLong();
            LoadRun.Result lease = LoadRun.run(threads, window, warmup, measure, i -> {
                all.incrementAndGet();
                return count(client.get(keys[scramble.applyAsInt(i)], Consistency.LINEARIZABLE), ServedBy.LOG, logInLease);
            });
            progress.accept(String.format("lease reads: LINEARIZABLE under the leader lease: %.0f ops/s, p50 %.2f ms, "
                    + "p99 %.2f ms, %d failed, %d of %d answered through the log instead", lease.opsPerSecond(),
                    lease.latency().medianMillis(), lease.latency().p99Millis(), lease.failed(), logInLease.get(), all.get()));
            return new Result(log, lease, leaseInLog.get(), logInLease.get(), all.get());
        }
    }

    /** {@code read}, counting into {@code n} when it was served by {@code path}. */
    /** Puts a random 1 KiB value under every key, at most {@code window} puts in flight, and waits for them all. */
    static void writeKeys(SynodClient client, String[] keys, int window) throws Exception {
        byte[] value = new byte[1024];
        ThreadLocalRandom.current().nextBytes(value);
        List<CompletableFuture<?>> writes = new ArrayList<>();
        for (String key : keys) {
            writes.add(client.put(key, value));
            if (writes.size() >= window) {
                CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                writes.clear();
            }
        }
        CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }

    static CompletableFuture<GetResult> count(CompletableFuture<GetResult> read, ServedBy path, AtomicLong n) {
        return read.whenComplete((r, e) -> {
            if (r != null && r.servedBy() == path) {
                n.incrementAndGet();
            }
        });
    }

    /** Prints the row and its ratio, and writes {@code kv-lease-reads.csv}. */
    static void report(Result r, Path dir, PrintWriter out) throws IOException {
        out.println();
        printComparison(out, "read row (synod-3x4, lease=leader)", "log reads", "lease reads", "lease/log", r.log(), r.lease(), r.ratio());
        out.printf("target: lease read throughput >= 10x log reads: %.2fx, %s (%d of %d lease-run reads went through the "
                + "log)%n", r.ratio(), r.ratio() >= 10 ? "met" : "MISSED", r.logServedInLease(), r.readsInLeaseRun());
        comparisonCsv("log reads", "lease reads", "lease/log", r.log(), r.lease(), r.ratio()).write(dir.resolve("kv-lease-reads.csv"));
        out.flush();
    }

    /** The three rows (throughput, p50, p99) of a read comparison, base run against the other run. */
    static void printComparison(PrintWriter out, String title, String baseName, String otherName, String ratioName,
            LoadRun.Result base, LoadRun.Result other, double ratio) {
        out.printf("%-40s %14s %14s %10s%n", title, baseName, otherName, ratioName);
        out.printf("%-40s %14.0f %14.0f %9.2fx%n", "lin. read 1 KiB (ops/s)", base.opsPerSecond(), other.opsPerSecond(), ratio);
        out.printf("%-40s %14.2f %14.2f %10s%n", "lin. read p50 (ms)", base.latency().medianMillis(),
                other.latency().medianMillis(), "");
        out.printf("%-40s %14.2f %14.2f %10s%n", "lin. read p99 (ms)", base.latency().p99Millis(),
                other.latency().p99Millis(), "");
    }

    /** The same comparison as a CSV table. */
    static CsvTable comparisonCsv(String baseName, String otherName, String ratioName, LoadRun.Result base,
            LoadRun.Result other, double ratio) {
        return new CsvTable("metric", baseName, otherName, ratioName)
                .add("lin. read 1 KiB (ops/s)", String.format("%.2f", base.opsPerSecond()),
                        String.format("%.2f", other.opsPerSecond()), String.format("%.2f", ratio))
                .add("lin. read p50 (ms)", String.format("%.2f", base.latency().medianMillis()),
                        String.format("%.2f", other.latency().medianMillis()), "")
                .add("lin. read p99 (ms)", String.format("%.2f", base.latency().p99Millis()),
                        String.format("%.2f", other.latency().p99Millis()), "");
    }
}
