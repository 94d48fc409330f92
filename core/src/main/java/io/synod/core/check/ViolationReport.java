package io.synod.core.check;

import io.synod.core.history.EventType;
import io.synod.core.history.OpFunction;
import io.synod.core.history.Operation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the deepest point of a failed search into a {@link Violation} a developer can act on: the
 * prefix, the list, why each candidate could not go next, and likely causes found directly from the
 * operations (values never appended or whose append failed, stale reads, reads that are not prefixes
 * of one another). Only runs once a key is known not to be linearizable, so it favours clarity over speed.
 */
final class ViolationReport {
    private static final int MAX_LIKELY_CAUSES = 5;
    private static final int MAX_LIST_PRINTED = 16;
    /** The end of the prefix is what leads to the violation; a long run's whole prefix would bury it. */
    private static final int MAX_PREFIX_PRINTED = 20;

    private final String key;
    /** The operations the search placed, in invoke order. */
    private final List<Operation> checkedOperations;
    /** The ok reads among them, in invoke order. */
    private final List<Operation> reads = new ArrayList<>();
    private final Map<Long, Operation> failedAppendByValue = new HashMap<>();
    /** Values of every append that may have happened (ok or indeterminate). */
    private final Set<Long> appendedValues = new HashSet<>();

    /**
     * @param keyOperations     every operation of the key, including failed ones
     * @param checkedOperations the operations the search placed
     */
    ViolationReport(String key, List<Operation> keyOperations, List<Operation> checkedOperations) {
        this.key = key;
        this.checkedOperations = checkedOperations;
        for (Operation operation : keyOperations) {
            if (operation.function() == OpFunction.APPEND) {
                if (operation.outcome() == EventType.FAIL) {
                    failedAppendByValue.put(operation.appendValue(), operation);
                } else {
                    appendedValues.add(operation.appendValue());
                }
            }
        }
        for (Operation operation : checkedOperations) {
            if (operation.function() == OpFunction.READ) {
                reads.add(operation);
            }
        }
    }

