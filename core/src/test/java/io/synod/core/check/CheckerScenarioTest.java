package io.synod.core.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.history.History;
import io.synod.core.history.HistoryRecorder;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The classic anomalies of list-append histories, each written out by hand. */
class CheckerScenarioTest {
    private final LinearizabilityChecker checker = new LinearizabilityChecker();
    private final HistoryRecorder recorder = new HistoryRecorder();
    private long time = 0;

    private int append(int process, long value) {
        return recorder.invokeAppend(process, "k", value, time++);
    }

    private int read(int process) {
        return recorder.invokeRead(process, "k", time++);
    }

    private void ok(int opId) {
        recorder.okAppend(opId, time++);
    }

    private void returns(int opId, Long... values) {
        recorder.okRead(opId, List.of(values), time++);
    }

    private KeyCheckResult check() {
        return checker.checkKey(recorder.history(), "k");
    }

    private Violation assertViolation() {
        KeyCheckResult result = check();
        assertEquals(Verdict.NOT_LINEARIZABLE, result.verdict(), result.explanation());
        return result.violation();
    }

    private void assertLinearizable() {
        KeyCheckResult result = check();
        assertEquals(Verdict.LINEARIZABLE, result.verdict(), result.explanation());
        assertNull(result.violation());
    }

    @Test
    void sequentialAppendsAndReadsAreLinearizable() {
        ok(append(0, 1));
        returns(read(1), 1L);
        ok(append(0, 2));
        returns(read(1), 1L, 2L);
        assertLinearizable();
    }

    @Test
    void staleReadThatMissesACompletedAppendIsAViolation() {
        ok(append(0, 1));
        int acknowledged = append(0, 2);
        ok(acknowledged);
        int stale = read(1);
        returns(stale, 1L);
        Violation violation = assertViolation();
        assertEquals(acknowledged, violation.blockingOperation().id());
        assertEquals(List.of(1L), violation.listAfterPrefix());
        assertTrue(violation.explanation().contains("appending it here would contradict #" + stale + " p1 read k -> [1]"),
                violation.explanation());
        assertTrue(violation.explanation().contains("stale read: read #" + stale + " misses 2, but #" + acknowledged
                + " p0 append k 2 ok"), violation.explanation());
    }

    @Test
    void lostAcknowledgedAppendIsAViolation() {
        ok(append(0, 1));
        ok(append(1, 2));
        returns(read(2), 1L, 2L);
        ok(append(0, 3));
        int lost = read(2);
        returns(lost, 1L, 2L); // 3 was acknowledged, then vanished
        returns(read(1), 1L, 2L);
        Violation violation = assertViolation();
        assertTrue(violation.explanation().contains("stale read: read #" + lost + " misses 3"), violation.explanation());
    }

    @Test
    void readOfAValueNeverAppendedIsAViolation() {
        ok(append(0, 1));
        returns(read(1), 1L, 99L);
        Violation violation = assertViolation();
        assertTrue(violation.explanation().contains("returned 99, which was never appended to k"), violation.explanation());
    }

    @Test
    void appendsSeenInTwoDifferentOrdersAreAViolation() {
        int first = append(0, 1);
        int second = append(1, 2);
        ok(first);
        ok(second);
        int oneTwo = read(2);
        returns(oneTwo, 1L, 2L);
        int twoOne = read(3);
        returns(twoOne, 2L, 1L);
        Violation violation = assertViolation();
        assertTrue(violation.explanation().contains("reads #" + oneTwo + " and #" + twoOne
                + " are not prefixes of one another, so no single order of appends explains both: #" + oneTwo
                + " has [1, 2], #" + twoOne + " has [2, 1]; they first differ at index 0: 1 vs 2"),
                violation.explanation());
    }

    @Test
    void concurrentAppendsMayBeSeenInEitherOrder() {
        int first = append(0, 1);
        int second = append(1, 2);
        ok(second);
        ok(first);
        returns(read(2), 2L, 1L); // 1 was invoked first but 2 took effect first: fine, they overlapped
        returns(read(2), 2L, 1L);
        assertLinearizable();
    }

    @Test
    void readConcurrentWithAnAppendMaySeeItOrNot() {
        ok(append(0, 1));
        int concurrent = append(0, 2);
        int before = read(1);
        int after = read(2);
        returns(before, 1L);
        returns(after, 1L, 2L);
        ok(concurrent);
        assertLinearizable();
    }

    @Test
    void indeterminateAppendThatShowsUpLaterIsLinearizable() {
        int timedOut = append(0, 1);
        recorder.info(timedOut, time++);
        returns(read(1)); // not yet applied
        ok(append(0, 2));
        returns(read(1), 1L, 2L); // it took effect long after the client gave up on it
        assertLinearizable();
    }

