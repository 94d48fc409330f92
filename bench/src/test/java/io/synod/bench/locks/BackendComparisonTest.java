package io.synod.bench.locks;

import io.synod.bench.report.LatencySummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The side-by-side table and the two targets on hand-made numbers: each verdict follows from the stated rule. */
class BackendComparisonTest {

    @TempDir
    Path dir;

    private static final LockPoint UNCONTENDED = new LockPoint(100, 0, 500, 1);
    private static final LockPoint CONTENDED = new LockPoint(100, 0, 200, 150);

    private static LockRunResult result(LockPrimitive primitive, double median, double mean) {
        LockWorkloadSpec spec = new LockWorkloadSpec(primitive, 10, 1, 1, 1, Duration.ofSeconds(1), Duration.ofSeconds(1));
        LatencySummary acquire = new LatencySummary(10, mean, median, 2 * median, median, 2 * median);
        return new LockRunResult(spec, 5, 10, 0, 0, 0, acquire, acquire, 1.0, 1.0, 0.0, 0, 0, null, List.of(), 0);
    }

    private static LatencySummary writes(double median) {
        return new LatencySummary(10, median, median, median, median, median);
    }

    /** sync TAS and sync queue at one point: (median, mean) each. */
    private static Map<LockPrimitive, LockRunResult> locks(double tasMedian, double tasMean, double queueMean) {
        Map<LockPrimitive, LockRunResult> m = new EnumMap<>(LockPrimitive.class);
        m.put(LockPrimitive.SYNC_TAS, result(LockPrimitive.SYNC_TAS, tasMedian, tasMean));
        m.put(LockPrimitive.SYNC_QUEUE, result(LockPrimitive.SYNC_QUEUE, queueMean, queueMean));
        return m;
    }

    private static BackendComparison.Measured measured(Map<LockPrimitive, LockRunResult> uncontended, double uncontendedWrite,
                                                       Map<LockPrimitive, LockRunResult> contended, double contendedWrite) {
        Map<LockPoint, Map<LockPrimitive, LockRunResult>> l = new LinkedHashMap<>();
        Map<LockPoint, LatencySummary> w = new LinkedHashMap<>();
        l.put(UNCONTENDED, uncontended);
        w.put(UNCONTENDED, writes(uncontendedWrite));
        l.put(CONTENDED, contended);
        w.put(CONTENDED, writes(contendedWrite));
        return new BackendComparison.Measured(l, w);
    }

    @Test
    void synodFasterEverywhereAndTasWithinTheBoundMeetsBothTargets() throws Exception {
        BackendComparison.Measured zk = measured(locks(210, 215, 320), 205, locks(900, 950, 700), 205);
        BackendComparison.Measured synod = measured(locks(106, 108, 215), 103, locks(500, 520, 400), 104);
        String text = BackendComparison.write(zk, synod, dir);
        assertTrue(text.contains("T2: at every point Synod's best lock at least as fast as ZooKeeper's best: met (2 of 2"), text);
        assertTrue(text.contains("T1: met (1 of 1 points"), text);
        List<String> csv = Files.readAllLines(dir.resolve("backend-comparison.csv"));
        assertEquals(3, csv.size());
        assertTrue(csv.get(1).contains("sync TAS") && csv.get(2).contains("sync queue"), csv.toString());
        assertTrue(Files.size(dir.resolve("backend-comparison.png")) > 0);
        assertEquals(2, Files.readAllLines(dir.resolve("tas-target.csv")).size());
    }

    @Test
    void oneSlowerPointMissesT2AndASlowTasMissesT1() throws Exception {
        BackendComparison.Measured zk = measured(locks(210, 215, 320), 205, locks(900, 950, 700), 205);
        // Contended: Synod's best mean 800 vs ZooKeeper's 700, clearly slower. Uncontended TAS 120 > 1.1 x 103.
        BackendComparison.Measured synod = measured(locks(120, 125, 215), 103, locks(850, 900, 800), 104);
        String text = BackendComparison.write(zk, synod, dir);
        assertTrue(text.contains("MISSED (1 of 2 points)"), text);
        assertTrue(text.contains("T1: MISSED (0 of 1 points"), text);
    }

    @Test
    void aDifferenceInsideTheTieMarginCountsAsAsFast() {
        BackendComparison.Row tie = new BackendComparison.Row(CONTENDED, LockPrimitive.SYNC_QUEUE, 700,
                LockPrimitive.SYNC_QUEUE, 740, 200, 100);
        assertTrue(tie.synodAsFast(), "740 vs 700 is within 10%");
        BackendComparison.Row slower = new BackendComparison.Row(CONTENDED, LockPrimitive.SYNC_QUEUE, 700,
                LockPrimitive.SYNC_QUEUE, 800, 200, 100);
        assertFalse(slower.synodAsFast());
        assertTrue(BackendComparison.sideBySide(List.of(tie)).contains("met (tie)"));
    }

    @Test
    void pointsMissingOnOneSideAreLeftOut() {
        BackendComparison.Measured zk = measured(locks(210, 215, 320), 205, locks(900, 950, 700), 205);
        BackendComparison.Measured synod = new BackendComparison.Measured(Map.of(), Map.of());
        assertTrue(BackendComparison.rows(zk, synod).isEmpty());
        assertTrue(BackendComparison.sideBySide(List.of()).contains("T2: not judged"));
        assertTrue(BackendComparison.tasTarget(BackendComparison.tasChecks(synod)).contains("T1: not judged"));
    }
}
