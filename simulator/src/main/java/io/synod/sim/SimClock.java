package io.synod.sim;

import io.synod.core.util.Check;

/**
 * A node's local clock: an offset from simulated time plus a bounded drift rate, piecewise linear
 * so the drift can change and the clock can jump forward, but never runs backwards (the replica's
 * timers assume a monotonic clock, as a JVM's monotonic nanosecond timer is).
 */
final class SimClock {
    private long baseSimNanos;
    private long baseLocalNanos;
    private long driftPpm;

    SimClock(long offsetNanos, long driftPpm) {
        this.baseLocalNanos = offsetNanos;
        this.driftPpm = driftPpm;
    }

    long localNanos(long simNanos) {
        long elapsed = simNanos - baseSimNanos;
        return baseLocalNanos + elapsed + elapsed / 1_000_000 * driftPpm + (elapsed % 1_000_000) * driftPpm / 1_000_000;
    }

    void setDrift(long simNanos, long newDriftPpm) {
        Check.state(Math.abs(newDriftPpm) < 1_000_000, "drift must keep the clock moving forward");
        baseLocalNanos = localNanos(simNanos);
        baseSimNanos = simNanos;
        driftPpm = newDriftPpm;
    }

    void jumpForward(long simNanos, long jumpNanos) {
        Check.state(jumpNanos >= 0, "clocks only jump forward, got %d", jumpNanos);
        baseLocalNanos = localNanos(simNanos) + jumpNanos;
        baseSimNanos = simNanos;
    }
}
