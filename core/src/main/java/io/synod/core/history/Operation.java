package io.synod.core.history;

import java.util.List;

/**
 * One operation of a {@link History}: an invoke event paired with its completion, if any.
 *
 * <p>An operation still outstanding when the history ends is <em>pending</em>; it has the outcome
 * {@link EventType#INFO}, because like an {@code info} operation it may have taken effect or not.
 *
 * @param id                   the index of the invoke event in the history; unique, and the op id
 *                             {@link HistoryRecorder} hands out
 * @param process              the process that issued it
 * @param function             append or read
 * @param key                  the key it acts on
 * @param appendValue          the appended value (appends only; 0 for reads)
 * @param readValues           the list returned (reads that completed ok only; otherwise null)
 * @param outcome              {@link EventType#OK}, {@link EventType#FAIL} or {@link EventType#INFO}
 * @param completionIndex      the index of the completion event, or -1 if pending
 * @param invokeTimeNanos      simulated time of the invoke event
 * @param completionTimeNanos  simulated time of the completion event, or -1 if pending
 */
public record Operation(int id, int process, OpFunction function, String key, long appendValue,
        List<Long> readValues, EventType outcome, int completionIndex, long invokeTimeNanos,
        long completionTimeNanos) {

    /** True if the history ended before the operation completed. */
    public boolean isPending() {
        return completionIndex < 0;
    }

    /**
     * A one-line description for reports, e.g. {@code #17 p3 append k7 42 ok [t=1200..1350, events 17..20]};
     * a read's list is shortened to its first and last four values when longer than nine.
     */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        text.append('#').append(id).append(" p").append(process).append(' ').append(function.jsonName())
                .append(' ').append(key);
        if (function == OpFunction.APPEND) {
            text.append(' ').append(appendValue);
        } else if (readValues != null) {
            text.append(" -> ");
            appendAbbreviated(readValues, text);
        }
        text.append(' ').append(isPending() ? "pending" : outcome.jsonName());
        text.append(" [t=").append(invokeTimeNanos).append("..");
        text.append(isPending() ? "" : Long.toString(completionTimeNanos));
        text.append(", events ").append(id).append("..");
        text.append(isPending() ? "" : Integer.toString(completionIndex));
        return text.append(']').toString();
    }

    /** Long reads would make a report unreadable: keep the ends, which is where anomalies show. */
    private static void appendAbbreviated(List<Long> values, StringBuilder text) {
        int kept = 4;
        if (values.size() <= 2 * kept + 1) {
            text.append(values);
            return;
        }
        text.append('[');
        for (int i = 0; i < kept; i++) {
            text.append(values.get(i)).append(", ");
        }
        text.append("... ").append(values.size() - 2 * kept).append(" more ...");
        for (int i = values.size() - kept; i < values.size(); i++) {
            text.append(", ").append(values.get(i));
        }
        text.append("] (").append(values.size()).append(" values)");
    }
}
