package io.synod.core.check;

import io.synod.core.history.EventType;
import io.synod.core.history.OpFunction;
import io.synod.core.history.Operation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

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
 * be dead ends.
 *
 * <p>Plain WGL blows up on this model: each append linearized too early opens a dead-end region of
 * about 2^concurrency configurations before the next read exposes it (measured: 3,000 operations on
 * one key at concurrency 10 exceeded two million states). Two sound reductions specific to the model
 * remove that, without changing any verdict:
 * <ul>
 *   <li><b>Forced reads.</b> A candidate read that matches the list is linearized at once and never
 *       undone in favour of an alternative (see {@link #run}).</li>
 *   <li><b>Append pruning by the remaining reads.</b> Lists only grow, so an append that some
 *       not-yet-linearized read could no longer see as a prefix is never tried (see {@link #apply}).</li>
 * </ul>
 * With both, while any read remains at most one append value is admissible at each point, so the
 * search proceeds almost without choices: one explored state per operation on linearizable histories,
 * and refutations in a few thousand states. (This is why list-append with full read results is cheap
 * to check, as Elle exploits: the reads reveal the order of the appends.) The search, not a
 * pre-check, still decides every verdict.
 *
 * <p>The list is represented as an immutable chain sharing prefixes, carrying its length and a
 * polynomial hash, so a state costs one node per append and two states or a state and a read compare
 * by length and hash first, then exactly (the walk stops at the first shared node).
 */
final class ListAppendSearch {
    private static final long INFINITE_POSITION = Long.MAX_VALUE;
    private static final int NONE = -1;

    private final String key;
    private final long maxExploredStates;
    /** The operations that take part, indexed by op number; entry {@code 2*op} is its invoke, {@code 2*op+1} its completion. */
    private final Operation[] operations;
    private final long[][] readValues;
    private final long[] readHashes;
    /** All operations of the key, including those left out of the search, for the violation report. */
    private final List<Operation> keyOperations;

    /** The ok reads (op numbers) by length, shortest first, and each read's rank in that order (-1 for appends). */
    private final int[] readsByLength;
    private final int[] readRank;

    // Search state. Entries form a doubly linked list behind the sentinel {@code head} (Lowe's "dancing links").
    private int head;
    private int[] next;
    private int[] prev;
    private long[] linearized;
    private long linearizedHash;
    private ListState state = ListState.EMPTY;
    private int depth;
    private int[] stackEntry;
    private ListState[] stackState;
    private boolean[] stackForced;
    /** Ranks (in {@link #readsByLength}) of the shortest and longest reads not linearized; empty when shortest > longest. */
    private int shortestRemainingRead;
    private int longestRemainingRead;

    private int bestDepth = -1;
    private List<Operation> bestPrefix;
    private ListState bestState;
    private Operation bestBlocking;
    private List<Operation> bestCandidates;

    ListAppendSearch(String key, List<Operation> keyOperations, long maxExploredStates) {
        this.key = key;
        this.keyOperations = keyOperations;
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
                if (operation.outcome() == EventType.OK
                        || (operation.outcome() == EventType.INFO && observedValues.contains(operation.appendValue()))) {
                    participating.add(operation);
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
        readsByLength = IntStream.range(0, operations.length)
                .filter(op -> readValues[op] != null).boxed()
                .sorted((a, b) -> readValues[a].length != readValues[b].length
                        ? Integer.compare(readValues[a].length, readValues[b].length) : Integer.compare(a, b))
                .mapToInt(Integer::intValue).toArray();
        readRank = new int[operations.length];
        Arrays.fill(readRank, -1);
        for (int rank = 0; rank < readsByLength.length; rank++) {
            readRank[readsByLength[rank]] = rank;
        }
        shortestRemainingRead = 0;
        longestRemainingRead = readsByLength.length - 1;
    }

    KeyCheckResult run() {
        int count = operations.length;
        head = 2 * count;
        next = new int[2 * count + 1];
        prev = new int[2 * count + 1];
        linkEntriesInRealTimeOrder();
        linearized = new long[(count + 63) / 64];
        stackEntry = new int[count];
        stackState = new ListState[count];
        stackForced = new boolean[count];
        Set<Configuration> explored = new HashSet<>();

        int entry = next[head];
        boolean freshConfiguration = true;
        while (entry != NONE) {
            boolean deadEnd = false;
            if (freshConfiguration) {
                freshConfiguration = false;
                // A candidate read that matches the list can be linearized right now without loss of
                // generality: in any linearization from here it sits after some reads only (appends
                // would change the list), and moving it before them breaks no real-time order, since
                // none of them completed before it was invoked (it is a candidate). So it is a forced
                // move: no alternative to it is ever tried (a partial-order reduction).
                int readEntry = matchingCandidateRead();
                if (readEntry != NONE) {
                    if (tryLinearize(readEntry, state, explored, true)) {
                        if (explored.size() > maxExploredStates) {
                            return new KeyCheckResult(key, Verdict.UNKNOWN, count, explored.size(), null);
                        }
                        entry = next[head];
                        freshConfiguration = true;
                        continue;
                    }
                    deadEnd = true; // the configuration after the forced read already failed, so this one does
                }
            }
            if (!deadEnd && (entry & 1) == 0) {
                ListState after = apply(state, entry >>> 1);
                if (after != null && tryLinearize(entry, after, explored, false)) {
                    if (explored.size() > maxExploredStates) {
                        return new KeyCheckResult(key, Verdict.UNKNOWN, count, explored.size(), null);
                    }
                    entry = next[head];
                    freshConfiguration = true;
                    continue;
                }
                entry = next[entry];
                continue;
            }
            if (!deadEnd) {
                // A completion whose operation is not linearized yet: it cannot take effect later than
                // this, and nothing placed so far let it take effect earlier.
                rememberIfDeepest(entry);
            }
            // Undo choices up to and including the last one that had alternatives.
            boolean forced;
            do {
                if (depth == 0) {
                    return new KeyCheckResult(key, Verdict.NOT_LINEARIZABLE, count, explored.size(), violation());
                }
                depth--;
                entry = stackEntry[depth];
                forced = stackForced[depth];
                state = stackState[depth];
                markLinearized(entry >>> 1, false);
                unlift(entry);
            } while (forced);
            entry = next[entry];
        }
        return new KeyCheckResult(key, Verdict.LINEARIZABLE, count, explored.size(), null);
    }

    /**
     * Linearizes the operation of {@code invokeEntry} next, leading to {@code after}, unless that
     * configuration was explored before (Lowe's memoization: it failed then, it fails now).
     */
    private boolean tryLinearize(int invokeEntry, ListState after, Set<Configuration> explored, boolean forced) {
        int op = invokeEntry >>> 1;
        markLinearized(op, true);
        if (!explored.add(Configuration.of(linearized, linearizedHash, after))) {
            markLinearized(op, false);
            return false;
        }
        stackEntry[depth] = invokeEntry;
        stackState[depth] = state;
        stackForced[depth] = forced;
        depth++;
        state = after;
        lift(invokeEntry);
        return true;
    }

    /** The invoke entry of a candidate read that returned exactly the current list, or {@link #NONE}. */
    private int matchingCandidateRead() {
        for (int entry = next[head]; entry != NONE && (entry & 1) == 0; entry = next[entry]) {
            int op = entry >>> 1;
            if (readValues[op] != null && state.equalsList(readValues[op], readHashes[op])) {
                return entry;
            }
        }
        return NONE;
    }

    private void markLinearized(int op, boolean linearize) {
        if (linearize) {
            linearized[op >>> 6] |= 1L << op;
        } else {
            linearized[op >>> 6] &= ~(1L << op);
        }
        linearizedHash ^= zobrist(op);
        int rank = readRank[op];
        if (rank < 0) {
            return;
        }
        if (linearize) {
            while (shortestRemainingRead < readsByLength.length && isLinearized(readsByLength[shortestRemainingRead])) {
                shortestRemainingRead++;
            }
            while (longestRemainingRead >= 0 && isLinearized(readsByLength[longestRemainingRead])) {
                longestRemainingRead--;
            }
        } else {
            shortestRemainingRead = Math.min(shortestRemainingRead, rank);
            longestRemainingRead = Math.max(longestRemainingRead, rank);
        }
    }

    private boolean isLinearized(int op) {
        return (linearized[op >>> 6] & (1L << op)) != 0;
    }

    /**
     * The state after operation {@code op} takes effect in {@code state}, or null if the model forbids
     * it or it leads to a certain dead end.
     *
     * <p>Lists only grow, so every read not linearized yet must return an extension of the list after
     * this append. An append is therefore pointless (pruned) when a remaining read is no longer than the
     * current list, or when a remaining read has a value other than this one at the current length. The
     * longest remaining read stands for all of them: when the reads are prefixes of one another (as in
     * every linearizable history) that is exact; otherwise it is still sound, only less sharp.
     */
    private ListState apply(ListState state, int op) {
        if (readValues[op] != null) {
            return state.equalsList(readValues[op], readHashes[op]) ? state : null;
        }
        long value = operations[op].appendValue();
        if (shortestRemainingRead <= longestRemainingRead) {
            if (readValues[readsByLength[shortestRemainingRead]].length <= state.length) {
                return null;
            }
            if (readValues[readsByLength[longestRemainingRead]][state.length] != value) {
                return null;
            }
        }
        return state.append(value);
    }

    /** Sorts the invoke and completion entries by event index (+infinity for indeterminate appends) and links them. */
    private void linkEntriesInRealTimeOrder() {
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
    private void lift(int invokeEntry) {
        unlink(invokeEntry);
        unlink(invokeEntry + 1);
    }

    /** Undoes {@link #lift}, in reverse order. */
    private void unlift(int invokeEntry) {
        relink(invokeEntry + 1);
        relink(invokeEntry);
    }

    private void unlink(int entry) {
        next[prev[entry]] = next[entry];
        if (next[entry] != NONE) {
            prev[next[entry]] = prev[entry];
        }
    }

    private void relink(int entry) {
        next[prev[entry]] = entry;
        if (next[entry] != NONE) {
            prev[next[entry]] = entry;
        }
    }

    /** A 64-bit key per operation; the XOR over the linearized set hashes the set incrementally (Zobrist). */
    private static long zobrist(int op) {
        return ListState.mix(op * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L);
    }

    private void rememberIfDeepest(int completionEntry) {
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
        return new ViolationReport(key, keyOperations, Arrays.asList(operations))
                .explain(bestPrefix, bestState.toList(), bestBlocking, bestCandidates);
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

    /**
     * Lowe's cache key: which operations are linearized, and the list they left. The set is stored
     * compactly as the number of leading all-linearized words plus the words after them up to the last
     * linearized operation: the search linearizes roughly in invoke order, so this is the concurrency
     * window, not the whole history, and memory stays proportional to the explored states.
     */
    private static final class Configuration {
        private final int fullWords;
        private final long[] window;
        private final long linearizedHash;
        private final ListState state;

        private Configuration(int fullWords, long[] window, long linearizedHash, ListState state) {
            this.fullWords = fullWords;
            this.window = window;
            this.linearizedHash = linearizedHash;
            this.state = state;
        }

        static Configuration of(long[] linearized, long linearizedHash, ListState state) {
            int fullWords = 0;
            while (fullWords < linearized.length && linearized[fullWords] == -1L) {
                fullWords++;
            }
            int end = linearized.length;
            while (end > fullWords && linearized[end - 1] == 0) {
                end--;
            }
            return new Configuration(fullWords, Arrays.copyOfRange(linearized, fullWords, end), linearizedHash, state);
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
            return linearizedHash == that.linearizedHash && fullWords == that.fullWords
                    && Arrays.equals(window, that.window) && state.sameList(that.state);
        }
    }
}
