package io.synod.core.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.history.EventType;
import io.synod.core.history.History;
import io.synod.core.history.HistoryEvent;
import io.synod.core.history.OpFunction;
import io.synod.core.history.Operation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Simulator-sized histories must be decided within a modest state bound (no wall-clock assertion: the
 * bound on explored states is the machine-independent measure of the search's work).
 */
class CheckerPerformanceTest {
    /** Generous for ~500 operations per key: the search needs about one state per operation. */
    private static final long STATE_BOUND_PER_KEY = 50_000;

    private final LinearizabilityChecker checker = new LinearizabilityChecker(STATE_BOUND_PER_KEY);

    @Test
    void decidesTenThousandOperationsOverTwentyKeysWithTenProcesses() {
        assertNearLinearSearch(new RandomHistories.Shape(10, 20, 10_000, 0.5, 0.02, 0.02, 1_000));
    }

    /** Plain WGL needed more than two million states here: the forced-read and pruning rules are what make it cheap. */
    @Test
    void decidesThreeThousandOperationsOnOneHotKey() {
        assertNearLinearSearch(new RandomHistories.Shape(10, 1, 3_000, 0.5, 0.05, 0.02, 1_000));
    }

    @Test
    void decidesTenThousandOperationsWithFiftyProcessesAndManyTimeouts() {
        assertNearLinearSearch(new RandomHistories.Shape(50, 10, 10_000, 0.5, 0.1, 0.02, 1_000));
    }

    private void assertNearLinearSearch(RandomHistories.Shape shape) {
        for (long seed = 1; seed <= 3; seed++) {
            History history = RandomHistories.linearizable(new Random(seed), shape);
            CheckResult result = checker.check(history);
            assertEquals(Verdict.LINEARIZABLE, result.verdict(), "seed " + seed + ": " + result);
            for (KeyCheckResult keyResult : result.keyResults()) {
                assertTrue(keyResult.exploredStates() <= 2L * keyResult.checkedOperations(),
                        "seed " + seed + ": search not near-linear on " + keyResult.explanation());
            }
        }
    }

    @Test
    void findsOneStaleReadInTenThousandOperations() {
        History history = RandomHistories.linearizable(new Random(7),
                new RandomHistories.Shape(10, 20, 10_000, 0.5, 0.02, 0.02, 1_000));
        History damaged = dropLastValueOfLongestRead(history);
        CheckResult result = checker.check(damaged);
        assertEquals(Verdict.NOT_LINEARIZABLE, result.verdict(), result.explanation());
        assertEquals(1, result.violations().size(), result.explanation());
        String explanation = result.violations().get(0).explanation();
        assertTrue(explanation.contains("stale read: read #"), explanation);
        assertTrue(explanation.lines().count() < 60, "explanation should stay readable:\n" + explanation);
    }


    /**
     * Makes the longest read whose newest value was acknowledged before the read was invoked miss that
     * value: a stale read, which no linearization can explain.
     */
    private static History dropLastValueOfLongestRead(History history) {
        Map<Long, Operation> appendByValue = new HashMap<>();
        for (Operation operation : history.operations()) {
            if (operation.function() == OpFunction.APPEND) {
                appendByValue.put(operation.appendValue(), operation);
            }
        }
        Operation longest = null;
        for (Operation read : history.operations()) {
            if (read.function() != OpFunction.READ || read.outcome() != EventType.OK || read.readValues().isEmpty()) {
                continue;
            }
            Operation newestAppend = appendByValue.get(read.readValues().get(read.readValues().size() - 1));
            boolean acknowledgedBefore = newestAppend.outcome() == EventType.OK
                    && newestAppend.completionIndex() < read.id();
            if (acknowledgedBefore && (longest == null || read.readValues().size() > longest.readValues().size())) {
                longest = read;
            }
        }
        List<HistoryEvent> events = new ArrayList<>(history.events());
        HistoryEvent completion = events.get(longest.completionIndex());
        List<Long> stale = longest.readValues().subList(0, longest.readValues().size() - 1);
        events.set(longest.completionIndex(),
                HistoryEvent.read(completion.process(), EventType.OK, completion.key(), stale, completion.timeNanos()));
        return History.of(events);
    }
}
