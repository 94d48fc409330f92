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
    /** Generous for ~500 operations per key; the search should need about one state per operation. */
    private static final long STATE_BOUND_PER_KEY = 50_000;

    private final LinearizabilityChecker checker = new LinearizabilityChecker(STATE_BOUND_PER_KEY);

    @Test
    void decidesTenThousandOperationsOverTwentyKeysWithTenProcesses() {
        for (long seed = 1; seed <= 3; seed++) {
            History history = simulatorSized(seed);
            CheckResult result = checker.check(history);
            assertEquals(Verdict.LINEARIZABLE, result.verdict(), "seed " + seed + ": " + result);
            for (KeyCheckResult keyResult : result.keyResults()) {
                assertTrue(keyResult.exploredStates() <= 4L * keyResult.checkedOperations(),
                        "seed " + seed + ": search not near-linear on " + keyResult.explanation());
            }
        }
    }

    @Test
    void findsOneStaleReadInTenThousandOperations() {
        History history = simulatorSized(7);
        History damaged = dropLastValueOfLongestRead(history);
        CheckResult result = checker.check(damaged);
        assertEquals(Verdict.NOT_LINEARIZABLE, result.verdict(), result.explanation());
        assertEquals(1, result.violations().size(), result.explanation());
    }

    private static History simulatorSized(long seed) {
        Random random = new Random(seed);
        RandomHistories.Shape shape = new RandomHistories.Shape(10, 20, 10_000, 0.5, 0.02, 0.02, 1_000);
        return RandomHistories.linearizable(random, shape);
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