    /** The violation, from the deepest point the search reached. */
    Violation explain(List<Operation> bestPrefix, List<Long> list, Operation bestBlocking, List<Operation> bestCandidates) {
        StringBuilder text = new StringBuilder();
        text.append("  longest linearizable prefix found (").append(bestPrefix.size()).append(" of ")
                .append(checkedOperations.size()).append(" operations):");
        int firstPrinted = Math.max(0, bestPrefix.size() - MAX_PREFIX_PRINTED);
        if (firstPrinted > 0) {
            text.append("\n    ... the first ").append(firstPrinted)
                    .append(" are left out here (Violation.longestLinearizablePrefix() has them all)");
        }
        for (int i = firstPrinted; i < bestPrefix.size(); i++) {
            text.append("\n    ").append(i + 1).append(". ").append(bestPrefix.get(i));
        }
        text.append("\n  list after the prefix: ").append(describeList(list));
        text.append("\n  then ").append(bestBlocking).append(" had to take effect before its completion (event ")
                .append(bestBlocking.completionIndex()).append("), but no order of the operations that could go next allows it:");
        for (Operation candidate : bestCandidates) {
            text.append("\n    ").append(candidate).append(": ").append(whyNotNext(candidate, list, bestPrefix));
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

    private String whyNotNext(Operation candidate, List<Long> list, List<Operation> bestPrefix) {
        if (candidate.function() == OpFunction.READ) {
            if (candidate.readValues().equals(list)) {
                return "matches the list here, but then the rest cannot be linearized";
            }
            return "cannot take effect here: " + describeMismatch(candidate.readValues(), list);
        }
        List<Long> extended = new ArrayList<>(list);
        extended.add(candidate.appendValue());
        Set<Integer> linearizedIds = new HashSet<>();
        for (Operation operation : bestPrefix) {
            linearizedIds.add(operation.id());
        }
        for (Operation read : checkedOperations) {
            if (read.function() == OpFunction.READ && !linearizedIds.contains(read.id())
                    && !isPrefix(extended, read.readValues())) {
                return "appending it here would contradict " + read + ", which is not linearized yet and"
                        + " so comes later, but does not start with " + describeList(extended);
            }
        }
        return "could take effect here, but then the rest cannot be linearized";
    }

    /**
     * Plain statements of what is wrong, found directly rather than by the search: reads of values
     * never appended or whose append failed, stale reads (missing an append acknowledged before the
     * read was invoked, or not extending a read that completed before it was invoked), and reads that
     * no single order of appends can explain together.
     */
    private List<String> likelyCauses() {
        List<String> causes = new ArrayList<>();
        unexplainedValues(causes);
        staleReads(causes);
        incomparableReads(causes);
        return causes.size() > MAX_LIKELY_CAUSES ? causes.subList(0, MAX_LIKELY_CAUSES) : causes;
    }

    private void unexplainedValues(List<String> causes) {
        for (Operation read : reads) {
            Set<Long> seen = new HashSet<>();
            for (long value : read.readValues()) {
                if (causes.size() >= MAX_LIKELY_CAUSES) {
                    return;
                }
                if (!seen.add(value)) {
                    causes.add("read #" + read.id() + " returned " + value + " twice");
                } else if (failedAppendByValue.containsKey(value)) {
                    causes.add("read #" + read.id() + " returned " + value + ", but its append failed,"
                            + " so it must not have happened: " + failedAppendByValue.get(value));
                } else if (!appendedValues.contains(value)) {
                    causes.add("read #" + read.id() + " returned " + value + ", which was never appended to " + key);
                }
            }
        }
    }

    /** Operations (appends or reads) completed before a read was invoked must be reflected in it. */
    private void staleReads(List<String> causes) {
        List<Operation> byCompletion = new ArrayList<>();
        for (Operation operation : checkedOperations) {
            if (operation.outcome() == EventType.OK) {
                byCompletion.add(operation);
            }
        }
        byCompletion.sort((a, b) -> Integer.compare(a.completionIndex(), b.completionIndex()));
        List<Operation> completedAppends = new ArrayList<>();
        Operation longestCompletedRead = null;
        int completed = 0;
        for (Operation read : reads) { // in invoke order
            while (completed < byCompletion.size() && byCompletion.get(completed).completionIndex() < read.id()) {
                Operation done = byCompletion.get(completed++);
                if (done.function() == OpFunction.APPEND) {
                    completedAppends.add(done);
                } else if (longestCompletedRead == null
                        || done.readValues().size() > longestCompletedRead.readValues().size()) {
                    longestCompletedRead = done;
                }
            }
            if (causes.size() >= MAX_LIKELY_CAUSES) {
                return;
            }
            Set<Long> returned = new HashSet<>(read.readValues());
            Operation missed = null;
            for (Operation append : completedAppends) {
                if (!returned.contains(append.appendValue())) {
                    missed = append;
                    break;
                }
            }
            if (missed != null) {
                causes.add("stale read: read #" + read.id() + " misses " + missed.appendValue() + ", but " + missed
                        + " was acknowledged before the read was invoked");
            } else if (longestCompletedRead != null && !isPrefix(longestCompletedRead.readValues(), read.readValues())) {
                causes.add("stale read: read #" + read.id() + " does not extend what read #"
                        + longestCompletedRead.id() + " returned, though #" + longestCompletedRead.id()
                        + " completed before #" + read.id() + " was invoked: "
                        + compare(read.readValues(), "#" + read.id(), longestCompletedRead.readValues(),
                                "#" + longestCompletedRead.id()));
            }
        }
    }

    /** Lists only grow, so all reads must be prefixes of one another; reads sorted by length show a pair that is not. */
    private void incomparableReads(List<String> causes) {
        List<Operation> byLength = new ArrayList<>(reads);
        byLength.sort((a, b) -> Integer.compare(a.readValues().size(), b.readValues().size()));
        for (int rank = 0; rank + 1 < byLength.size() && causes.size() < MAX_LIKELY_CAUSES; rank++) {
            Operation shorter = byLength.get(rank);
            Operation longer = byLength.get(rank + 1);
            if (!isPrefix(shorter.readValues(), longer.readValues())) {
                causes.add("reads #" + shorter.id() + " and #" + longer.id() + " are not prefixes of one another,"
                        + " so no single order of appends explains both: " + compare(shorter.readValues(),
                        "#" + shorter.id(), longer.readValues(), "#" + longer.id()));
                return;
            }
        }
    }

    private static boolean isPrefix(List<Long> prefix, List<Long> list) {
        return prefix.size() <= list.size() && list.subList(0, prefix.size()).equals(prefix);
    }

    /** Where two lists part: "#4 has [1, 2] (2 values), #9 has [1, 3] (2 values); they first differ at index 1: 2 vs 3". */
    private static String compare(List<Long> first, String firstName, List<Long> second, String secondName) {
        int common = 0;
        while (common < first.size() && common < second.size() && first.get(common).equals(second.get(common))) {
            common++;
        }
        String text = firstName + " has " + describeList(first) + ", " + secondName + " has " + describeList(second);
        if (common == first.size() || common == second.size()) {
            return text + "; one is a prefix of the other, up to index " + common;
        }
        return text + "; they first differ at index " + common + ": " + first.get(common) + " vs "
                + second.get(common);
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
}
