package io.synod.bench.leases;

import io.synod.bench.BenchCli;
import io.synod.bench.leases.LeaseGuardExperiments.Recovery;
import io.synod.bench.leases.LeaseGuardExperiments.Variant;
import io.synod.bench.leases.LeaseGuardExperiments.WaitReads;
import io.synod.bench.leases.LeaseGuardExperiments.Workload;
import io.synod.bench.report.Charts;
import io.synod.bench.report.CsvTable;
import io.synod.sim.ScenarioResult;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.knowm.xchart.XYChart;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code synod bench leases}: the lease papers' experiments in the seeded simulator. */
@Command(name = "leases",
        header = "The lease papers' experiments (LeaseGuard Fig. 7/8) in the seeded simulator, with verdicts.",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpWidth = BenchCli.HELP_WIDTH,
        description = {"Runs the deterministic simulator (3 replicas, the real replica and LeaderLease code) with",
                "LeaseGuard's parameters: lease 1 s, election timeout 500 ms, a leader crash at 2 s.",
                "Fig. 7: read and write throughput over time after the crash for inconsistent reads, reads",
                "through the log (quorum), the log lease (nothing accepted until the old lease expired),",
                "deferred commit alone, and full LeaseGuard (inherited lease reads).",
                "Fig. 8: reads the new leader serves while it waits for the old lease, vs Zipf skew, with a",
                "limbo region of --limbo entries. Every run also passes the simulator's checks",
                "(linearizability of its whole history). Prints each result next to the paper's claim with a",
                "confirmed/refuted verdict and its rule. Output in --out: leaseguard-fig7.csv,",
                "leaseguard-fig7-summary.csv, leaseguard-fig7.png, leaseguard-fig8.csv, leaseguard-fig8.png,",
                "leases-verdicts.csv. Takes about 1-3 minutes with --quick."})
public final class LeasesCommand implements Callable<Integer> {

    @Option(names = "--quick", description = "One seed per configuration and Zipf skews 0, 0.5, .., 2.")
    boolean quick;

    @Option(names = "--seeds", paramLabel = "N", description = "Seeds per configuration, 1..50 (default 3; --quick: 1).")
    Integer seeds;

    @Option(names = "--variants", paramLabel = "NAME,...", split = ",",
            description = "Fig. 7 variants (default all: inconsistent, quorum, log-lease, deferred-commit, leaseguard).")
    List<String> variantNames;

    @Option(names = "--skews", paramLabel = "S,...", split = ",",
            description = "Fig. 8 Zipf exponents, 0..4 (default 0, 0.25, .., 2; --quick: 0, 0.5, .., 2).")
    List<Double> skews;

    @Option(names = "--keys", paramLabel = "K", defaultValue = "1000", description = "Keys (default ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--limbo", paramLabel = "N", defaultValue = "100",
            description = "Fig. 8: entries in the new leader's limbo region (default ${DEFAULT-VALUE}, as the paper).")
    int limbo;

    @Option(names = "--ql-policies", paramLabel = "NAME,...", split = ",",
            description = "Quorum-lease experiments' policies: quorum-lease, ql-auto, leader-lease, megastore (default all; 'none' skips them).")
    List<String> qlPolicyNames;

    @Option(names = "--ql-seconds", paramLabel = "S",
            description = "Quorum-lease experiments: simulated seconds measured per run after 2 s of warm-up, 1..60 (default 10; --quick: 5).")
    Integer qlSeconds;

