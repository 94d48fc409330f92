package io.synod.core.check;

import io.synod.core.history.EventType;
import io.synod.core.history.OpFunction;
import io.synod.core.history.Operation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The linearizability search for the operations of one key, against the list-append model: the state
 * is the key's list; {@code append(v)} appends {@code v} and always succeeds; {@code read} succeeds
 * only if it returned exactly the current list.
 *
 * <p>Which operations take part (standard semantics, as in Knossos and Porcupine):
 * <ul>
 *   <li>{@code ok} appends and reads must take effect between their invoke and their completion.</li>
 *   <li>A {@code fail} append definitely did not happen, so it is dropped; a failed read constrains
 *       nothing. An indeterminate ({@code info} or pending) read carries no information: dropped.</li>
 *   <li>An indeterminate append may take effect at any time after its invoke, or never: it gets the
 *       completion +infinity, and "never" is the same as "after everything". If no read returned its
 *       value it is dropped outright: placing it after every read is always possible and changes no
 *       read, and placing it anywhere else makes every later read miss it, so dropping it loses no
 *       linearization. This keeps unobserved timeouts from multiplying the search.</li>
 * </ul>
 *
 * <p>The search is Wing &amp; Gong's (1993) depth-first linearization, in the form Lowe (2017, "Testing
 * for linearizability", section 3) gives it: invoke and completion entries in one doubly linked list
 * in real-time order; an operation whose invoke precedes the first remaining completion may be
 * linearized next, which removes ("lifts") both its entries; reaching a completion whose operation is
 * not linearized means the current prefix is a dead end, so the last choice is undone. Lowe's
 * memoization of (set of linearized operations, model state) prunes configurations already shown to
 * be dead ends, which makes the common case near-linear.
 *
 * <p>The list is represented as an immutable chain sharing prefixes, carrying its length and a
 * polynomial hash, so a state costs one node per append and two states or a state and a read compare
 * by length and hash first, then exactly (the walk stops at the first shared node).
 */
final class ListAppendSearch {
    private static final long INFINITE_POSITION = Long.MAX_VALUE;
    private static final int NONE = -1;
    private static final int MAX_LIKELY_CAUSES = 5;
    private static final int MAX_LIST_PRINTED = 16;

    private final String key;
    private final long maxExploredStates;
    /** The operations that take part, indexed by op number; entry {@code 2*op} is its invoke, {@code 2*op+1} its completion. */
    private final Operation[] operations;
    private final long[][] readValues;
    private final long[] readHashes;
    private final Map<Long, Operation> failedAppendByValue = new HashMap<>();
    private final Set<Long> appendedValues = new HashSet<>();

    private int bestDepth = -1;
    private List<Operation> bestPrefix;
    private ListState bestState;
    private Operation bestBlocking;
    private List<Operation> bestCandidates;

    ListAppendSearch(String key, List<Operation> keyOperations, long maxExploredStates) {
        this.key = key;
        this.maxExploredStates = maxExploredStates;
        Set<Long> observedValues = new HashSet<>();
        for (Operation operation : keyOperations) {
            if (operation.function() == OpFunction.READ && operation.outcome() == EventType.OK) {
                observedValues.addAll(operation.readValues());
            }
        }
        List<Operation> participating = new ArrayList<>();
        for (Operation operation : keyOperations) {
            if (operation.function() == OpFunction.APPEND) {
                if (operation.outcome() == EventType.FAIL) {
                    failedAppendByValue.put(operation.appendValue(), operation);
                } else if (operation.outcome() == EventType.OK || observedValues.contains(operation.appendValue())) {
                    participating.add(operation);
                    appendedValues.add(operation.appendValue());
                }
            } else if (operation.outcome() == EventType.OK) {
                participating.add(operation);
            }
        }
        operations = participating.toArray(new Operation[0]);
        readValues = new long[operations.length][];
        readHashes = new long[operations.length];
        for (int op = 0; op < operations.length; op++) {
            if (operations[op].function() == OpFunction.READ) {
                List<Long> values = operations[op].readValues();
                long[] array = new long[values.size()];
                long hash = 0;
                for (int i = 0; i < array.length; i++) {
                    array[i] = values.get(i);
                    hash = ListState.extendHash(hash, array[i]);
                }
                readValues[op] = array;
                readHashes[op] = hash;
            }
        }
    }

