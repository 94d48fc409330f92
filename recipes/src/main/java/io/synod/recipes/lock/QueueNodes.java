package io.synod.recipes.lock;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Names of queue-lock nodes and the order of the queue. A node is named {@code _c_<attempt-uuid>-lock-<seq>}:
 * the attempt id makes the node findable when the reply to its create was lost (Curator's "protection" naming),
 * and the 10-digit sequence ZooKeeper appends orders the queue.
 */
final class QueueNodes {

    static final String PROTECTED_PREFIX = "_c_";
    static final String LOCK_MARKER = "-lock-";

    private QueueNodes() {}

    /** What a queue node of this attempt is created as (ZooKeeper appends the sequence). */
    static String namePrefix(String attemptId) {
        return PROTECTED_PREFIX + attemptId + LOCK_MARKER;
    }

    /** The sequence of a queue node, or -1 if the name is not a queue node (foreign children are ignored). */
    static long sequence(String name) {
        if (!name.startsWith(PROTECTED_PREFIX)) {
            return -1;
        }
        int marker = name.lastIndexOf(LOCK_MARKER);
        if (marker < 0) {
            return -1;
        }
        String digits = name.substring(marker + LOCK_MARKER.length());
        if (digits.isEmpty() || digits.length() > 11) {
            return -1;
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The queue as seen in one children listing, from the point of view of one node. */
    static final class View {
        /** Queue nodes in lock order. */
        final List<String> ordered;
        /** Index of our node in {@link #ordered}, or -1 if it is not there. */
        final int ourIndex;
        /** Other nodes of our own attempt: created by a create that Curator retried after a lost reply. */
        final List<String> strayDuplicates;

        private View(List<String> ordered, int ourIndex, List<String> strayDuplicates) {
            this.ordered = ordered;
            this.ourIndex = ourIndex;
            this.strayDuplicates = strayDuplicates;
        }

        boolean containsOurs() {
            return ourIndex >= 0;
        }

        boolean oursIsFirst() {
            return ourIndex == 0;
        }

        /** The node we wait for: the one just before ours. */
        String predecessor() {
            if (ourIndex <= 0) {
                throw new IllegalStateException("no predecessor: our index is " + ourIndex);
            }
            return ordered.get(ourIndex - 1);
        }
    }

    static View view(List<String> children, String ourName, String attemptId) {
        String ourPrefix = namePrefix(attemptId);
        List<String> ordered = new ArrayList<>(children.size());
        List<String> duplicates = new ArrayList<>(0);
        for (String child : children) {
            if (sequence(child) < 0) {
                continue;
            }
            if (child.startsWith(ourPrefix) && !child.equals(ourName)) {
                duplicates.add(child);
                continue;
            }
            ordered.add(child);
        }
        ordered.sort(Comparator.comparingLong(QueueNodes::sequence));
        return new View(List.copyOf(ordered), ordered.indexOf(ourName), List.copyOf(duplicates));
    }
}
