package io.synod.core.check;

import io.synod.core.history.History;
import io.synod.core.history.Operation;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides whether a list-append history is linearizable (Herlihy &amp; Wing 1990).
 *
 * <p>Each key is checked on its own: linearizability is local (Herlihy &amp; Wing, Theorem 1), and
 * list-append histories over distinct keys are P-compositional in the sense of Horn &amp; Kroening
 * (2015), so a history is linearizable exactly when every key's sub-history is. Per key, a depth-first
 * Wing &amp; Gong (1993) search with Lowe's (2017) memoization of (set of linearized operations, model
 * state) decides it; see {@code ListAppendSearch} for the model and the treatment of failed and
 * indeterminate operations.
 *
 * <p>The search is exponential in the worst case, so it is bounded: a key whose search visits more
 * than {@code maxExploredStatesPerKey} distinct configurations gets {@link Verdict#UNKNOWN}, never
 * {@link Verdict#LINEARIZABLE}. Stateless and deterministic.
 */
public final class LinearizabilityChecker {
    /** Enough for tens of thousands of operations per key at the concurrency a simulator produces. */
    public static final long DEFAULT_MAX_EXPLORED_STATES_PER_KEY = 2_000_000;

    private final long maxExploredStatesPerKey;

    /** A checker with {@link #DEFAULT_MAX_EXPLORED_STATES_PER_KEY}. */
    public LinearizabilityChecker() {
        this(DEFAULT_MAX_EXPLORED_STATES_PER_KEY);
    }

    /** @param maxExploredStatesPerKey bound on distinct configurations visited per key; at least 1 */
    public LinearizabilityChecker(long maxExploredStatesPerKey) {
        if (maxExploredStatesPerKey < 1) {
            throw new IllegalArgumentException("maxExploredStatesPerKey must be at least 1, got " + maxExploredStatesPerKey);
        }
        this.maxExploredStatesPerKey = maxExploredStatesPerKey;
    }

    /** Checks every key of {@code history}. */
    public CheckResult check(History history) {
        Map<String, List<Operation>> operationsByKey = new LinkedHashMap<>();
        for (Operation operation : history.operations()) {
            operationsByKey.computeIfAbsent(operation.key(), key -> new ArrayList<>()).add(operation);
        }
        List<KeyCheckResult> keyResults = new ArrayList<>(operationsByKey.size());
        boolean anyViolation = false;
        boolean anyUnknown = false;
        for (Map.Entry<String, List<Operation>> entry : operationsByKey.entrySet()) {
            KeyCheckResult result = new ListAppendSearch(entry.getKey(), entry.getValue(), maxExploredStatesPerKey).run();
            anyViolation |= result.verdict() == Verdict.NOT_LINEARIZABLE;
            anyUnknown |= result.verdict() == Verdict.UNKNOWN;
            keyResults.add(result);
        }
        Verdict verdict = anyViolation ? Verdict.NOT_LINEARIZABLE
                : anyUnknown ? Verdict.UNKNOWN : Verdict.LINEARIZABLE;
        return new CheckResult(verdict, List.copyOf(keyResults));
    }

    /** Checks the operations of one key of {@code history}; a key that never occurs is trivially linearizable. */
    public KeyCheckResult checkKey(History history, String key) {
        List<Operation> operations = new ArrayList<>();
        for (Operation operation : history.operations()) {
            if (operation.key().equals(key)) {
                operations.add(operation);
            }
        }
        return new ListAppendSearch(key, operations, maxExploredStatesPerKey).run();
    }

    /** The bound this checker was built with. */
    public long maxExploredStatesPerKey() {
        return maxExploredStatesPerKey;
    }
}