    KeyCheckResult run() {
        int count = operations.length;
        int head = 2 * count;
        int[] next = new int[2 * count + 1];
        int[] prev = new int[2 * count + 1];
        linkEntriesInRealTimeOrder(head, next, prev);

        long[] linearized = new long[(count + 63) / 64];
        long linearizedHash = 0;
        int[] stackEntry = new int[count];
        ListState[] stackState = new ListState[count];
        int depth = 0;
        ListState state = ListState.EMPTY;
        Set<Configuration> explored = new HashSet<>();

        int entry = next[head];
        while (entry != NONE) {
            int op = entry >>> 1;
            if ((entry & 1) == 0) {
                ListState after = apply(state, op);
                if (after != null) {
                    linearized[op >>> 6] |= 1L << op;
                    linearizedHash ^= zobrist(op);
                    Configuration probe = new Configuration(linearized, linearizedHash, after);
                    if (!explored.contains(probe)) {
                        explored.add(new Configuration(linearized.clone(), linearizedHash, after));
                        if (explored.size() > maxExploredStates) {
                            return new KeyCheckResult(key, Verdict.UNKNOWN, count, explored.size(), null);
                        }
                        stackEntry[depth] = entry;
                        stackState[depth] = state;
                        depth++;
                        state = after;
                        lift(entry, next, prev);
                        entry = next[head];
                        continue;
                    }
                    linearized[op >>> 6] &= ~(1L << op);
                    linearizedHash ^= zobrist(op);
                }
                entry = next[entry];
            } else {
                // A completion whose operation is not linearized yet: it cannot take effect later than
                // this, and nothing placed so far let it take effect earlier. Undo the last choice.
                rememberIfDeepest(entry, depth, state, stackEntry, head, next);
                if (depth == 0) {
                    return new KeyCheckResult(key, Verdict.NOT_LINEARIZABLE, count, explored.size(), violation());
                }
                depth--;
                entry = stackEntry[depth];
                state = stackState[depth];
                op = entry >>> 1;
                linearized[op >>> 6] &= ~(1L << op);
                linearizedHash ^= zobrist(op);
                unlift(entry, next, prev);
                entry = next[entry];
            }
        }
        return new KeyCheckResult(key, Verdict.LINEARIZABLE, count, explored.size(), null);
    }

    /** The state after operation {@code op} takes effect in {@code state}, or null if the model forbids it. */
    private ListState apply(ListState state, int op) {
        if (readValues[op] == null) {
            return state.append(operations[op].appendValue());
        }
        return state.equalsList(readValues[op], readHashes[op]) ? state : null;
    }

    /** Sorts the invoke and completion entries by event index (+infinity for indeterminate appends) and links them. */
    private void linkEntriesInRealTimeOrder(int head, int[] next, int[] prev) {
        int count = operations.length;
        long[] sortKeys = new long[2 * count];
        Integer[] entries = new Integer[2 * count];
        for (int entry = 0; entry < 2 * count; entry++) {
            entries[entry] = entry;
            sortKeys[entry] = position(entry);
        }
        // Event indices are distinct, so only +infinity ties; any order among those is fine.
        Arrays.sort(entries, (a, b) -> sortKeys[a] != sortKeys[b] ? Long.compare(sortKeys[a], sortKeys[b]) : Integer.compare(a, b));
        int previous = head;
        for (int entry : entries) {
            next[previous] = entry;
            prev[entry] = previous;
            previous = entry;
        }
        next[previous] = NONE;
        prev[head] = NONE;
    }

    private long position(int entry) {
        Operation operation = operations[entry >>> 1];
        if ((entry & 1) == 0) {
            return operation.id();
        }
        return operation.outcome() == EventType.OK ? operation.completionIndex() : INFINITE_POSITION;
    }