    @Test
    void indeterminateAppendThatNeverShowsUpIsLinearizable() {
        int timedOut = append(0, 1);
        recorder.info(timedOut, time++);
        ok(append(0, 2));
        returns(read(1), 2L);
        assertLinearizable();
    }

    @Test
    void pendingAppendCountsAsIndeterminate() {
        append(0, 1); // the run ended before it completed
        ok(append(1, 2));
        returns(read(2), 2L, 1L);
        assertLinearizable();
    }

    @Test
    void indeterminateAppendThatShowsUpAndThenDisappearsIsAViolation() {
        int timedOut = append(0, 1);
        recorder.info(timedOut, time++);
        returns(read(1), 1L);
        returns(read(1));
        assertViolation();
    }

    @Test
    void indeterminateAppendCannotTakeEffectBeforeItsInvoke() {
        returns(read(1), 1L);
        int late = append(0, 1);
        recorder.info(late, time++);
        assertViolation();
    }

    @Test
    void failedAppendThatShowsUpIsAViolation() {
        int failed = append(0, 1);
        recorder.fail(failed, time++);
        returns(read(1), 1L);
        Violation violation = assertViolation();
        assertTrue(violation.explanation().contains("returned 1, but its append failed, so it must not have happened: #"
                + failed + " p0 append k 1 fail"), violation.explanation());
    }

    @Test
    void failedAndIndeterminateReadsConstrainNothing() {
        ok(append(0, 1));
        recorder.fail(read(1), time++);
        recorder.info(read(1), time++);
        read(2); // pending at the end
        returns(read(3), 1L);
        assertLinearizable();
    }

    @Test
    void realTimeOrderFollowsEventOrderWhenTimesAreEqual() {
        int appended = recorder.invokeAppend(0, "k", 1, 10);
        recorder.okAppend(appended, 20);
        int read = recorder.invokeRead(1, "k", 20); // invoked at the same instant, but after the ok was recorded
        recorder.okRead(read, List.of(), 30);
        Violation violation = assertViolation();
        assertEquals(appended, violation.blockingOperation().id());
        assertTrue(violation.explanation().contains("stale read: read #" + read + " misses 1"), violation.explanation());
    }

    @Test
    void violationOnOneKeyDoesNotTaintTheOthers() {
        int good = recorder.invokeAppend(0, "a", 1, time++);
        recorder.okAppend(good, time++);
        int bad = recorder.invokeAppend(0, "b", 1, time++); // the same value on another key is allowed
        recorder.okAppend(bad, time++);
        int readGood = recorder.invokeRead(1, "a", time++);
        recorder.okRead(readGood, List.of(1L), time++);
        int readBad = recorder.invokeRead(1, "b", time++);
        recorder.okRead(readBad, List.of(), time++);
        CheckResult result = checker.check(recorder.history());
        assertEquals(Verdict.NOT_LINEARIZABLE, result.verdict());
        assertEquals(List.of("a", "b"), result.keyResults().stream().map(KeyCheckResult::key).toList());
        assertEquals(Verdict.LINEARIZABLE, result.keyResults().get(0).verdict());
        assertEquals(Verdict.NOT_LINEARIZABLE, result.keyResults().get(1).verdict());
        assertEquals(1, result.violations().size());
        assertTrue(result.explanation().contains("key b: NOT_LINEARIZABLE"), result.explanation());
    }

    @Test
    void exceedingTheStateBoundIsUnknownNeverLinearizable() {
        for (int value = 1; value <= 6; value++) {
            ok(append(value, value));
        }
        History history = recorder.history();
        KeyCheckResult bounded = new LinearizabilityChecker(3).checkKey(history, "k");
        assertEquals(Verdict.UNKNOWN, bounded.verdict());
        assertNull(bounded.violation());
        assertEquals(Verdict.UNKNOWN, new LinearizabilityChecker(3).check(history).verdict());
        assertEquals(Verdict.LINEARIZABLE, new LinearizabilityChecker(6).checkKey(history, "k").verdict());
    }

    @Test
    void emptyHistoryIsLinearizable() {
        CheckResult result = checker.check(History.of(List.of()));
        assertEquals(Verdict.LINEARIZABLE, result.verdict());
        assertEquals(List.of(), result.keyResults());
        assertEquals(Verdict.LINEARIZABLE, checker.checkKey(History.of(List.of()), "absent").verdict());
    }

    @Test
    void stateBoundMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new LinearizabilityChecker(0));
    }
}
