package io.synod.core.check;

import io.synod.core.history.EventType;
import io.synod.core.history.History;
import io.synod.core.history.OpFunction;
import io.synod.core.history.Operation;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A second reference, for mid-sized single-key histories the brute force cannot enumerate: the same
 * definitions as {@link BruteForceChecker} (every indeterminate append optional, nothing dropped up
 * front), searched depth-first with a memo of failed (placed set, list) pairs, and none of the
 * checker's reductions (no forced reads, no append pruning). At most 63 operations.
 */
final class MemoizedReferenceChecker {
    private final List<Operation> operations = new ArrayList<>();
    private final long requiredMask;
    private final Set<List<Object>> failed = new HashSet<>();
    private final int maxFailedConfigurations;

    /** Thrown when the reference runs out of budget: it is exponential in the indeterminate appends. */
    private static final class OutOfBudget extends RuntimeException {
        OutOfBudget() {
            super(null, null, false, false);
        }
    }

    private MemoizedReferenceChecker(History history, int maxFailedConfigurations) {
        this.maxFailedConfigurations = maxFailedConfigurations;
        long required = 0;
        for (Operation operation : history.operations()) {
            boolean ok = operation.outcome() == EventType.OK;
            boolean optionalAppend = operation.function() == OpFunction.APPEND && operation.outcome() == EventType.INFO;
            if (ok || optionalAppend) {
                if (ok) {
                    required |= 1L << operations.size();
                }
                operations.add(operation);
            }
        }
        if (operations.size() > 63) {
            throw new IllegalArgumentException("too many operations for the reference: " + operations.size());
        }
        requiredMask = required;
    }

    /** Whether the single-key {@code history} is linearizable, or null if that takes more than the budget. */
    static Boolean isLinearizable(History history, int maxFailedConfigurations) {
        if (history.keys().size() > 1) {
            throw new IllegalArgumentException("one key only");
        }
        try {
            return new MemoizedReferenceChecker(history, maxFailedConfigurations).search(0, new ArrayList<>());
        } catch (OutOfBudget e) {
            return null;
        }
    }

    private boolean search(long placed, List<Long> list) {
        if ((placed & requiredMask) == requiredMask) {
            return true;
        }
        List<Object> configuration = List.of(placed, List.copyOf(list));
        if (failed.contains(configuration)) {
            return false;
        }
        for (int i = 0; i < operations.size(); i++) {
            if ((placed & (1L << i)) != 0 || !mayGoNext(placed, i)) {
                continue;
            }
            Operation operation = operations.get(i);
            if (operation.function() == OpFunction.READ) {
                if (list.equals(operation.readValues()) && search(placed | (1L << i), list)) {
                    return true;
                }
            } else {
                list.add(operation.appendValue());
                boolean found = search(placed | (1L << i), list);
                list.remove(list.size() - 1);
                if (found) {
                    return true;
                }
            }
        }
        failed.add(configuration);
        if (failed.size() > maxFailedConfigurations) {
            throw new OutOfBudget();
        }
        return false;
    }

    private boolean mayGoNext(long placed, int candidate) {
        int invoke = operations.get(candidate).id();
        for (int j = 0; j < operations.size(); j++) {
            boolean unplacedRequired = (placed & (1L << j)) == 0 && (requiredMask & (1L << j)) != 0;
            if (unplacedRequired && j != candidate && operations.get(j).completionIndex() < invoke) {
                return false;
            }
        }
        return true;
    }
}
