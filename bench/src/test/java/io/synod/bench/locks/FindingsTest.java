package io.synod.bench.locks;

import io.synod.bench.report.LatencySummary;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The findings rules on hand-made numbers: each verdict follows from the stated rule. */
class FindingsTest {

    private final Profile profile = Profile.quick();
    private final Map<LockPoint, Map<LockPrimitive, LockRunResult>> results = new LinkedHashMap<>();

    private static LockRunResult result(LockPrimitive primitive, double medianMillis, double p99Millis, int violations) {
        LockWorkloadSpec spec = new LockWorkloadSpec(primitive, 10, 1, 1, 1, Duration.ofSeconds(1), Duration.ofSeconds(1));
        LatencySummary acquire = new LatencySummary(10, medianMillis, medianMillis, p99Millis, medianMillis, p99Millis);
        return new LockRunResult(spec, 5, 10, 0, 0, 0, acquire, acquire, 1.0, 1.0, 0.0, violations, 0, null, List.of(), 0);
    }

    /** Medians in order sync queue, async queue, sync TAS, async TAS; p99 = 2 x median. */
    private void put(LockPoint point, double syncQueue, double asyncQueue, double syncTas, double asyncTas) {
        Map<LockPrimitive, LockRunResult> byPrimitive = new EnumMap<>(LockPrimitive.class);
        byPrimitive.put(LockPrimitive.SYNC_QUEUE, result(LockPrimitive.SYNC_QUEUE, syncQueue, 2 * syncQueue, 0));
        byPrimitive.put(LockPrimitive.ASYNC_QUEUE, result(LockPrimitive.ASYNC_QUEUE, asyncQueue, 2 * asyncQueue, 0));
        byPrimitive.put(LockPrimitive.SYNC_TAS, result(LockPrimitive.SYNC_TAS, syncTas, 2 * syncTas, 0));
        byPrimitive.put(LockPrimitive.ASYNC_TAS, result(LockPrimitive.ASYNC_TAS, asyncTas, 2 * asyncTas, 0));
        results.put(point, byPrimitive);
    }

    private LockPoint lowContention(int clientRtt) {
        return new LockPoint(clientRtt, 0, profile.lowContentionInterArrivalMillis(), profile.lowContentionServiceMillis());
    }

    private LockPoint highContention(int clientRtt) {
        return new LockPoint(clientRtt, 0, profile.highContentionInterArrivalMillis(), profile.highContentionServiceMillis());
    }

    @Test
    void paperLikeNumbersConfirmEveryFinding() {
        // Low contention: TAS faster than queue, more so at high RTT; sync TAS slower than async TAS at high RTT.
        put(lowContention(0), 4, 4, 3, 3);
        put(lowContention(50), 200, 190, 120, 100);
        put(lowContention(100), 400, 380, 240, 200);
        // High contention: queue beats sync TAS at high RTT; async TAS best.
        put(highContention(0), 160, 160, 170, 155);
        put(highContention(50), 500, 480, 700, 450);
        put(highContention(100), 900, 850, 1400, 800);
        // Fig. 13's longest critical section at client RTT 100 is the same point as Fig. 16's highest RTT.
        List<Findings.Finding> findings = Findings.evaluate(profile, EnumSet.allOf(Experiment.class), results);
        assertEquals(Findings.Verdict.CONFIRMED, verdict(findings, "F1"));
        assertEquals(Findings.Verdict.CONFIRMED, verdict(findings, "F2"));
        assertEquals(Findings.Verdict.CONFIRMED, verdict(findings, "F3"));
        assertEquals(Findings.Verdict.CONFIRMED, verdict(findings, "F4"));
        assertEquals(Findings.Verdict.CONFIRMED, verdict(findings, "check"));
    }

    @Test
    void oppositeNumbersRefuteThem() {
        put(lowContention(0), 3, 3, 4, 4);
        put(lowContention(50), 100, 100, 200, 200);
        put(lowContention(100), 200, 200, 250, 400);
        put(highContention(0), 100, 100, 100, 150);
        put(highContention(50), 300, 300, 250, 500);
        put(highContention(100), 900, 900, 500, 1000);
        List<Findings.Finding> findings = Findings.evaluate(profile, EnumSet.allOf(Experiment.class), results);
        assertEquals(Findings.Verdict.REFUTED, verdict(findings, "F1"));
        assertEquals(Findings.Verdict.REFUTED, verdict(findings, "F2"));
        assertEquals(Findings.Verdict.REFUTED, verdict(findings, "F3"));
        assertEquals(Findings.Verdict.REFUTED, verdict(findings, "F4"));
    }

    @Test
    void tiesAndMissingExperimentsAreInconclusive() {
        put(lowContention(0), 10, 10, 10, 10);
        put(lowContention(100), 200, 200, 195, 200);
        List<Findings.Finding> findings = Findings.evaluate(profile, EnumSet.of(Experiment.LOW_CONTENTION_RTT), results);
        assertEquals(Findings.Verdict.INCONCLUSIVE, verdict(findings, "F3"));
        assertEquals(Findings.Verdict.INCONCLUSIVE, verdict(findings, "F4"));
        List<Findings.Finding> none = Findings.evaluate(profile, EnumSet.noneOf(Experiment.class), Map.of());
        none.forEach(f -> assertEquals(Findings.Verdict.INCONCLUSIVE, f.verdict(), f.id()));
    }

    @Test
    void anOverlappingGrantFailsTheMutualExclusionCheck() {
        Map<LockPrimitive, LockRunResult> byPrimitive = new EnumMap<>(LockPrimitive.class);
        byPrimitive.put(LockPrimitive.SYNC_TAS, result(LockPrimitive.SYNC_TAS, 1, 2, 1));
        results.put(lowContention(0), byPrimitive);
        assertEquals(Findings.Verdict.REFUTED, Findings.mutualExclusionHeld(results).verdict());
    }

    private static Findings.Verdict verdict(List<Findings.Finding> findings, String id) {
        return findings.stream().filter(f -> f.id().equals(id)).findFirst().orElseThrow().verdict();
    }
}