    /** Removes an invoke entry and its completion entry from the list (dancing links: they remember their neighbours). */
    private static void lift(int invokeEntry, int[] next, int[] prev) {
        unlink(invokeEntry, next, prev);
        unlink(invokeEntry + 1, next, prev);
    }

    /** Undoes {@link #lift}, in reverse order. */
    private static void unlift(int invokeEntry, int[] next, int[] prev) {
        relink(invokeEntry + 1, next, prev);
        relink(invokeEntry, next, prev);
    }

    private static void unlink(int entry, int[] next, int[] prev) {
        next[prev[entry]] = next[entry];
        if (next[entry] != NONE) {
            prev[next[entry]] = prev[entry];
        }
    }

    private static void relink(int entry, int[] next, int[] prev) {
        next[prev[entry]] = entry;
        if (next[entry] != NONE) {
            prev[next[entry]] = entry;
        }
    }

    /** A 64-bit key per operation; the XOR over the linearized set hashes the set incrementally (Zobrist). */
    private static long zobrist(int op) {
        return ListState.mix(op * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L);
    }

    private void rememberIfDeepest(int completionEntry, int depth, ListState state, int[] stackEntry, int head,
            int[] next) {
        if (depth <= bestDepth) {
            return;
        }
        bestDepth = depth;
        bestPrefix = new ArrayList<>(depth);
        for (int i = 0; i < depth; i++) {
            bestPrefix.add(operations[stackEntry[i] >>> 1]);
        }
        bestState = state;
        bestBlocking = operations[completionEntry >>> 1];
        bestCandidates = new ArrayList<>();
        for (int entry = next[head]; entry != completionEntry; entry = next[entry]) {
            if ((entry & 1) == 0) {
                bestCandidates.add(operations[entry >>> 1]);
            }
        }
    }

    private Violation violation() {
        List<Long> list = bestState.toList();
        StringBuilder text = new StringBuilder();
        text.append("  longest linearizable prefix (").append(bestPrefix.size()).append(" of ")
                .append(operations.length).append(" operations):");
        for (int i = 0; i < bestPrefix.size(); i++) {
            text.append("\n    ").append(i + 1).append(". ").append(bestPrefix.get(i));
        }
        text.append("\n  list after the prefix: ").append(describeList(list));
        text.append("\n  then ").append(bestBlocking).append(" had to take effect before its completion (event ")
                .append(bestBlocking.completionIndex()).append("), but no order of the operations that could go next allows it:");
        for (Operation candidate : bestCandidates) {
            text.append("\n    ").append(candidate).append(": ").append(whyNotNext(candidate, list));
        }
        List<String> causes = likelyCauses();
        if (!causes.isEmpty()) {
            text.append("\n  likely cause:");
            for (String cause : causes) {
                text.append("\n    ").append(cause);
            }
        }
        return new Violation(key, List.copyOf(bestPrefix), List.copyOf(list), bestBlocking,
                List.copyOf(bestCandidates), text.toString());
    }

    private String whyNotNext(Operation candidate, List<Long> list) {
        if (candidate.function() == OpFunction.APPEND) {
            return "could take effect here, but then the rest cannot be linearized";
        }
        if (candidate.readValues().equals(list)) {
            return "matches the list here, but then the rest cannot be linearized";
        }
        return "cannot take effect here: " + describeMismatch(candidate.readValues(), list);
    }

    /** Reads whose values no participating append can explain: the usual root cause, stated plainly. */
    private List<String> likelyCauses() {
        List<String> causes = new ArrayList<>();
        for (Operation operation : operations) {
            if (operation.function() != OpFunction.READ) {
                continue;
            }
            Set<Long> seen = new HashSet<>();
            for (long value : operation.readValues()) {
                if (causes.size() == MAX_LIKELY_CAUSES) {
                    return causes;
                }
                if (!seen.add(value)) {
                    causes.add("read #" + operation.id() + " returned " + value + " twice");
                } else if (failedAppendByValue.containsKey(value)) {
                    causes.add("read #" + operation.id() + " returned " + value + ", but its append failed,"
                            + " so it must not have happened: " + failedAppendByValue.get(value));
                } else if (!appendedValues.contains(value)) {
                    causes.add("read #" + operation.id() + " returned " + value + ", which was never appended to " + key);
                }
            }
        }
        return causes;
    }

