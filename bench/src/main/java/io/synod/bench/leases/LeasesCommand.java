package io.synod.bench.leases;

import io.synod.bench.BenchCli;
import io.synod.bench.leases.LeaseGuardExperiments.Recovery;
import io.synod.bench.leases.LeaseGuardExperiments.Variant;
import io.synod.bench.leases.LeaseGuardExperiments.WaitReads;
import io.synod.bench.leases.LeaseGuardExperiments.Workload;
import io.synod.bench.report.Charts;
import io.synod.bench.report.CsvTable;
import io.synod.core.sim.ScenarioResult;
import io.synod.leases.QuorumLease;
import java.io.IOException;
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
        List<String> sites = QuorumLeaseExperiments.SITES.sites();
        log.println();
        log.printf("Quorum leases (Moraru SoCC 2014): 5 sites %s, RTTs %s, leader %s, %d clients per site, Zipf %.2f per-site,"
                + " %d keys, %d s measured per run%n", sites, QuorumLeaseExperiments.SITES.toText(), sites.get(QuorumLeaseExperiments.LEADER),
                QuorumLeaseExperiments.CLIENTS_PER_SITE, QuorumLeaseExperiments.ZIPF, keys, seconds);
        CsvTable cdf = new CsvTable("policy", "reads_percent", "site", "kind", "ops", "p10_ms", "p25_ms", "p50_ms", "p75_ms", "p90_ms",
                "p99_ms", "below_10ms_percent", "at_min_write_latency_percent");
        int badRuns = 0;
        // [policy][ratio 0 = 1:1, 1 = 9:1][site][kind 0 read 1 write] -> sorted latencies over seeds
        double[][][][][] all = new double[policies.size()][2][sites.size()][2][];
        // [policy][ratio] -> pooled local-read decisions; [policy][ratio][site] -> {writes at their key's minimum, writes}
        QuorumLeaseExperiments.ReadBreakdown[][] breakdowns = new QuorumLeaseExperiments.ReadBreakdown[policies.size()][2];
        long[][][][] keyMinimum = new long[policies.size()][2][sites.size()][2];
        int[] readPercents = {50, 90};
        for (int p = 0; p < policies.size(); p++) {
            for (int r = 0; r < 2; r++) {
                List<List<List<Double>>> pooled = new ArrayList<>();
                for (int site = 0; site < sites.size(); site++) {
                    pooled.add(List.of(new ArrayList<>(), new ArrayList<>()));
                }
                breakdowns[p][r] = new QuorumLeaseExperiments.ReadBreakdown();
                for (int seed = 1; seed <= seedCount; seed++) {
                    long start = System.nanoTime();
                    ScenarioResult run = QuorumLeaseExperiments.run(policies.get(p), seed, keys, readPercents[r], seconds * 1_000_000_000L,
                            breakdowns[p][r]);
                    if (!run.result().passed()) {
                        badRuns++;
                    }
                    for (int site = 0; site < sites.size(); site++) {
                        long[] atMin = QuorumLeaseExperiments.writesAtKeyMinimum(run, site,
                                QuorumLeaseExperiments.holders(policies.get(p), seed, keys));
                        keyMinimum[p][r][site][0] += atMin[0];
                        keyMinimum[p][r][site][1] += atMin[1];
                    }
                    for (int site = 0; site < sites.size(); site++) {
                        for (int kind = 0; kind < 2; kind++) {
                            for (double v : QuorumLeaseExperiments.latencies(run, site, kind == 1)) {
                                pooled.get(site).get(kind).add(v);
                            }
                        }
                    }
                    log.printf("  ql %-13s %d%% reads seed %d: %d ops (%d ok), %d local reads, %s, %.1f s%n", policies.get(p).name,
                            readPercents[r], seed, run.result().operations(), run.result().okOperations(), run.result().localReads(),
                            run.result().passed() ? "checks passed" : "VIOLATION " + run.result().violations().get(0),
                            (System.nanoTime() - start) / 1e9);
                    log.flush();
                }
                for (int site = 0; site < sites.size(); site++) {
                    for (int kind = 0; kind < 2; kind++) {
                        double[] sorted = pooled.get(site).get(kind).stream().mapToDouble(Double::doubleValue).sorted().toArray();
                        all[p][r][site][kind] = sorted;
                        double min = QuorumLeaseExperiments.minimumWriteMillis(site);
                        cdf.add(policies.get(p).name, readPercents[r], sites.get(site), kind == 0 ? "read" : "write", sorted.length,
                                fmt(QuorumLeaseExperiments.percentile(sorted, 10)), fmt(QuorumLeaseExperiments.percentile(sorted, 25)),
                                fmt(QuorumLeaseExperiments.percentile(sorted, 50)), fmt(QuorumLeaseExperiments.percentile(sorted, 75)),
                                fmt(QuorumLeaseExperiments.percentile(sorted, 90)), fmt(QuorumLeaseExperiments.percentile(sorted, 99)),
                                fmt(QuorumLeaseExperiments.fractionBelow(sorted, 10)),
                                kind == 1 ? fmt(QuorumLeaseExperiments.fractionBelow(sorted, min * 1.1 + 5)) : "");
                    }
                }
            }
        }
        cdf.write(out.resolve("quorumleases-latency.csv"));

        // Fig. 6 plot: per site, read and write latency CDFs of each policy at 1:1.
        List<XYChart> charts = new ArrayList<>();
        for (int kind = 0; kind < 2; kind++) {
            for (int site = 0; site < sites.size(); site++) {
                List<Charts.Series> series = new ArrayList<>();
                for (int p = 0; p < policies.size(); p++) {
                    double[] sorted = all[p][0][site][kind];
                    double[] x = new double[sorted.length];
                    double[] y = new double[sorted.length];
                    for (int i = 0; i < sorted.length; i++) {
                        x[i] = sorted[i];
                        y[i] = (i + 1.0) / sorted.length;
                    }
                    series.add(new Charts.Series(policies.get(p).name, x, y));
                }
                charts.add(Charts.lines(sites.get(site) + " " + (kind == 0 ? "reads" : "writes") + " (1:1)", "latency ms", "CDF", series));
            }
        }
        Charts.savePngGrid(charts, sites.size(), out.resolve("quorumleases-fig6.png"));

        // Table 2: % of reads under 10 ms per site at 9:1.
        double[] paper = {81, 95, 89, 89, 81};
        log.println();
        log.println("Quorum leases Table 2: % of reads under 10 ms per site at 9:1 (paper: quorum leases)");
        StringBuilder header = new StringBuilder(String.format("  %-14s", "policy"));
        for (String site : sites) {
            header.append(String.format("%8s", site));
        }
        log.println(header);
        log.println(String.format("  %-14s", "paper (QL)") + formatRow(paper));
        CsvTable table2 = new CsvTable("policy", "site", "reads_under_10ms_percent", "paper_quorum_lease_percent");
        int ql = policies.indexOf(QuorumLeaseExperiments.Policy.QUORUM);
        for (int p = 0; p < policies.size(); p++) {
            double[] row = new double[sites.size()];
            for (int site = 0; site < sites.size(); site++) {
                row[site] = QuorumLeaseExperiments.fractionBelow(all[p][1][site][0], 10);
                table2.add(policies.get(p).name, sites.get(site), fmt(row[site]), fmt(paper[site]));
            }
            log.println(String.format("  %-14s", policies.get(p).name) + formatRow(row));
        }
        table2.write(out.resolve("quorumleases-table2.csv"));
        if (ql >= 0) {
            double[] row = new double[sites.size()];
            boolean withinPaper = true;
            boolean goal = true;
            for (int site = 0; site < sites.size(); site++) {
                row[site] = QuorumLeaseExperiments.fractionBelow(all[ql][1][site][0], 10);
                withinPaper &= row[site] >= paper[site] - 10;
                goal &= row[site] >= 90;
            }
            verdicts.add(new Verdict("QL Table 2", "quorum leases serve most reads locally (< 10 ms) at every site at 9:1: JP 81%, CA 95%,"
                    + " OR 89%, VA 89%, IE 81%", "quorum-lease " + formatRow(row).trim(),
                    "every site at least the paper's value - 10 points", withinPaper));
            double[] writesAtMin = new double[sites.size()];
            boolean writeGoal = true;
            for (int site = 0; site < sites.size(); site++) {
                writesAtMin[site] = QuorumLeaseExperiments.fractionBelow(all[ql][1][site][1],
                        QuorumLeaseExperiments.minimumWriteMillis(site) * 1.1 + 5);
                writeGoal &= writesAtMin[site] >= 80;
            }
            log.printf("  goal beyond the paper: >= 90%% local reads at every site at 9:1: %s; >= 80%% of writes at their site's minimum"
                    + " latency (+10%% +5 ms): %s (%s)%n", goal ? "MET" : "MISSED", writeGoal ? "MET" : "MISSED", formatRow(writesAtMin).trim());
            double[] atKeyMin = new double[sites.size()];
            for (int site = 0; site < sites.size(); site++) {
                long[] counts = keyMinimum[ql][1][site];
                atKeyMin[site] = counts[1] == 0 ? Double.NaN : 100.0 * counts[0] / counts[1];
            }
            log.printf("  quorum-lease writes at their KEY's minimum latency (majority and the key's holders, +10%% +5 ms) at 9:1: %s%n",
                    formatRow(atKeyMin).trim());
            printReadBreakdown(log, sites, breakdowns[ql][1], out, "quorum-lease", "quorumleases-read-decisions.csv");
            table2.write(out.resolve("quorumleases-table2.csv"));
            int leader = policies.indexOf(QuorumLeaseExperiments.Policy.LEADER);
            if (leader >= 0) {
                StringBuilder measured = new StringBuilder();
                boolean ok = true;
                for (int site = 0; site < sites.size(); site++) {
                    double qlMedian = QuorumLeaseExperiments.percentile(all[ql][0][site][0], 50);
                    double llMedian = QuorumLeaseExperiments.percentile(all[leader][0][site][0], 50);
                    measured.append(site == 0 ? "" : "; ").append(sites.get(site)).append(" ").append(fmt(qlMedian)).append(" vs ")
                            .append(fmt(llMedian)).append(" ms");
                    if (site != QuorumLeaseExperiments.LEADER) {
                        ok &= qlMedian < 10 && llMedian >= QuorumLeaseExperiments.SITES.rttNanos(site, QuorumLeaseExperiments.LEADER) / 1e6;
                    }
                }
                verdicts.add(new Verdict("QL Fig. 6", "at 1:1, quorum leases read locally at non-leader sites where a leader lease costs a"
                        + " round trip to the leader", "median read, quorum-lease vs leader-lease: " + measured,
                        "at every non-leader site: QL median < 10 ms and leader-lease median >= the site's RTT to the leader", ok));
            }
            int megastore = policies.indexOf(QuorumLeaseExperiments.Policy.MEGASTORE);
            if (megastore >= 0) {
                StringBuilder measured = new StringBuilder();
                boolean ok = true;
                for (int site = 0; site < sites.size(); site++) {
                    double qlMedian = QuorumLeaseExperiments.percentile(all[ql][0][site][1], 50);
                    double msMedian = QuorumLeaseExperiments.percentile(all[megastore][0][site][1], 50);
                    measured.append(site == 0 ? "" : "; ").append(sites.get(site)).append(" ").append(fmt(qlMedian)).append(" vs ")
                            .append(fmt(msMedian)).append(" ms");
                    ok &= qlMedian <= msMedian;
                }
                verdicts.add(new Verdict("QL Fig. 6", "at 1:1, quorum-lease writes are no slower than Megastore's (which wait for every replica)",
                        "median write, quorum-lease vs megastore: " + measured, "QL median write <= Megastore's at every site", ok));
            }
        }
        badRuns += QuorumLeaseFig7.run(policies, seedCount, keys, out, log, verdicts);
        int auto = policies.indexOf(QuorumLeaseExperiments.Policy.QUORUM_AUTO);
        if (auto >= 0) {
            double[] row = new double[sites.size()];
            boolean goal = true;
            for (int site = 0; site < sites.size(); site++) {
                row[site] = QuorumLeaseExperiments.fractionBelow(all[auto][1][site][0], 10);
                goal &= row[site] >= 90;
            }
            String static_ = ql < 0 ? "" : " (static quorum-lease: " + formatRow(tableRow(all[ql][1], sites.size())).trim() + ")";
            log.printf("  goal beyond the paper with automatic assignment (ql-auto): >= 90%% local reads at every site at 9:1: %s%n",
                    goal ? "MET" : "MISSED");
            verdicts.add(new Verdict("QL Table 2 (ql-auto)", "automatic assignment from read statistics serves >= 90% of reads locally"
                    + " (< 10 ms) at every site at 9:1 (our goal beyond the paper)", "ql-auto " + formatRow(row).trim() + static_,
                    "every site >= 90%", goal));
            printReadBreakdown(log, sites, breakdowns[auto][1], out, "ql-auto", "quorumleases-auto-read-decisions.csv");
        }
        return badRuns;
    }

    private static double[] tableRow(double[][][] bySite, int sites) {
        double[] row = new double[sites];
        for (int site = 0; site < sites; site++) {
            row[site] = QuorumLeaseExperiments.fractionBelow(bySite[site][0], 10);
        }
        return row;
    }

    /** Finding 2: why the quorum-lease reads of each site were or were not served locally at 9:1 (also as CSV). */
    private static void printReadBreakdown(PrintWriter log, List<String> sites, QuorumLeaseExperiments.ReadBreakdown breakdown, Path out,
            String policy, String csvName) throws IOException {
        QuorumLease.ReadDecision[] decisions = QuorumLease.ReadDecision.values();
        log.println("  " + policy + " local-read decisions at 9:1 by each site's own replica (% of its own clients' read attempts; first"
                + " rule that refused):");
        StringBuilder header = new StringBuilder(String.format("  %-22s", "decision"));
        for (String site : sites) {
            header.append(String.format("%8s", site));
        }
        log.println(header);
        CsvTable csv = new CsvTable("site", "decision", "attempts", "percent");
        for (QuorumLease.ReadDecision decision : decisions) {
            double[] row = new double[sites.size()];
            for (int site = 0; site < sites.size(); site++) {
                long total = breakdown.total(site);
                long count = breakdown.counts[site][decision.ordinal()];
                row[site] = total == 0 ? Double.NaN : 100.0 * count / total;
                csv.add(sites.get(site), decision.name().toLowerCase(Locale.ROOT), count, fmt(row[site]));
            }
            log.println(String.format("  %-22s", decision.name().toLowerCase(Locale.ROOT)) + formatRow(row));
        }
        csv.write(out.resolve(csvName));
    }

    private static String formatRow(double[] values) {
        StringBuilder row = new StringBuilder();
        for (double v : values) {
            row.append(String.format("%8s", fmt(v) + (Double.isNaN(v) ? "" : "%")));
        }
        return row.toString();
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
