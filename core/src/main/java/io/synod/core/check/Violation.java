package io.synod.core.check;

import io.synod.core.history.Operation;

import java.util.List;

/**
 * Why one key is not linearizable, from the deepest point the search reached: the longest prefix of
 * operations it could linearize, the list after that prefix, and the operation that then had to take
 * effect (its completion came next in real time) but could not be placed.
 *
 * @param key                        the key
 * @param longestLinearizablePrefix  operations in linearization order: the deepest prefix the search
 *                                   reached, which respects real-time order and the list model and which
 *                                   no read still to come already rules out (the search does not extend
 *                                   prefixes that a later read contradicts)
 * @param listAfterPrefix            the key's list after that prefix
 * @param blockingOperation          the operation that completed next and could not be linearized
 *                                   before its completion in any continuation of the prefix
 * @param candidates                 the operations that could have been placed next (invoked, not yet
 *                                   linearized), each of which failed immediately or led only to dead ends
 * @param explanation                all of the above as readable text, with the likely cause when it
 *                                   is evident (a read of a value that was never appended, or whose
 *                                   append failed)
 */
public record Violation(String key, List<Operation> longestLinearizablePrefix, List<Long> listAfterPrefix,
        Operation blockingOperation, List<Operation> candidates, String explanation) {

    @Override
    public String toString() {
        return explanation;
    }
}