    private static String describeMismatch(List<Long> read, List<Long> list) {
        int common = 0;
        while (common < read.size() && common < list.size() && read.get(common).equals(list.get(common))) {
            common++;
        }
        String returned = "returned " + describeList(read) + " but the list here is " + describeList(list);
        if (common == read.size()) {
            return returned + " (the read lacks the last " + (list.size() - common) + " values, from "
                    + list.get(common) + ")";
        }
        if (common == list.size()) {
            return returned + " (the read has " + (read.size() - common) + " more values, from "
                    + read.get(common) + ")";
        }
        return returned + " (they first differ at index " + common + ": read " + read.get(common)
                + ", list " + list.get(common) + ")";
    }

    private static String describeList(List<Long> list) {
        if (list.size() <= MAX_LIST_PRINTED) {
            return list.toString();
        }
        int half = MAX_LIST_PRINTED / 2;
        StringBuilder text = new StringBuilder("[");
        for (int i = 0; i < half; i++) {
            text.append(list.get(i)).append(", ");
        }
        text.append("... ").append(list.size() - 2 * half).append(" more ...");
        for (int i = list.size() - half; i < list.size(); i++) {
            text.append(", ").append(list.get(i));
        }
        return text.append("] (").append(list.size()).append(" values)").toString();
    }

    /** An immutable list of longs as a chain of appends, so states share their common prefix. */
    static final class ListState {
        static final ListState EMPTY = new ListState(null, 0, 0, 0);

        private final ListState parent;
        private final long last;
        private final int length;
        /** Polynomial hash of the whole list: order-sensitive, so two orders of the same values differ. */
        private final long hash;

        private ListState(ListState parent, long last, int length, long hash) {
            this.parent = parent;
            this.last = last;
            this.length = length;
            this.hash = hash;
        }

        static long extendHash(long hash, long value) {
            return hash * 0x9E3779B97F4A7C15L + mix(value);
        }

        /** SplitMix64's finalizer: spreads every input bit over the output. */
        static long mix(long value) {
            long z = value;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }

        ListState append(long value) {
            return new ListState(this, value, length + 1, extendHash(hash, value));
        }

        boolean equalsList(long[] values, long valuesHash) {
            if (length != values.length || hash != valuesHash) {
                return false;
            }
            ListState node = this;
            for (int i = values.length - 1; i >= 0; i--) {
                if (node.last != values[i]) {
                    return false;
                }
                node = node.parent;
            }
            return true;
        }

        boolean sameList(ListState other) {
            ListState a = this;
            ListState b = other;
            while (a != b) {
                if (a.length != b.length || a.hash != b.hash || a.last != b.last) {
                    return false;
                }
                a = a.parent;
                b = b.parent;
            }
            return true;
        }

        int hash32() {
            return (int) (hash ^ (hash >>> 32));
        }

        List<Long> toList() {
            Long[] values = new Long[length];
            ListState node = this;
            for (int i = length - 1; i >= 0; i--) {
                values[i] = node.last;
                node = node.parent;
            }
            return Arrays.asList(values);
        }
    }

    /** Lowe's cache key: which operations are linearized, and the list they left. */
    private static final class Configuration {
        private final long[] linearized;
        private final long linearizedHash;
        private final ListState state;

        Configuration(long[] linearized, long linearizedHash, ListState state) {
            this.linearized = linearized;
            this.linearizedHash = linearizedHash;
            this.state = state;
        }

        @Override
        public int hashCode() {
            return (int) ListState.mix(linearizedHash) * 31 + state.hash32();
        }

        @Override
        public boolean equals(Object other) {
            if (!(other instanceof Configuration)) {
                return false;
            }
            Configuration that = (Configuration) other;
            return linearizedHash == that.linearizedHash && state.sameList(that.state)
                    && Arrays.equals(linearized, that.linearized);
        }
    }
}