    @Option(names = "--out", paramLabel = "DIR", description = "Output directory (default bench-results/leases-<UTC time>).")
    Path outDir;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        int seedCount = seeds != null ? seeds : quick ? 1 : 3;
        if (seedCount < 1 || seedCount > 50) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--seeds must be 1..50, got " + seedCount);
        }
        if (keys < 1 || keys > 1_000_000) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--keys must be 1..1000000, got " + keys);
        }
        if (limbo < 1 || limbo > 1000) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--limbo must be 1..1000, got " + limbo);
        }
        List<Variant> variants = new ArrayList<>();
        if (variantNames == null) {
            variants.addAll(List.of(Variant.values()));
        } else {
            for (String name : variantNames) {
                try {
                    variants.add(variant(name.trim()));
                } catch (IllegalArgumentException e) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--variants: " + e.getMessage());
                }
            }
        }
        List<Double> skewList = skews != null ? skews : LeaseGuardExperiments.zipfSkews(quick);
        for (double s : skewList) {
            if (!(s >= 0 && s <= 4)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--skews values must be 0..4, got " + s);
            }
        }
        Path out = BenchCli.requireWritableDirectory(spec, "--out", outDir != null ? outDir
                : Path.of("bench-results", "leases-" + ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))));
        PrintWriter log = spec.commandLine().getOut();
        log.printf("bench leases: %d seed(s) per configuration, %d keys, lease 1 s, election timeout 500 ms, output %s%n",
                seedCount, keys, out);
        log.flush();
        List<Verdict> verdicts = new ArrayList<>();
        int violations = 0;
        violations += fig7(variants, seedCount, out, log, verdicts);
        violations += fig8(skewList, seedCount, out, log, verdicts);
        violations += quorumLeases(seedCount, out, log, verdicts);

        log.println();
        log.println("verdicts (paper claim | measured | rule | verdict):");
        CsvTable table = new CsvTable("experiment", "claim", "measured", "rule", "verdict");
        for (Verdict verdict : verdicts) {
            log.printf("  %s: %s%n      measured: %s%n      rule: %s%n      => %s%n", verdict.experiment(), verdict.claim(),
                    verdict.measured(), verdict.rule(), verdict.confirmed() ? "CONFIRMED" : "REFUTED");
            table.add(verdict.experiment(), verdict.claim(), verdict.measured(), verdict.rule(),
                    verdict.confirmed() ? "confirmed" : "refuted");
        }
        table.write(out.resolve("leases-verdicts.csv"));
        log.printf("%nsimulator checks: %d run(s) with violations (only the inconsistent variant may have any)%n", violations);
        log.println("wrote " + out);
        log.flush();
        return 0;
    }

    record Verdict(String experiment, String claim, String measured, String rule, boolean confirmed) {}

    private static Variant variant(String name) {
        for (Variant v : Variant.values()) {
            if (v.name.equals(name.toLowerCase(Locale.ROOT))) {
                return v;
            }
        }
        throw new IllegalArgumentException("unknown variant '" + name + "' (expected inconsistent, quorum, log-lease, deferred-commit, leaseguard)");
    }

    /** Fig. 7; returns the number of runs with simulator violations outside the inconsistent variant. */
    private int fig7(List<Variant> variants, int seedCount, Path out, PrintWriter log, List<Verdict> verdicts) throws Exception {
        log.println();
        log.println("LeaseGuard Fig. 7: availability after a leader crash (lease 1 s, election timeout 500 ms)");
        CsvTable timeline = new CsvTable("variant", "seed", "t_ms_after_crash", "reads_per_s", "writes_per_s");
        CsvTable summary = new CsvTable("variant", "seeds", "read_recovery_ms", "write_recovery_ms", "write_peak_x_before",
                "reads_per_s_before", "writes_per_s_before", "runs_with_violations");
        Workload workload = new Workload(keys, 0, 0);
        Map<Variant, double[][]> mean = new LinkedHashMap<>();
        Map<Variant, Recovery[]> recoveries = new LinkedHashMap<>();
        int badRuns = 0;
        for (Variant variant : variants) {
            double[][] sum = null;
            int violating = 0;
            for (int seed = 1; seed <= seedCount; seed++) {
                long start = System.nanoTime();
                ScenarioResult run = LeaseGuardExperiments.run(variant, seed, workload);
                double[][] perSecond = LeaseGuardExperiments.timeline(run);
                if (sum == null) {
                    sum = new double[2][perSecond[0].length];
                }
                for (int i = 0; i < perSecond[0].length; i++) {
                    sum[0][i] += perSecond[0][i] / seedCount;
                    sum[1][i] += perSecond[1][i] / seedCount;
                    timeline.add(variant.name, seed, time(i), fmt(perSecond[0][i]), fmt(perSecond[1][i]));
                }
                if (!run.result().passed()) {
                    violating++;
                }
                log.printf("  fig7 %-16s seed %d: %d ops (%d ok), crash of node %d at %.3f s, %s, %.1f s%n", variant.name, seed,
                        run.result().operations(), run.result().okOperations(), run.crashedNode(), run.crashNanos() / 1e9,
                        run.result().passed() ? "checks passed" : "VIOLATION " + run.result().violations().get(0).kind(),
                        (System.nanoTime() - start) / 1e9);
                log.flush();
            }
            if (variant != Variant.INCONSISTENT) {
                badRuns += violating;
            }
            mean.put(variant, sum);
            Recovery reads = LeaseGuardExperiments.recovery(sum[0]);
            Recovery writes = LeaseGuardExperiments.recovery(sum[1]);
            recoveries.put(variant, new Recovery[] {reads, writes});
            summary.add(variant.name, seedCount, fmt(reads.recoveryMillis()), fmt(writes.recoveryMillis()), fmt(writes.peakRatio()),
                    fmt(reads.beforePerSecond()), fmt(writes.beforePerSecond()), violating);
            log.printf("  fig7 %-16s reads back to half their rate %s ms after the crash, writes %s ms; write peak %.1fx the rate before%n",
                    variant.name, fmt(reads.recoveryMillis()), fmt(writes.recoveryMillis()), writes.peakRatio());
        }
        timeline.write(out.resolve("leaseguard-fig7.csv"));
        summary.write(out.resolve("leaseguard-fig7-summary.csv"));
        List<XYChart> charts = new ArrayList<>();
        for (int kind = 0; kind < 2; kind++) {
            List<Charts.Series> series = new ArrayList<>();
            for (Map.Entry<Variant, double[][]> entry : mean.entrySet()) {
                double[] y = entry.getValue()[kind];
                double[] x = new double[y.length];
                for (int i = 0; i < y.length; i++) {
                    x[i] = time(i);
                }
                series.add(new Charts.Series(entry.getKey().name, x, y));
            }
            charts.add(Charts.lines("LeaseGuard Fig. 7: " + (kind == 0 ? "reads" : "writes") + " after a leader crash at t=0",
                    "ms after the crash", (kind == 0 ? "reads" : "writes") + " ok per s", series));
        }
        Charts.savePngGrid(charts, 2, out.resolve("leaseguard-fig7.png"));

        double et = LeaseGuardExperiments.ELECTION_TIMEOUT_NANOS / 1e6;
        double delta = LeaseGuardExperiments.LEASE_NANOS / 1e6;
        double slack = 250;
        List<String> fast = new ArrayList<>();
        boolean fastOk = true;
        for (Variant v : List.of(Variant.INCONSISTENT, Variant.QUORUM)) {
            Recovery[] r = recoveries.get(v);
            if (r != null) {
                fast.add(v.name + " reads " + fmt(r[0].recoveryMillis()) + " ms, writes " + fmt(r[1].recoveryMillis()) + " ms");
                fastOk &= r[0].recoveryMillis() <= et + slack && r[1].recoveryMillis() <= et + slack;
            }
        }
        if (!fast.isEmpty()) {
            verdicts.add(new Verdict("Fig. 7", "without leases (inconsistent, quorum) reads and writes resume as soon as a new leader is elected",
                    String.join("; ", fast), "both recover within election timeout + " + (int) slack + " ms (" + (int) (et + slack) + " ms)", fastOk));
        }
        List<String> wait = new ArrayList<>();
        boolean waitOk = true;
        boolean burstOk = true;
        List<String> bursts = new ArrayList<>();
        for (Variant v : List.of(Variant.DEFERRED_COMMIT, Variant.LEASEGUARD)) {
            Recovery[] r = recoveries.get(v);
            if (r != null) {
                wait.add(v.name + " writes " + fmt(r[1].recoveryMillis()) + " ms");
                waitOk &= r[1].recoveryMillis() >= delta - 100 && r[1].recoveryMillis() <= delta + 300;
                bursts.add(v.name + " peak " + fmt(r[1].peakRatio()) + "x");
                burstOk &= r[1].peakRatio() >= 2;
            }
        }
        if (!wait.isEmpty()) {
            verdicts.add(new Verdict("Fig. 7", "with leases, writes wait until the old leader's lease expires (about Δ = 1 s after its last entry)",
                    String.join("; ", wait), "write recovery within [Δ - 100 ms, Δ + 300 ms] after the crash", waitOk));
            verdicts.add(new Verdict("Fig. 7", "deferred commit (§3.2) acknowledges the writes accepted during the wait at once",
                    String.join("; ", bursts), "peak write rate after the crash >= 2x the rate before", burstOk));
        }
        Recovery[] lg = recoveries.get(Variant.LEASEGUARD);
        Recovery[] dc = recoveries.get(Variant.DEFERRED_COMMIT);
        Recovery[] ll = recoveries.get(Variant.LOG_LEASE);
        if (ll != null) {
            boolean waits = ll[0].recoveryMillis() >= delta - 100 && ll[1].recoveryMillis() >= delta - 100
                    && ll[1].recoveryMillis() <= delta + 300;
            verdicts.add(new Verdict("Fig. 7", "with a log lease the new leader serves neither reads nor writes until the old lease expires",
                    "log-lease reads " + fmt(ll[0].recoveryMillis()) + " ms, writes " + fmt(ll[1].recoveryMillis()) + " ms",
                    "reads and writes recover no earlier than Δ - 100 ms, writes by Δ + 300 ms", waits));
            if (dc != null || lg != null) {
                Recovery[] deferred = dc != null ? dc : lg;
                String name = dc != null ? Variant.DEFERRED_COMMIT.name : Variant.LEASEGUARD.name;
                verdicts.add(new Verdict("Fig. 7", "deferred commit (§3.2) restores write throughput faster than the log lease (the backlog commits at once)",
                        "write peak after the crash: " + name + " " + fmt(deferred[1].peakRatio()) + "x, log-lease " + fmt(ll[1].peakRatio())
                                + "x the rate before",
                        name + "'s peak > log-lease's peak", deferred[1].peakRatio() > ll[1].peakRatio()));
            }
        }
        if (lg != null) {
            boolean ok = lg[0].recoveryMillis() <= et + slack && (dc == null || dc[0].recoveryMillis() >= delta - 100);
            verdicts.add(new Verdict("Fig. 7", "inherited lease reads (§3.3) bring reads back with the election, before the old lease expires",
                    "leaseguard reads " + fmt(lg[0].recoveryMillis()) + " ms" + (dc == null ? "" : "; deferred-commit reads "
                            + fmt(dc[0].recoveryMillis()) + " ms"),
                    "leaseguard reads recover within election timeout + " + (int) slack + " ms"
                            + (dc == null ? "" : ", deferred commit alone not before Δ - 100 ms"), ok));
        }
        return badRuns;
    }

    /** Fig. 8; returns the number of runs with simulator violations. */
    private int fig8(List<Double> skewList, int seedCount, Path out, PrintWriter log, List<Verdict> verdicts) throws Exception {
        if (skewList.isEmpty()) {
            return 0;
        }
        log.println();
        log.printf("LeaseGuard Fig. 8: reads served by the new leader while it waits for the old lease, %d limbo entries, %d keys%n",
                limbo, keys);
        CsvTable table = new CsvTable("zipf", "seed", "limbo_entries", "wait_ms", "reads_served", "reads_per_s_during_wait",
                "reads_per_s_before_crash", "checks");
        double[] x = new double[skewList.size()];
        double[] meanRate = new double[skewList.size()];
        double[] meanBefore = new double[skewList.size()];
        int badRuns = 0;
        for (int k = 0; k < skewList.size(); k++) {
            double skew = skewList.get(k);
            x[k] = skew;
            for (int seed = 1; seed <= seedCount; seed++) {
                long start = System.nanoTime();
                ScenarioResult run = LeaseGuardExperiments.run(Variant.LEASEGUARD, seed, new Workload(keys, skew, limbo));
                WaitReads reads = LeaseGuardExperiments.waitReads(run);
                boolean passed = run.result().passed();
                if (!passed) {
                    badRuns++;
                }
                meanRate[k] += reads.readsPerSecond() / seedCount;
                meanBefore[k] += reads.beforeReadsPerSecond() / seedCount;
                table.add(fmt(skew), seed, reads.limbo(), fmt(reads.waitMillis()), reads.readsServed(), fmt(reads.readsPerSecond()),
                        fmt(reads.beforeReadsPerSecond()), passed ? "passed" : run.result().violations().get(0).kind());
                log.printf("  fig8 zipf %.2f seed %d: limbo %d entries, wait %s ms, %d reads served (%s/s; %s/s before the crash), %s, %.1f s%n",
                        skew, seed, reads.limbo(), fmt(reads.waitMillis()), reads.readsServed(), fmt(reads.readsPerSecond()),
                        fmt(reads.beforeReadsPerSecond()), passed ? "checks passed" : "VIOLATION " + run.result().violations().get(0).kind(),
                        (System.nanoTime() - start) / 1e9);
                log.flush();
            }
        }
        table.write(out.resolve("leaseguard-fig8.csv"));
        XYChart chart = Charts.lines("LeaseGuard Fig. 8: new leader's reads during the lease wait (" + limbo + " limbo entries)",
                "Zipf exponent", "reads ok per s", List.of(new Charts.Series("inherited lease reads during the wait", x, meanRate),
                        new Charts.Series("all reads before the crash", x, meanBefore)));
        Charts.savePng(chart, out.resolve("leaseguard-fig8.png"));
        if (skewList.size() >= 2) {
            int lo = 0;
            int hi = 0;
            for (int k = 0; k < x.length; k++) {
                lo = x[k] < x[lo] ? k : lo;
                hi = x[k] > x[hi] ? k : hi;
            }
            boolean monotone = true;
            for (int a = 0; a < x.length; a++) {
                for (int b = 0; b < x.length; b++) {
                    if (x[a] < x[b] && meanRate[b] > meanRate[a] * 1.10 + 1) {
                        monotone = false;
                    }
                }
            }
            boolean falls = meanRate[hi] <= 0.8 * meanRate[lo];
            StringBuilder measured = new StringBuilder();
            for (int k = 0; k < x.length; k++) {
                measured.append(k == 0 ? "" : ", ").append("s=").append(fmt(x[k])).append(": ").append(fmt(meanRate[k])).append("/s");
            }
            verdicts.add(new Verdict("Fig. 8", "inherited reads serve most reads at low skew and fewer as skew rises (more reads hit the "
                    + limbo + " limbo keys)", measured.toString(),
                    "rate at the highest skew <= 80% of the rate at the lowest, and no higher skew more than 10% above a lower one",
                    falls && monotone));
        }
        return badRuns;
    }

    /** Quorum leases paper Fig. 6 (1:1) and Table 2 (9:1); returns the number of runs with simulator violations. */
    private int quorumLeases(int seedCount, Path out, PrintWriter log, List<Verdict> verdicts) throws Exception {
        List<QuorumLeaseExperiments.Policy> policies = new ArrayList<>();
        if (qlPolicyNames == null) {
            policies.addAll(List.of(QuorumLeaseExperiments.Policy.values()));
        } else if (!(qlPolicyNames.size() == 1 && qlPolicyNames.get(0).equals("none"))) {
            for (String name : qlPolicyNames) {
                QuorumLeaseExperiments.Policy found = null;
                for (QuorumLeaseExperiments.Policy p : QuorumLeaseExperiments.Policy.values()) {
                    found = p.name.equals(name.trim()) ? p : found;
                }
                if (found == null) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--ql-policies: unknown policy '" + name
                            + "' (expected quorum-lease, ql-auto, leader-lease, megastore or none)");
                }
                policies.add(found);
            }
        }
        if (policies.isEmpty()) {
            return 0;
        }
        int seconds = qlSeconds != null ? qlSeconds : quick ? 5 : 10;
        if (seconds < 1 || seconds > 60) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--ql-seconds must be 1..60, got " + seconds);
        }
        return QuorumLeaseFig6Table2.run(policies, seedCount, keys, seconds, out, log, verdicts);
    }

    private static double time(int bucket) {
        return (bucket * LeaseGuardExperiments.BUCKET_NANOS - LeaseGuardExperiments.WINDOW_BEFORE_NANOS) / 1e6;
    }

    static String fmt(double value) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : String.format(Locale.ROOT, "%.1f", value);
    }
}
