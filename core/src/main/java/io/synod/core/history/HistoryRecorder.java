package io.synod.core.history;

import java.util.ArrayList;
import java.util.List;

/**
 * Records a history as it happens, for the simulator's clients.
 *
 * <p>Each {@code invoke…} call returns an op id; report the outcome of that operation with exactly
 * one of {@link #okAppend}, {@link #okRead}, {@link #fail} or {@link #info}. Operations never
 * completed are pending when {@link #history()} is taken and count as {@code info}. Every call is
 * checked at once against the same rules as {@link History#of}, so a recording bug fails at the call
 * that made it, with an {@link InvalidHistoryException}. Not thread-safe: one simulator drives it.
 */
public final class HistoryRecorder {
    private final List<HistoryEvent> events = new ArrayList<>();
    private final HistoryValidator validator = new HistoryValidator();

    /**
     * Records that {@code process} invoked an append of {@code value} (unique per key) to {@code key}.
     *
     * @return the op id (the index of the invoke event)
     */
    public int invokeAppend(int process, String key, long value, long timeNanos) {
        return record(HistoryEvent.append(process, EventType.INVOKE, key, value, timeNanos));
    }

    /**
     * Records that {@code process} invoked a read of {@code key}.
     *
     * @return the op id (the index of the invoke event)
     */
    public int invokeRead(int process, String key, long timeNanos) {
        return record(HistoryEvent.read(process, EventType.INVOKE, key, null, timeNanos));
    }

    /** Records that the append {@code opId} took effect. */
    public void okAppend(int opId, long timeNanos) {
        HistoryEvent invoke = outstanding(opId);
        if (invoke.function() != OpFunction.APPEND) {
            throw new InvalidHistoryException(validator.eventCount(),
                    "okAppend for op " + opId + ", which is a read (use okRead): " + invoke);
        }
        complete(invoke, EventType.OK, timeNanos);
    }

    /** Records that the read {@code opId} returned {@code values} (the key's whole list, oldest first). */
    public void okRead(int opId, List<Long> values, long timeNanos) {
        HistoryEvent invoke = outstanding(opId);
        if (invoke.function() != OpFunction.READ) {
            throw new InvalidHistoryException(validator.eventCount(),
                    "okRead for op " + opId + ", which is an append (use okAppend): " + invoke);
        }
        record(HistoryEvent.read(invoke.process(), EventType.OK, invoke.key(), values, timeNanos));
    }

    /** Records that operation {@code opId} definitely did not take effect. */
    public void fail(int opId, long timeNanos) {
        complete(outstanding(opId), EventType.FAIL, timeNanos);
    }

    /** Records that the outcome of operation {@code opId} is unknown (for example, a timeout). */
    public void info(int opId, long timeNanos) {
        complete(outstanding(opId), EventType.INFO, timeNanos);
    }

    /** The history recorded so far; operations not yet completed are pending in it. */
    public History history() {
        return History.of(events);
    }

    /** The number of events recorded so far. */
    public int eventCount() {
        return events.size();
    }

    private HistoryEvent outstanding(int opId) {
        HistoryEvent invoke = validator.outstandingInvokeAt(opId);
        if (invoke == null) {
            String why = opId >= 0 && opId < events.size() && events.get(opId).type() == EventType.INVOKE
                    ? "it has already completed" : "no operation has that id";
            throw new InvalidHistoryException(validator.eventCount(),
                    "completion for op " + opId + ", which is not outstanding: " + why);
        }
        return invoke;
    }

    private void complete(HistoryEvent invoke, EventType type, long timeNanos) {
        if (invoke.function() == OpFunction.APPEND) {
            record(HistoryEvent.append(invoke.process(), type, invoke.key(), invoke.appendValue(), timeNanos));
        } else {
            record(HistoryEvent.read(invoke.process(), type, invoke.key(), null, timeNanos));
        }
    }

    private int record(HistoryEvent event) {
        int invokeIndex = validator.accept(event);
        events.add(event);
        return invokeIndex;
    }
}
