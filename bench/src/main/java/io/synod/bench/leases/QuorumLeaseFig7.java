package io.synod.bench.leases;

import static io.synod.bench.leases.LeasesCommand.fmt;

import io.synod.bench.report.Charts;
import io.synod.bench.report.CsvTable;
import io.synod.sim.ScenarioResult;
import io.synod.leases.QuorumLeaseConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Quorum leases Fig. 7 (Moraru, Andersen, Kaminsky, SoCC 2014, §3.8) in {@code bench leases}: write
 * latency over time when a non-leader fails, for the quorum-lease policies of the run, with a verdict
 * per run ({@link QuorumLeaseExperiments#runFig7}).
 */
final class QuorumLeaseFig7 {
    private QuorumLeaseFig7() {}

    /**
     * Quorum leases Fig. 7: write latency over time when a non-leader fails (quorum-lease and ql-auto
     * runs only); returns the number of runs with simulator violations.
     */
    static int run(List<QuorumLeaseExperiments.Policy> policies, int seedCount, int keys, Path out, PrintWriter log,
            List<LeasesCommand.Verdict> verdicts) throws Exception {
        List<QuorumLeaseExperiments.Policy> fig7 = new ArrayList<>();
        for (QuorumLeaseExperiments.Policy p : policies) {
            if (p == QuorumLeaseExperiments.Policy.QUORUM || p == QuorumLeaseExperiments.Policy.QUORUM_AUTO) {
                fig7.add(p);
            }
        }
        if (fig7.isEmpty()) {
            return 0;
        }
        QuorumLeaseConfig ql = QuorumLeaseExperiments.QL;
        double boundMs = (ql.graceNanos() + ql.guardNanos() + ql.leaseNanos() * (1 + ql.driftMarginPpm() / 1e6)) / 1e6;
        double maxRttMs = QuorumLeaseExperiments.SITES.maxRttNanos() / 1e6;
        String crashed = QuorumLeaseExperiments.SITES.sites().get(QuorumLeaseExperiments.FIG7_CRASHED);
        log.println();
        log.printf("Quorum leases Fig. 7: write latency over time when non-leader %s fails %d ms after the warm-up (1:1, writes of the"
                + " other sites by invocation time, 250 ms buckets); t_grace + t_guard + t_lease(1+e) = %s ms%n", crashed,
                QuorumLeaseExperiments.FIG7_CRASH_AFTER_WARMUP_NANOS / 1_000_000, fmt(boundMs));
        long bucket = 250 * QuorumLeaseExperiments.MILLIS;
        CsvTable csv = new CsvTable("policy", "seed", "t_ms_after_crash", "writes", "median_ms", "max_ms");
        List<Charts.Series> series = new ArrayList<>();
        int bad = 0;
        for (QuorumLeaseExperiments.Policy policy : fig7) {
            for (int seed = 1; seed <= seedCount; seed++) {
                long started = System.nanoTime();
                ScenarioResult run = QuorumLeaseExperiments.runFig7(policy, seed, keys);
                bad += run.result().passed() ? 0 : 1;
                List<double[]> rows = QuorumLeaseExperiments.writeTimeline(run, bucket);
                List<Double> x = new ArrayList<>();
                List<Double> y = new ArrayList<>();
                for (double[] r : rows) {
                    csv.add(policy.name, seed, fmt(r[0]), (long) r[1], fmt(r[2]), fmt(r[3]));
                    if (!Double.isNaN(r[2])) {
                        x.add(r[0]);
                        y.add(r[2]);
                    }
                }
                double[] summary = QuorumLeaseExperiments.fig7Summary(run, boundMs);
                double before = summary[0];
                double stallMax = summary[1];
                double stallEnd = summary[2];
                double after = summary[3];
                series.add(new Charts.Series(policy.name + (seedCount > 1 ? " seed " + seed : ""),
                        x.stream().mapToDouble(Double::doubleValue).toArray(), y.stream().mapToDouble(Double::doubleValue).toArray()));
                log.printf("  %-13s seed %d: median write before the crash %s ms; largest latency of writes invoked in the first 500 ms"
                        + " after it %s ms; the stall ended %s ms after the crash; median write after that %s ms; %s, %.1f s%n",
                        policy.name, seed, fmt(before), fmt(stallMax), fmt(stallEnd), fmt(after),
                        run.result().passed() ? "checks passed" : "VIOLATION " + run.result().violations().get(0),
                        (System.nanoTime() - started) / 1e9);
                log.flush();
                boolean ok = stallMax >= 1_000 && stallEnd <= boundMs + 2 * maxRttMs && after <= before * 1.5 + 20;
                verdicts.add(new LeasesCommand.Verdict("QL Fig. 7 (" + policy.name + ", seed " + seed + ")", "when a non-leader fails, writes of the keys it"
                        + " holds stall until its lease runs out (at most t_grace + t_guard + t_lease), then resume",
                        "writes invoked in the 500 ms after the crash took up to " + fmt(stallMax) + " ms; the stall ended " + fmt(stallEnd)
                        + " ms after the crash; median write " + fmt(before) + " ms before, " + fmt(after) + " ms after",
                        "a stall >= 1000 ms that ends within " + fmt(boundMs) + " ms + 2 max RTT of the crash, then the median write"
                        + " within 1.5x + 20 ms of the one before", ok));
            }
        }
        csv.write(out.resolve("quorumleases-fig7.csv"));
        Charts.savePng(Charts.lines("Quorum leases Fig. 7: median write latency (other sites) when " + crashed + " fails at t = 0",
                "invocation time after the crash (ms)", "median write latency (ms)", series), out.resolve("quorumleases-fig7.png"));
        return bad;
    }

}
