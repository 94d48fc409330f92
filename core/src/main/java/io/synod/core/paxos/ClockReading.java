package io.synod.core.paxos;

/**
 * One reading of a replica's clocks, handed in by the runtime ({@link Replica#observeClock}) before
 * an input, for lease policies:
 *
 * @param monotonicNanos the local monotonic clock (the one {@link Replica#tick} gets); its rate may
 *                       drift within the bound the lease policy is configured with
 * @param earliestNanos  a bounded-uncertainty clock (TrueTime, ClockBound): true time is at least this
 * @param latestNanos    ... and at most this; a runtime without such a clock passes
 *                       {@link #unbounded(long)}, and policies that need bounds then never rely on them
 * @param bounded        whether {@code [earliestNanos, latestNanos]} is a trustworthy interval
 */
public record ClockReading(long monotonicNanos, long earliestNanos, long latestNanos, boolean bounded) {
    public ClockReading {
        if (earliestNanos > latestNanos) {
            throw new IllegalArgumentException("clock interval [" + earliestNanos + ", " + latestNanos + "] is empty");
        }
    }

    /** A reading with a monotonic clock only (no bounded-uncertainty interval). */
    public static ClockReading unbounded(long monotonicNanos) {
        return new ClockReading(monotonicNanos, Long.MIN_VALUE, Long.MAX_VALUE, false);
    }
}
