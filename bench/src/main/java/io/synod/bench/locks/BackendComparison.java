package io.synod.bench.locks;

import io.synod.bench.report.Charts;
import io.synod.bench.report.CsvTable;
import io.synod.bench.report.LatencySummary;
import org.knowm.xchart.CategoryChart;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * ZooKeeper and Synod side by side at every lock point both measured, and the two targets of issue 12:
 * <ul>
 *   <li><b>T1</b>: Synod's uncontended TAS acquire &le; {@value #TAS_TARGET} &times; (client RTT + one commit). Judged
 *       at the uncontended points (the lock grid's: critical section 1 ms, inter-arrival 500 ms) on the sync TAS lock
 *       (one create attempt per acquire when the lock is free): its median acquire against the median of
 *       {@link LockExperiments#WRITE_PROBES} sequential puts measured at the same point, which cost exactly one client
 *       RTT plus one commit.</li>
 *   <li><b>T2</b>: at every point, Synod's best lock (lowest mean acquire over all locks measured) at least as fast
 *       as ZooKeeper's best; within the findings' tie margin ({@link Findings#TIE_FRACTION} and
 *       {@link Findings#TIE_MILLIS}) counts as "as fast" and is printed as a tie.</li>
 * </ul>
 * Only numbers measured in this run are compared; a point missing on either side is left out and said so.
 */
public final class BackendComparison {

    /** T1's factor. */
    static final double TAS_TARGET = 1.10;

    /** The measurements of one backend in this run. */
    public record Measured(Map<LockPoint, Map<LockPrimitive, LockRunResult>> locks,
                           Map<LockPoint, LatencySummary> writes) {
    }

    /** One point both backends measured. */
    record Row(LockPoint point, LockPrimitive zkBest, double zkBestMean, LockPrimitive synodBest, double synodBestMean,
               double zkWriteMedian, double synodWriteMedian) {
        double ratio() {
            return synodBestMean / zkBestMean;
        }

        boolean synodAsFast() {
            return synodBestMean <= zkBestMean || Findings.lessOrTied(synodBestMean, zkBestMean);
        }
    }

    /** T1 at one uncontended point. */
    record TasCheck(LockPoint point, double tasMedian, double writeMedian) {
        double bound() {
            return TAS_TARGET * writeMedian;
        }

        boolean met() {
            return tasMedian <= bound();
        }
    }

    private BackendComparison() {
    }

    /** The lowest-mean usable lock at a point, if any. */
    static Optional<LockPrimitive> best(Map<LockPrimitive, LockRunResult> byPrimitive) {
        LockPrimitive best = null;
        double bestMean = Double.POSITIVE_INFINITY;
        if (byPrimitive != null) {
            for (Map.Entry<LockPrimitive, LockRunResult> e : byPrimitive.entrySet()) {
                if (Findings.usable(e.getValue()) && e.getValue().acquire().meanMillis() < bestMean) {
                    best = e.getKey();
                    bestMean = e.getValue().acquire().meanMillis();
                }
            }
        }
        return Optional.ofNullable(best);
    }

    static List<Row> rows(Measured zk, Measured synod) {
        List<Row> rows = new ArrayList<>();
        for (LockPoint point : zk.locks().keySet()) {
            Optional<LockPrimitive> zb = best(zk.locks().get(point));
            Optional<LockPrimitive> sb = best(synod.locks().get(point));
            if (zb.isEmpty() || sb.isEmpty()) {
                continue;
            }
            rows.add(new Row(point, zb.get(), zk.locks().get(point).get(zb.get()).acquire().meanMillis(), sb.get(),
                    synod.locks().get(point).get(sb.get()).acquire().meanMillis(), median(zk.writes().get(point)),
                    median(synod.writes().get(point))));
        }
        return rows;
    }

    static List<TasCheck> tasChecks(Measured synod) {
        List<TasCheck> checks = new ArrayList<>();
        for (Map.Entry<LockPoint, Map<LockPrimitive, LockRunResult>> e : synod.locks().entrySet()) {
            LockPoint p = e.getKey();
            if (!uncontended(p)) {
                continue;
            }
            LockRunResult tas = e.getValue().get(LockPrimitive.SYNC_TAS);
            LatencySummary writes = synod.writes().get(p);
            if (!Findings.usable(tas) || writes == null || writes.isEmpty()) {
                continue;
            }
            checks.add(new TasCheck(p, tas.acquire().medianMillis(), writes.medianMillis()));
        }
        return checks;
    }

    /** The uncontended workload of the lock grid and the low-contention sweep: 1 ms sections every 500 ms on average. */
    static boolean uncontended(LockPoint p) {
        Profile q = Profile.quick();
        return p.interArrivalMillis() == q.lowContentionInterArrivalMillis()
                && p.serviceMillis() == q.lowContentionServiceMillis();
    }

    private static double median(LatencySummary s) {
        return s == null || s.isEmpty() ? Double.NaN : s.medianMillis();
    }

    /** T1 as text: per point and a verdict line ("met" or "MISSED"). */
    static String tasTarget(List<TasCheck> checks) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "T1: Synod uncontended TAS acquire <= %.1f x (client RTT + one commit)"
                + " [sync TAS median acquire vs %.1f x median of %d sequential puts at the same point]%n", TAS_TARGET,
                TAS_TARGET, LockExperiments.WRITE_PROBES));
        if (checks.isEmpty()) {
            return b.append("T1: not judged: no uncontended Synod lock point was measured (run lock-grid)\n").toString();
        }
        int met = 0;
        for (TasCheck c : checks) {
            met += c.met() ? 1 : 0;
            b.append(String.format(Locale.ROOT, "  %-22s TAS %7.1f ms, put %7.1f ms, bound %7.1f ms, ratio %.2f  %s%n",
                    c.point().slug(), c.tasMedian(), c.writeMedian(), c.bound(), c.tasMedian() / c.writeMedian(),
                    c.met() ? "met" : "MISSED"));
        }
        b.append(String.format(Locale.ROOT, "T1: %s (%d of %d points within the bound)%n",
                met == checks.size() ? "met" : "MISSED", met, checks.size()));
        return b.toString();
    }

    /** The side-by-side table and T2, as text. */
    static String sideBySide(List<Row> rows) {
        StringBuilder b = new StringBuilder();
        b.append("ZooKeeper vs Synod at every point both measured (best lock = lowest mean acquire; ratio = Synod / ZooKeeper;"
                + " write = median of one sequential write: ZooKeeper create via a follower, Synod put to the leader)\n");
        b.append(String.format(Locale.ROOT, "%-22s %-18s %10s  %-18s %10s %6s %10s %10s  %s%n", "point", "zk best lock",
                "zk mean", "synod best lock", "synod mean", "ratio", "zk write", "synod wr.", "T2"));
        int met = 0;
        for (Row r : rows) {
            boolean ok = r.synodAsFast();
            met += ok ? 1 : 0;
            b.append(String.format(Locale.ROOT, "%-22s %-18s %7.1f ms  %-18s %7.1f ms %6.2f %7.1f ms %7.1f ms  %s%n",
                    r.point().slug(), r.zkBest().label(), r.zkBestMean(), r.synodBest().label(), r.synodBestMean(),
                    r.ratio(), r.zkWriteMedian(), r.synodWriteMedian(),
                    !ok ? "MISSED" : r.synodBestMean() <= r.zkBestMean() ? "met" : "met (tie)"));
        }
        if (rows.isEmpty()) {
            b.append("T2: not judged: no point was measured on both backends\n");
        } else {
            b.append(String.format(Locale.ROOT, "T2: at every point Synod's best lock at least as fast as ZooKeeper's best:"
                    + " %s (%d of %d points)%n", met == rows.size() ? "met" : "MISSED", met, rows.size()));
        }
        return b.toString();
    }

    /**
     * Writes {@code backend-comparison.csv}, {@code tas-target.csv} and {@code backend-comparison.png} into
     * {@code outDir}; returns the text to print.
     */
    public static String write(Measured zk, Measured synod, Path outDir) throws IOException {
        List<Row> rows = rows(zk, synod);
        CsvTable csv = new CsvTable("point", "client_rtt_ms", "server_rtt_ms", "inter_arrival_ms", "critical_section_ms",
                "zk_best_primitive", "zk_best_mean_ms", "synod_best_primitive", "synod_best_mean_ms", "ratio_synod_to_zk",
                "synod_as_fast", "zk_write_median_ms", "synod_write_median_ms");
        for (Row r : rows) {
            LockPoint p = r.point();
            csv.add(p.slug(), p.clientRttMillis(), p.serverRttMillis(), p.interArrivalMillis(), p.serviceMillis(),
                    r.zkBest().label(), r.zkBestMean(), r.synodBest().label(), r.synodBestMean(), r.ratio(),
                    r.synodAsFast(), r.zkWriteMedian(), r.synodWriteMedian());
        }
        csv.write(outDir.resolve("backend-comparison.csv"));
        List<TasCheck> checks = tasChecks(synod);
        CsvTable tas = new CsvTable("point", "client_rtt_ms", "server_rtt_ms", "sync_tas_median_ms", "put_median_ms",
                "bound_ms", "met");
        for (TasCheck c : checks) {
            tas.add(c.point().slug(), c.point().clientRttMillis(), c.point().serverRttMillis(), c.tasMedian(),
                    c.writeMedian(), c.bound(), c.met());
        }
        tas.write(outDir.resolve("tas-target.csv"));
        if (!rows.isEmpty()) {
            List<String> categories = rows.stream().map(r -> r.point().slug()).toList();
            LinkedHashMap<String, double[]> best = new LinkedHashMap<>();
            best.put("ZooKeeper best lock", rows.stream().mapToDouble(Row::zkBestMean).toArray());
            best.put("Synod best lock", rows.stream().mapToDouble(Row::synodBestMean).toArray());
            LinkedHashMap<String, double[]> writes = new LinkedHashMap<>();
            writes.put("ZooKeeper create", rows.stream().mapToDouble(Row::zkWriteMedian).toArray());
            writes.put("Synod put", rows.stream().mapToDouble(Row::synodWriteMedian).toArray());
            List<CategoryChart> charts = List.of(
                    Charts.bars("Best lock per point: mean acquire", "mean acquire latency (ms)", categories, best),
                    Charts.bars("One write per point: median", "median write latency (ms)", categories, writes));
            for (CategoryChart chart : charts) {
                chart.getStyler().setXAxisLabelRotation(30); // point names are long; unrotated they overlap
            }
            Charts.savePngGrid(charts, 2, outDir.resolve("backend-comparison.png"));
        }
        return sideBySide(rows) + "\n" + tasTarget(checks);
    }

    /** T1 alone, when only Synod ran; writes {@code tas-target.csv}. */
    public static String writeSynodOnly(Measured synod, Path outDir) throws IOException {
        List<TasCheck> checks = tasChecks(synod);
        CsvTable tas = new CsvTable("point", "client_rtt_ms", "server_rtt_ms", "sync_tas_median_ms", "put_median_ms",
                "bound_ms", "met");
        for (TasCheck c : checks) {
            tas.add(c.point().slug(), c.point().clientRttMillis(), c.point().serverRttMillis(), c.tasMedian(),
                    c.writeMedian(), c.bound(), c.met());
        }
        tas.write(outDir.resolve("tas-target.csv"));
        return tasTarget(checks);
    }
}
