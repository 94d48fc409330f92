package io.synod.core.check;

import io.synod.core.history.EventType;
import io.synod.core.history.History;
import io.synod.core.history.OpFunction;
import io.synod.core.history.Operation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The reference for the property test: tries every order of the whole history's operations (all keys
 * together, so P-compositionality is tested too) that respects real-time order, without memoization
 * or any of the checker's shortcuts. Written straight from the definitions: ok operations must take
 * effect; failed appends must not; failed and indeterminate reads are ignored; an indeterminate append
 * may take effect anywhere after its invoke, or never. Exponential: small histories only.
 */
final class BruteForceChecker {
    private final List<Operation> required = new ArrayList<>();
    private final List<Operation> optional = new ArrayList<>();

    private BruteForceChecker(History history) {
        for (Operation operation : history.operations()) {
            if (operation.outcome() == EventType.OK) {
                required.add(operation);
            } else if (operation.function() == OpFunction.APPEND && operation.outcome() == EventType.INFO) {
                optional.add(operation);
            }
        }
    }

    static boolean isLinearizable(History history) {
        BruteForceChecker checker = new BruteForceChecker(history);
        List<Operation> all = new ArrayList<>(checker.required);
        all.addAll(checker.optional);
        return checker.search(all, new boolean[all.size()], new HashMap<>());
    }

    private boolean search(List<Operation> all, boolean[] placed, Map<String, List<Long>> lists) {
        boolean allRequiredPlaced = true;
        for (int i = 0; i < required.size(); i++) {
            allRequiredPlaced &= placed[i];
        }
        if (allRequiredPlaced) {
            return true; // unplaced indeterminate appends never took effect
        }
        for (int i = 0; i < all.size(); i++) {
            if (placed[i] || !mayGoNext(all, placed, i)) {
                continue;
            }
            Operation operation = all.get(i);
            List<Long> list = lists.computeIfAbsent(operation.key(), key -> new ArrayList<>());
            if (operation.function() == OpFunction.READ) {
                if (!list.equals(operation.readValues())) {
                    continue;
                }
                placed[i] = true;
                boolean found = search(all, placed, lists);
                placed[i] = false;
                if (found) {
                    return true;
                }
            } else {
                list.add(operation.appendValue());
                placed[i] = true;
                boolean found = search(all, placed, lists);
                placed[i] = false;
                list.remove(list.size() - 1);
                if (found) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Real-time order: no unplaced operation may have completed before this one was invoked. */
    private boolean mayGoNext(List<Operation> all, boolean[] placed, int candidate) {
        Operation operation = all.get(candidate);
        for (int j = 0; j < required.size(); j++) {
            if (!placed[j] && j != candidate && required.get(j).completionIndex() < operation.id()) {
                return false;
            }
        }
        return true;
    }
}
