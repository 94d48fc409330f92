package io.synod.core.history;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * An immutable, validated history of list-append operations: the order of events is the order in
 * which they happened.
 *
 * <p>Rules (checked by {@link #of}): time never decreases; each process has at most one operation
 * outstanding; every completion ({@code ok}, {@code fail}, {@code info}) matches the outstanding invoke
 * of its process (same function, key and, for appends, value); appended values are unique per key.
 * Operations still outstanding at the end are pending and count as {@code info}.
 *
 * <p>Real-time order is the order of events: operation A precedes operation B when A's completion
 * event comes before B's invoke event (Herlihy &amp; Wing 1990 define histories as sequences of
 * events). Times are non-decreasing, so this agrees with the times wherever they differ, and breaks
 * ties between equal simulated times by what the recorder saw first.
 */
public final class History {
    private final List<HistoryEvent> events;
    private final List<Operation> operations;

    private History(List<HistoryEvent> events, List<Operation> operations) {
        this.events = events;
        this.operations = operations;
    }

    /**
     * Validates {@code events} and pairs them into operations.
     *
     * @throws InvalidHistoryException naming the first event that breaks a rule
     */
    public static History of(List<HistoryEvent> events) {
        List<HistoryEvent> copy = List.copyOf(events);
        HistoryValidator validator = new HistoryValidator();
        int[] completionIndexByInvoke = new int[copy.size()];
        for (int index = 0; index < copy.size(); index++) {
            int invokeIndex = validator.accept(copy.get(index));
            completionIndexByInvoke[index] = -1;
            if (invokeIndex != index) {
                completionIndexByInvoke[invokeIndex] = index;
            }
        }
        List<Operation> operations = new ArrayList<>();
        for (int index = 0; index < copy.size(); index++) {
            HistoryEvent invoke = copy.get(index);
            if (invoke.type() != EventType.INVOKE) {
                continue;
            }
            int completionIndex = completionIndexByInvoke[index];
            HistoryEvent completion = completionIndex < 0 ? null : copy.get(completionIndex);
            operations.add(new Operation(index, invoke.process(), invoke.function(), invoke.key(),
                    invoke.function() == OpFunction.APPEND ? invoke.appendValue() : 0,
                    completion == null ? null : completion.readValues(),
                    completion == null ? EventType.INFO : completion.type(),
                    completionIndex, invoke.timeNanos(), completion == null ? -1 : completion.timeNanos()));
        }
        return new History(copy, Collections.unmodifiableList(operations));
    }

    /** The events, in order; immutable. */
    public List<HistoryEvent> events() {
        return events;
    }

    /** The operations in the order they were invoked; immutable. */
    public List<Operation> operations() {
        return operations;
    }

    /** The keys that occur in the history, in order of first occurrence. */
    public Set<String> keys() {
        Set<String> keys = new LinkedHashSet<>();
        for (HistoryEvent event : events) {
            keys.add(event.key());
        }
        return Collections.unmodifiableSet(keys);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof History && events.equals(((History) other).events);
    }

    @Override
    public int hashCode() {
        return events.hashCode();
    }

    @Override
    public String toString() {
        return "History[" + events.size() + " events, " + operations.size() + " operations]";
    }
}
