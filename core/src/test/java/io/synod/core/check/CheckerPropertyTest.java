package io.synod.core.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.synod.core.history.History;
import io.synod.core.history.HistoryJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The checker against a brute-force reference on small random histories: linearizable ones from a
 * real sequential execution under random concurrency, and corrupted copies of them. Each case has
 * its own seed, printed with the history (as JSON lines) on failure; the seed alone regenerates the
 * case, e.g. by looping {@code checkOneCase} over just that seed.
 */
class CheckerPropertyTest {
    private static final long BASE_SEED = 0x5EED_C0DEL;
    private static final int CASES = 4000;
    private static final int MID_SIZED_CASES = 1000;
    /** The reference is exponential in the indeterminate appends; the few cases beyond this are skipped. */
    private static final int REFERENCE_BUDGET = 20_000;

    private final LinearizabilityChecker checker = new LinearizabilityChecker();

    @Test
    void agreesWithBruteForceOnGeneratedAndCorruptedHistories() {
        int violations = 0;
        int linearizableCorruptions = 0;
        for (int i = 0; i < CASES; i++) {
            long seed = BASE_SEED + i;
            Boolean corruptedVerdict = checkOneCase(seed);
            if (corruptedVerdict != null) {
                if (corruptedVerdict) {
                    linearizableCorruptions++;
                } else {
                    violations++;
                }
            }
        }
        // The corruptions must exercise both answers, or the comparison proves little.
        assertTrue(violations > CASES / 10, "too few corrupted histories were violations: " + violations);
        assertTrue(linearizableCorruptions > CASES / 50, "too few corruptions stayed linearizable: " + linearizableCorruptions);
    }

    /**
     * Mid-sized single-key histories with high concurrency and many timeouts, where the checker's
     * reductions (forced reads, append pruning, dropping unread indeterminate appends) have room to go
     * wrong, against a memoized search that has none of them.
     */
    @Test
    void agreesWithMemoizedReferenceOnBusySingleKeyHistories() {
        int violations = 0;
        int undecided = 0;
        int histories = 0;
        for (int i = 0; i < MID_SIZED_CASES; i++) {
            long seed = BASE_SEED + 1_000_000 + i;
            Random random = new Random(seed);
            RandomHistories.Shape shape = new RandomHistories.Shape(3 + random.nextInt(4), 1,
                    10 + random.nextInt(10), 0.45, 0.15, 0.1, 3);
            History history = RandomHistories.linearizable(random, shape);
            History corrupted = RandomHistories.corrupt(random, history);
            for (History checked : corrupted == null ? List.of(history) : List.of(history, corrupted)) {
                histories++;
                Boolean reference = MemoizedReferenceChecker.isLinearizable(checked, REFERENCE_BUDGET);
                if (reference == null) {
                    undecided++;
                    continue;
                }
                Verdict expected = reference ? Verdict.LINEARIZABLE : Verdict.NOT_LINEARIZABLE;
                CheckResult result = checker.check(checked);
                if (result.verdict() != expected) {
                    fail("seed " + seed + ": reference says " + expected + ", checker says " + result + "\n" + json(checked));
                }
                if (checked == history && !reference) {
                    fail("seed " + seed + ": a generated history must be linearizable\n" + json(checked));
                }
                violations += reference ? 0 : 1;
            }
        }
        assertTrue(violations > MID_SIZED_CASES / 10, "too few corrupted histories were violations: " + violations);
        assertTrue(undecided < histories / 20, "the reference gave up on " + undecided + " of " + histories + " histories");
    }

    /** Checks one generated history and one corruption of it; returns whether the corruption is linearizable (null if none was valid). */
    private Boolean checkOneCase(long seed) {
        Random random = new Random(seed);
        RandomHistories.Shape shape = new RandomHistories.Shape(1 + random.nextInt(4), 1 + random.nextInt(2),
                1 + random.nextInt(8), 0.4, 0.15, 0.1, 3);
        History history = RandomHistories.linearizable(random, shape);
        assertAgrees(seed, "generated", history, true);
        History corrupted = RandomHistories.corrupt(random, history);
        if (corrupted == null) {
            return null;
        }
        boolean expected = BruteForceChecker.isLinearizable(corrupted);
        assertAgrees(seed, "corrupted", corrupted, expected);
        return expected;
    }

    private void assertAgrees(long seed, String kind, History history, boolean expectedLinearizable) {
        boolean bruteForce = BruteForceChecker.isLinearizable(history);
        CheckResult result = checker.check(history);
        Verdict expected = expectedLinearizable ? Verdict.LINEARIZABLE : Verdict.NOT_LINEARIZABLE;
        if (bruteForce != expectedLinearizable || result.verdict() != expected) {
            fail("seed " + seed + " (" + kind + "): expected " + expected + ", brute force says "
                    + (bruteForce ? "linearizable" : "not linearizable") + ", checker says " + result
                    + "\n" + json(history));
        }
        // A bound too small to decide may only ever turn the answer into UNKNOWN, never into a wrong one.
        long tinyBound = 1 + seed % 4;
        Verdict bounded = new LinearizabilityChecker(tinyBound).check(history).verdict();
        if (bounded != expected && bounded != Verdict.UNKNOWN) {
            fail("seed " + seed + " (" + kind + "): with bound " + tinyBound + " the checker says " + bounded
                    + ", expected " + expected + " or UNKNOWN\n" + json(history));
        }
        for (KeyCheckResult keyResult : result.keyResults()) {
            if (keyResult.verdict() == Verdict.NOT_LINEARIZABLE) {
                assertNotNull(keyResult.violation(), "seed " + seed);
                assertEquals(keyResult.key(), keyResult.violation().key(), "seed " + seed);
            } else {
                assertNull(keyResult.violation(), "seed " + seed);
            }
        }
    }

    private static String json(History history) {
        StringBuilder text = new StringBuilder();
        try {
            HistoryJson.write(history, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }
}
