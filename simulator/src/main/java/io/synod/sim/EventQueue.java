package io.synod.sim;

import io.synod.core.util.Check;
import java.util.PriorityQueue;

/**
 * The simulator's agenda: actions ordered by (simulated time, insertion sequence), so two events at
 * the same instant fire in the order they were scheduled, the same way on every run. Bounded: a seed
 * that schedules more than {@code maxPending} events at once has run away.
 */
final class EventQueue {
    /** Something that happens at a simulated instant. */
    interface Action {
        void fire();
    }

    /** The seed scheduled more pending events than the bound allows: it has run away. */
    static final class OverflowException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        OverflowException(int maxPending) {
            super("more than " + maxPending + " pending simulator events");
        }
    }

    private record Scheduled(long timeNanos, long sequence, Action action) implements Comparable<Scheduled> {
        @Override
        public int compareTo(Scheduled other) {
            int byTime = Long.compare(timeNanos, other.timeNanos);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    private final PriorityQueue<Scheduled> queue = new PriorityQueue<>();
    private final int maxPending;
    private long nextSequence;
    private long nowNanos;

    EventQueue(int maxPending) {
        this.maxPending = maxPending;
    }

    long now() {
        return nowNanos;
    }

    void at(long timeNanos, Action action) {
        Check.state(timeNanos >= nowNanos, "event scheduled in the past: %d < %d", timeNanos, nowNanos);
        if (queue.size() >= maxPending) {
            throw new OverflowException(maxPending);
        }
        queue.add(new Scheduled(timeNanos, nextSequence++, action));
    }

    void after(long delayNanos, Action action) {
        at(nowNanos + delayNanos, action);
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    /** Advances the clock to the next event and fires it. */
    void fireNext() {
        Scheduled next = queue.poll();
        nowNanos = next.timeNanos;
        next.action.fire();
    }
}
