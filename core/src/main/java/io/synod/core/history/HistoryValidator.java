package io.synod.core.history;

import java.util.HashMap;
import java.util.Map;

/**
 * Checks, one event at a time, that a sequence of events is a history. Shared by {@link History#of}
 * and {@link HistoryRecorder}, so a file and a live recording obey exactly the same rules.
 */
final class HistoryValidator {
    /** Process to the index of its outstanding invoke event. */
    private final Map<Integer, Integer> outstandingInvokeByProcess = new HashMap<>();
    /** Key to (appended value to the index of the invoke that appended it): the checker relies on uniqueness. */
    private final Map<String, Map<Long, Integer>> appendInvokeByKeyAndValue = new HashMap<>();
    private final Map<Integer, HistoryEvent> invokeByIndex = new HashMap<>();
    private long lastTimeNanos = 0;
    private int eventCount = 0;

    /**
     * Accepts the next event or explains why it cannot follow the events before it.
     *
     * @return for a completion, the index of the invoke it completes; for an invoke, its own index
     * @throws InvalidHistoryException if the event does not fit
     */
    int accept(HistoryEvent event) {
        int index = eventCount;
        if (event.timeNanos() < lastTimeNanos) {
            throw new InvalidHistoryException(index, "time went backwards: " + event.timeNanos()
                    + " ns after " + lastTimeNanos + " ns in " + event);
        }
        int invokeIndex;
        if (event.type() == EventType.INVOKE) {
            invokeIndex = acceptInvoke(index, event);
        } else {
            invokeIndex = acceptCompletion(index, event);
        }
        lastTimeNanos = event.timeNanos();
        eventCount++;
        return invokeIndex;
    }

    private int acceptInvoke(int index, HistoryEvent event) {
        Integer outstanding = outstandingInvokeByProcess.get(event.process());
        if (outstanding != null) {
            throw new InvalidHistoryException(index, "process " + event.process()
                    + " invoked a second operation while the one invoked at event " + outstanding
                    + " is still outstanding: " + event);
        }
        if (event.function() == OpFunction.APPEND) {
            Map<Long, Integer> invokeByValue =
                    appendInvokeByKeyAndValue.computeIfAbsent(event.key(), key -> new HashMap<>());
            Integer earlier = invokeByValue.putIfAbsent(event.appendValue(), index);
            if (earlier != null) {
                throw new InvalidHistoryException(index, "value " + event.appendValue()
                        + " was already appended to key " + event.key() + " at event " + earlier
                        + "; appended values must be unique per key: " + event);
            }
        }
        outstandingInvokeByProcess.put(event.process(), index);
        invokeByIndex.put(index, event);
        return index;
    }

    private int acceptCompletion(int index, HistoryEvent event) {
        Integer invokeIndex = outstandingInvokeByProcess.get(event.process());
        if (invokeIndex == null) {
            throw new InvalidHistoryException(index, "completion without an invoke: process " + event.process()
                    + " has no operation outstanding: " + event);
        }
        HistoryEvent invoke = invokeByIndex.get(invokeIndex);
        if (invoke.function() != event.function() || !invoke.key().equals(event.key())) {
            throw new InvalidHistoryException(index, "completion does not match the outstanding invoke of process "
                    + event.process() + " at event " + invokeIndex + " (" + invoke + "): " + event);
        }
        if (event.function() == OpFunction.APPEND && invoke.appendValue() != event.appendValue()) {
            throw new InvalidHistoryException(index, "completion carries append value " + event.appendValue()
                    + " but the invoke at event " + invokeIndex + " appended " + invoke.appendValue() + ": " + event);
        }
        outstandingInvokeByProcess.remove(event.process());
        invokeByIndex.remove(invokeIndex);
        return invokeIndex;
    }

    /** The number of events accepted so far; also the index the next event will get. */
    int eventCount() {
        return eventCount;
    }

    /** The index of the outstanding invoke of {@code process}, or null if it has none. */
    Integer outstandingInvoke(int process) {
        return outstandingInvokeByProcess.get(process);
    }

    /** The outstanding invoke event at {@code invokeIndex}, or null if there is none there. */
    HistoryEvent outstandingInvokeAt(int invokeIndex) {
        return invokeByIndex.get(invokeIndex);
    }
}
