package io.synod.core.history;

import java.util.List;
import java.util.Objects;

/**
 * One line of a history: a process invoked an operation, or learned how it ended.
 *
 * <p>The value depends on the function and the type. An append carries its value (a long) on every
 * event. A read carries no value ({@code null}) except on {@code ok}, where it carries the list it
 * returned. The constructor enforces this, so an event that exists is well-formed on its own; whether
 * it fits the events before it is {@link History}'s business.
 */
public final class HistoryEvent {
    private final int process;
    private final EventType type;
    private final OpFunction function;
    private final String key;
    private final long appendValue;
    private final List<Long> readValues;
    private final long timeNanos;

    private HistoryEvent(int process, EventType type, OpFunction function, String key, long appendValue,
            List<Long> readValues, long timeNanos) {
        if (process < 0) {
            throw new IllegalArgumentException("process must be non-negative, got " + process);
        }
        if (timeNanos < 0) {
            throw new IllegalArgumentException("time must be non-negative, got " + timeNanos);
        }
        this.process = process;
        this.type = Objects.requireNonNull(type, "type");
        this.function = function;
        this.key = Objects.requireNonNull(key, "key");
        this.appendValue = appendValue;
        this.readValues = readValues;
        this.timeNanos = timeNanos;
    }

    /** An event of an append of {@code value} to {@code key}. */
    public static HistoryEvent append(int process, EventType type, String key, long value, long timeNanos) {
        return new HistoryEvent(process, type, OpFunction.APPEND, key, value, null, timeNanos);
    }

    /**
     * An event of a read of {@code key}.
     *
     * @param values the list the read returned: required (non-null) for {@link EventType#OK}, and
     *               must be {@code null} for every other type
     */
    public static HistoryEvent read(int process, EventType type, String key, List<Long> values, long timeNanos) {
        if (type == EventType.OK) {
            Objects.requireNonNull(values, "a read that completed ok must carry the list it returned");
            for (Long value : values) {
                Objects.requireNonNull(value, "a read's list may not contain null");
            }
            values = List.copyOf(values);
        } else if (values != null) {
            throw new IllegalArgumentException("a read's value must be null on " + type.jsonName() + ", got " + values);
        }
        return new HistoryEvent(process, type, OpFunction.READ, key, 0, values, timeNanos);
    }

    /** The client process that issued the operation; one process has at most one operation outstanding. */
    public int process() {
        return process;
    }

    public EventType type() {
        return type;
    }

    public OpFunction function() {
        return function;
    }

    public String key() {
        return key;
    }

    /**
     * The appended value.
     *
     * @throws IllegalStateException if this is not an append
     */
    public long appendValue() {
        if (function != OpFunction.APPEND) {
            throw new IllegalStateException("a read has no append value: " + this);
        }
        return appendValue;
    }

    /** The list a read returned: non-null exactly for a read that completed {@code ok}; immutable. */
    public List<Long> readValues() {
        return readValues;
    }

    /** Simulated time of the event, in nanoseconds. */
    public long timeNanos() {
        return timeNanos;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof HistoryEvent)) {
            return false;
        }
        HistoryEvent that = (HistoryEvent) other;
        return process == that.process && type == that.type && function == that.function && key.equals(that.key)
                && appendValue == that.appendValue && Objects.equals(readValues, that.readValues)
                && timeNanos == that.timeNanos;
    }

    @Override
    public int hashCode() {
        return Objects.hash(process, type, function, key, appendValue, readValues, timeNanos);
    }

    /** The event as its JSON line, which is also the most readable form for error messages. */
    @Override
    public String toString() {
        return HistoryJson.toJsonLine(this);
    }
}
