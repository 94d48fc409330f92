package io.synod.bench.locks;

import io.synod.bench.report.CsvTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decides, from the measured numbers only, whether this run confirms each finding of the seed paper.
 * Every rule is stated in the output next to its verdict. Rules compare the <em>mean</em> acquire latency:
 * it is the total waiting a client pays, which under contention is what separates FIFO hand-off from
 * barging (a test-and-set lock lets some requests in at once and starves others, so its median flatters it);
 * stability is judged on p99. Medians are in the CSVs and plots. Differences under {@link #TIE_FRACTION} or under
 * {@link #TIE_MILLIS} count as ties (the quick profile's samples are too small to separate them), and a run with fewer than
 * {@link #MIN_COMPLETED_FRACTION} of its requests completed is not used.
 */
public final class Findings {

    public enum Verdict { CONFIRMED, REFUTED, INCONCLUSIVE }

    /** One finding of the paper and what this run says about it. */
    public record Finding(String id, String claim, String figures, String rule, String evidence, Verdict verdict) {
    }

    /** Relative difference below which two latencies are treated as equal. */
    static final double TIE_FRACTION = 0.10;
    /** Absolute difference below which two latencies are equal: timer and scheduling noise on this machine. */
    static final double TIE_MILLIS = 1.0;
    static final double MIN_COMPLETED_FRACTION = 0.5;

    private Findings() {
    }

    public static List<Finding> evaluate(Profile profile, Set<Experiment> ran,
                                         Map<LockPoint, Map<LockPrimitive, LockRunResult>> results) {
        List<Finding> findings = new ArrayList<>();
        findings.add(asyncTasMostEfficientAndStable(results));
        findings.add(syncTasDegradesAtHighRtt(profile, ran, results));
        findings.add(queueBeatsSyncTasAtHighDelayAndContention(profile, ran, results));
        findings.add(tasBeatsQueueAtLowContention(profile, ran, results));
        findings.add(adaptiveNearTheBest(results));
        findings.add(mutualExclusionHeld(results));
        return findings;
    }

    // F1 ------------------------------------------------------------------------------------------

    static Finding asyncTasMostEfficientAndStable(Map<LockPoint, Map<LockPrimitive, LockRunResult>> results) {
        String rule = "over every measured lock point: async TAS mean acquire latency lowest or tied with the lowest"
                + " mean of the paper's other three primitives (efficient), and its p99 lowest or tied (stable). CONFIRMED if both hold at"
                + " >= 75% of points; REFUTED if another primitive's mean is clearly lower at > 50% of points";
        int points = 0;
        int efficient = 0;
        int stable = 0;
        int beaten = 0;
        for (Map<LockPrimitive, LockRunResult> byPrimitive : results.values()) {
            if (!allUsable(byPrimitive)) {
                continue;
            }
            points++;
            double asyncTasMean = byPrimitive.get(LockPrimitive.ASYNC_TAS).acquire().meanMillis();
            double asyncTasP99 = byPrimitive.get(LockPrimitive.ASYNC_TAS).acquire().p99Millis();
            double bestOtherMean = Double.POSITIVE_INFINITY;
            double bestOtherP99 = Double.POSITIVE_INFINITY;
            for (LockPrimitive other : PAPER) {
                if (other != LockPrimitive.ASYNC_TAS) {
                    bestOtherMean = Math.min(bestOtherMean, byPrimitive.get(other).acquire().meanMillis());
                    bestOtherP99 = Math.min(bestOtherP99, byPrimitive.get(other).acquire().p99Millis());
                }
            }
            if (lessOrTied(asyncTasMean, bestOtherMean)) {
                efficient++;
            } else {
                beaten++;
            }
            if (lessOrTied(asyncTasP99, bestOtherP99)) {
                stable++;
            }
        }
        String evidence = String.format(Locale.ROOT,
                "%d points: async TAS best-or-tied mean at %d, best-or-tied p99 at %d, beaten on mean at %d",
                points, efficient, stable, beaten);
        Verdict verdict;
        if (points < 2) {
            verdict = Verdict.INCONCLUSIVE;
            evidence += " (need >= 2 points)";
        } else if (efficient >= 0.75 * points && stable >= 0.75 * points) {
            verdict = Verdict.CONFIRMED;
        } else if (beaten > 0.5 * points) {
            verdict = Verdict.REFUTED;
        } else {
            verdict = Verdict.INCONCLUSIVE;
        }
        return new Finding("F1", "Async TAS is the most efficient and stable primitive", "Figs. 10-16", rule,
                evidence, verdict);
    }

    // F2 ------------------------------------------------------------------------------------------

    static Finding syncTasDegradesAtHighRtt(Profile profile, Set<Experiment> ran,
                                            Map<LockPoint, Map<LockPrimitive, LockRunResult>> results) {
        String rule = "in each client-RTT sweep that ran (Figs. 15 and 16), r(RTT) = mean(sync TAS) / mean(async TAS)."
                + " CONFIRMED if in every sweep sync TAS is clearly slower than async TAS at the highest RTT"
                + " and r(highest RTT) > r(lowest RTT); REFUTED if in every sweep r(highest RTT) <= 1";
        List<String> evidence = new ArrayList<>();
        int sweeps = 0;
        int confirming = 0;
        int refuting = 0;
        for (Experiment sweep : List.of(Experiment.LOW_CONTENTION_RTT, Experiment.HIGH_CONTENTION_RTT)) {
            if (!ran.contains(sweep)) {
                continue;
            }
            List<LockPoint> points = rttSweepPoints(profile, sweep);
            Optional<LockPoint> low = points.stream().filter(p -> usable(results, p)).min(Comparator.comparingInt(LockPoint::clientRttMillis));
            Optional<LockPoint> high = points.stream().filter(p -> usable(results, p)).max(Comparator.comparingInt(LockPoint::clientRttMillis));
            if (low.isEmpty() || high.isEmpty() || low.get().equals(high.get())) {
                evidence.add(sweep.figure() + ": not enough usable points");
                continue;
            }
            sweeps++;
            double rLow = mean(results, low.get(), LockPrimitive.SYNC_TAS) / mean(results, low.get(), LockPrimitive.ASYNC_TAS);
            double syncHigh = mean(results, high.get(), LockPrimitive.SYNC_TAS);
            double asyncHigh = mean(results, high.get(), LockPrimitive.ASYNC_TAS);
            double rHigh = syncHigh / asyncHigh;
            evidence.add(String.format(Locale.ROOT, "%s: r(%d ms)=%.2f, r(%d ms)=%.2f", sweep.figure(),
                    low.get().clientRttMillis(), rLow, high.get().clientRttMillis(), rHigh));
            if (clearlyLess(asyncHigh, syncHigh) && rHigh > rLow) {
                confirming++;
            }
            if (rHigh <= 1.0) {
                refuting++;
            }
        }
        Verdict verdict = sweeps == 0 ? Verdict.INCONCLUSIVE
                : confirming == sweeps ? Verdict.CONFIRMED
                : refuting == sweeps ? Verdict.REFUTED
                : Verdict.INCONCLUSIVE;
        return new Finding("F2", "Sync TAS degrades at high RTT", "Figs. 15, 16", rule,
                evidence.isEmpty() ? "no RTT sweep ran" : String.join("; ", evidence), verdict);
    }

    // F3 ------------------------------------------------------------------------------------------

    static Finding queueBeatsSyncTasAtHighDelayAndContention(Profile profile, Set<Experiment> ran,
                                                             Map<LockPoint, Map<LockPrimitive, LockRunResult>> results) {
        String rule = "at the high-delay, high-contention points (Fig. 16 at its highest client RTT; Fig. 13 at its"
                + " longest critical section), q = mean(faster queue lock) / mean(sync TAS)."
                + " CONFIRMED if the queue lock is clearly faster at every such point; REFUTED if sync TAS is clearly"
                + " faster at every such point";
        List<LockPoint> points = new ArrayList<>();
        if (ran.contains(Experiment.HIGH_CONTENTION_RTT)) {
            rttSweepPoints(profile, Experiment.HIGH_CONTENTION_RTT).stream().filter(p -> usable(results, p))
                    .max(Comparator.comparingInt(LockPoint::clientRttMillis)).ifPresent(points::add);
        }
        if (ran.contains(Experiment.CONTENTION_HIGH_RTT)) {
            contentionSweepPoints(profile, true).stream().filter(p -> usable(results, p))
                    .max(Comparator.comparingInt(LockPoint::serviceMillis))
                    .filter(p -> !points.contains(p)).ifPresent(points::add);
        }
        List<String> evidence = new ArrayList<>();
        int better = 0;
        int worse = 0;
        for (LockPoint point : points) {
            double queue = Math.min(mean(results, point, LockPrimitive.SYNC_QUEUE),
                    mean(results, point, LockPrimitive.ASYNC_QUEUE));
            double syncTas = mean(results, point, LockPrimitive.SYNC_TAS);
            double q = queue / syncTas;
            evidence.add(String.format(Locale.ROOT, "client RTT %d ms, critical section %d ms: queue %.1f ms vs sync TAS %.1f ms (q=%.2f)",
                    point.clientRttMillis(), point.serviceMillis(), queue, syncTas, q));
            if (clearlyLess(queue, syncTas)) {
                better++;
            }
            if (clearlyLess(syncTas, queue)) {
                worse++;
            }
        }
        Verdict verdict = points.isEmpty() ? Verdict.INCONCLUSIVE
                : better == points.size() ? Verdict.CONFIRMED
                : worse == points.size() ? Verdict.REFUTED
                : Verdict.INCONCLUSIVE;
        return new Finding("F3", "Queue locks beat sync TAS at large delays and under high contention", "Figs. 13, 16",
                rule, evidence.isEmpty() ? "no high-delay high-contention point measured" : String.join("; ", evidence),
                verdict);
    }

    // F4 ------------------------------------------------------------------------------------------

    static Finding tasBeatsQueueAtLowContention(Profile profile, Set<Experiment> ran,
                                                Map<LockPoint, Map<LockPrimitive, LockRunResult>> results) {
        String rule = "in the low-contention client-RTT sweep (Fig. 15), gap(RTT) = mean(faster queue lock) -"
                + " mean(faster TAS lock). CONFIRMED if at the highest RTT the faster TAS is clearly"
                + " faster and gap(highest RTT) > gap(lowest RTT); REFUTED if at the highest RTT"
                + " the faster TAS is not faster at all";
        if (!ran.contains(Experiment.LOW_CONTENTION_RTT)) {
            return new Finding("F4", "At low contention TAS beats queue locks, more so at large RTT", "Fig. 15", rule,
                    "low-contention RTT sweep did not run", Verdict.INCONCLUSIVE);
        }
        List<LockPoint> points = rttSweepPoints(profile, Experiment.LOW_CONTENTION_RTT).stream()
                .filter(p -> usable(results, p)).sorted(Comparator.comparingInt(LockPoint::clientRttMillis)).toList();
        if (points.size() < 2) {
            return new Finding("F4", "At low contention TAS beats queue locks, more so at large RTT", "Fig. 15", rule,
                    "fewer than 2 usable points", Verdict.INCONCLUSIVE);
        }
        List<String> evidence = new ArrayList<>();
        double[] gaps = new double[points.size()];
        double tasAtHigh = 0;
        double queueAtHigh = 0;
        for (int i = 0; i < points.size(); i++) {
            LockPoint point = points.get(i);
            double tas = Math.min(mean(results, point, LockPrimitive.SYNC_TAS), mean(results, point, LockPrimitive.ASYNC_TAS));
            double queue = Math.min(mean(results, point, LockPrimitive.SYNC_QUEUE),
                    mean(results, point, LockPrimitive.ASYNC_QUEUE));
            gaps[i] = queue - tas;
            evidence.add(String.format(Locale.ROOT, "RTT %d ms: TAS %.1f ms, queue %.1f ms (gap %.1f ms)",
                    point.clientRttMillis(), tas, queue, gaps[i]));
            tasAtHigh = tas;
            queueAtHigh = queue;
        }
        Verdict verdict;
        if (clearlyLess(tasAtHigh, queueAtHigh) && gaps[gaps.length - 1] > gaps[0]) {
            verdict = Verdict.CONFIRMED;
        } else if (tasAtHigh >= queueAtHigh) {
            verdict = Verdict.REFUTED;
        } else {
            verdict = Verdict.INCONCLUSIVE;
        }
        return new Finding("F4", "At low contention TAS beats queue locks, more so at large RTT", "Fig. 15", rule,
                String.join("; ", evidence), verdict);
    }

    // harness check --------------------------------------------------------------------------------

    static Finding mutualExclusionHeld(Map<LockPoint, Map<LockPrimitive, LockRunResult>> results) {
        int runs = 0;
        int violations = 0;
        int tokenViolations = 0;
        for (Map<LockPrimitive, LockRunResult> byPrimitive : results.values()) {
            for (LockRunResult result : byPrimitive.values()) {
                runs++;
                violations += result.exclusionViolations();
                tokenViolations += result.tokenOrderViolations();
            }
        }
        String rule = "no grant observed before the previous holder's critical section ended, in any run."
                + " CONFIRMED if 0 such grants; REFUTED otherwise (fencing-token order is reported, not judged)";
        String evidence = String.format(Locale.ROOT, "%d runs: %d overlapping grants, %d non-increasing fencing tokens",
                runs, violations, tokenViolations);
        Verdict verdict = runs == 0 ? Verdict.INCONCLUSIVE : violations == 0 ? Verdict.CONFIRMED : Verdict.REFUTED;
        return new Finding("check", "Every primitive kept mutual exclusion (harness check, not a paper finding)",
                "all", rule, evidence, verdict);
    }

    // helpers ----------------------------------------------------------------------------------------

    static List<LockPoint> rttSweepPoints(Profile p, Experiment sweep) {
        boolean low = sweep == Experiment.LOW_CONTENTION_RTT;
        int interArrival = low ? p.lowContentionInterArrivalMillis() : p.highContentionInterArrivalMillis();
        int service = low ? p.lowContentionServiceMillis() : p.highContentionServiceMillis();
        return p.rttSweepClientRttsMillis().stream().map(rtt -> new LockPoint(rtt, 0, interArrival, service)).toList();
    }

    static List<LockPoint> contentionSweepPoints(Profile p, boolean highRtt) {
        int clientRtt = highRtt ? p.highClientRttMillis() : p.lowClientRttMillis();
        return p.contentionServiceMillis().stream()
                .map(service -> new LockPoint(clientRtt, 0, p.contentionInterArrivalMillis(), service)).toList();
    }

    static boolean usable(LockRunResult result) {
        return result != null && result.completed() >= 1
                && result.completed() >= MIN_COMPLETED_FRACTION * result.spec().requestCount();
    }

    /** The paper's four primitives: the findings F1-F4 are judged on these alone. */
    static final List<LockPrimitive> PAPER = Arrays.stream(LockPrimitive.values()).filter(LockPrimitive::isPaper).toList();

    /** Within this factor of the best fixed primitive, the adaptive lock counts as matching it. */
    static final double ADAPTIVE_TARGET = 1.10;

    static Finding adaptiveNearTheBest(Map<LockPoint, Map<LockPrimitive, LockRunResult>> results) {
        String rule = "at every lock point, a = mean(adaptive) / mean(best fixed primitive at that point);"
                + " CONFIRMED if a <= " + ADAPTIVE_TARGET + " or within the tie margin at every point; REFUTED otherwise";
        List<String> misses = new ArrayList<>();
        int points = 0;
        double worst = 0;
        for (Map.Entry<LockPoint, Map<LockPrimitive, LockRunResult>> entry : results.entrySet()) {
            Optional<AdaptiveRatio> ratio = adaptiveRatio(entry.getValue());
            if (ratio.isEmpty()) {
                continue;
            }
            points++;
            worst = Math.max(worst, ratio.get().ratio());
            if (!ratio.get().withinTarget()) {
                misses.add(String.format(Locale.ROOT, "%s: %.2f x %s", entry.getKey().describe(), ratio.get().ratio(),
                        ratio.get().best().label()));
            }
        }
        String evidence = String.format(Locale.ROOT, "%d points, worst ratio %.2f; beyond %.2f at %d%s", points, worst,
                ADAPTIVE_TARGET, misses.size(), misses.isEmpty() ? "" : ": " + String.join("; ", misses));
        Verdict verdict = points == 0 ? Verdict.INCONCLUSIVE : misses.isEmpty() ? Verdict.CONFIRMED : Verdict.REFUTED;
        return new Finding("A", "The adaptive lock is within 10% of the best fixed primitive (this project's target,"
                + " not the paper's)", "all", rule, evidence, verdict);
    }

    /** The adaptive lock's mean against the best fixed primitive's at one point. */
    record AdaptiveRatio(double ratio, LockPrimitive best, boolean withinTarget) {
    }

    static Optional<AdaptiveRatio> adaptiveRatio(Map<LockPrimitive, LockRunResult> byPrimitive) {
        if (byPrimitive == null || !usable(byPrimitive.get(LockPrimitive.ADAPTIVE))) {
            return Optional.empty();
        }
        LockPrimitive best = null;
        double bestMean = Double.POSITIVE_INFINITY;
        for (Map.Entry<LockPrimitive, LockRunResult> entry : byPrimitive.entrySet()) {
            if (entry.getKey() != LockPrimitive.ADAPTIVE && usable(entry.getValue())
                    && entry.getValue().acquire().meanMillis() < bestMean) {
                best = entry.getKey();
                bestMean = entry.getValue().acquire().meanMillis();
            }
        }
        if (best == null) {
            return Optional.empty();
        }
        double adaptive = byPrimitive.get(LockPrimitive.ADAPTIVE).acquire().meanMillis();
        boolean within = adaptive <= ADAPTIVE_TARGET * bestMean || lessOrTied(adaptive, bestMean);
        return Optional.of(new AdaptiveRatio(adaptive / bestMean, best, within));
    }

    static boolean allUsable(Map<LockPrimitive, LockRunResult> byPrimitive) {
        if (byPrimitive == null) {
            return false;
        }
        for (LockPrimitive primitive : PAPER) {
            if (!usable(byPrimitive.get(primitive))) {
                return false;
            }
        }
        return true;
    }

    private static boolean usable(Map<LockPoint, Map<LockPrimitive, LockRunResult>> results, LockPoint point) {
        return allUsable(results.get(point));
    }

    /** The latency the rules compare: mean acquire latency (see the class comment). */
    private static double mean(Map<LockPoint, Map<LockPrimitive, LockRunResult>> results, LockPoint point,
                               LockPrimitive primitive) {
        return results.get(point).get(primitive).acquire().meanMillis();
    }

    /** {@code a} is lower than {@code b} by more than the tie margin (10% and 1 ms). */
    static boolean clearlyLess(double a, double b) {
        return a < b * (1 - TIE_FRACTION) && a < b - TIE_MILLIS;
    }

    /** {@code a} is not clearly more than {@code b}. */
    static boolean lessOrTied(double a, double b) {
        return !clearlyLess(b, a);
    }

    private static String pct(double fraction) {
        return Math.round(fraction * 100) + "%";
    }

    /** The findings as a plain-text table (what the CLI prints at the end). */
    public static String table(List<Finding> findings) {
        StringBuilder text = new StringBuilder();
        text.append("Findings of \"The Cost of Consensus\" checked against this run\n");
        text.append(String.format("%-6s %-13s %-68s %s%n", "id", "verdict", "claim (figures)", "evidence"));
        for (Finding f : findings) {
            text.append(String.format("%-6s %-13s %-68s %s%n", f.id(), f.verdict(), f.claim() + " (" + f.figures() + ")",
                    f.evidence()));
        }
        text.append("Rules (\"clearly\" lower = lower by more than ").append(pct(TIE_FRACTION)).append(" and more than ")
                .append(TIE_MILLIS).append(" ms; smaller differences are ties; latencies are mean acquire latencies):\n");
        for (Finding f : findings) {
            text.append("  ").append(f.id()).append(": ").append(f.rule()).append('\n');
        }
        return text.toString();
    }

    /** Writes findings.csv and findings.md into {@code outDir}. */
    public static void write(List<Finding> findings, Path outDir) throws IOException {
        CsvTable csv = new CsvTable("id", "claim", "figures", "verdict", "evidence", "rule");
        StringBuilder md = new StringBuilder("# Findings of the seed paper, checked against this run\n\n");
        md.append("| id | claim | figures | verdict | evidence |\n|---|---|---|---|---|\n");
        for (Finding f : findings) {
            csv.add(f.id(), f.claim(), f.figures(), f.verdict(), f.evidence(), f.rule());
            md.append("| ").append(f.id()).append(" | ").append(f.claim()).append(" | ").append(f.figures())
                    .append(" | **").append(f.verdict()).append("** | ").append(f.evidence()).append(" |\n");
        }
        md.append("\nRules (\"clearly\" lower means lower by more than ").append(pct(TIE_FRACTION)).append(" and more than ")
                .append(TIE_MILLIS).append(" ms; smaller differences are ties; runs with under ")
                .append(pct(MIN_COMPLETED_FRACTION)).append(" of requests completed are not used):\n\n");
        for (Finding f : findings) {
            md.append("- **").append(f.id()).append("**: ").append(f.rule()).append('\n');
        }
        csv.write(outDir.resolve("findings.csv"));
        Files.writeString(outDir.resolve("findings.md"), md.toString(), StandardCharsets.UTF_8);
    }
}
