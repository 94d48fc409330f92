package io.synod.engine;

import io.synod.core.paxos.ClockReading;

/**
 * The clocks a group's read lease is judged by, at the monotonic time {@code nowNanos} the runner passed in
 * with an input. The runner's clock adds the wall-clock interval where the lease needs one (LeaseGuard's
 * bounded-uncertainty clock); a test's clock is a fake. Read once per input, so a lease is judged by the
 * time the input is handled (a paused process must not judge it by a reading from before the pause).
 */
@FunctionalInterface
public interface LeaseClock {
    /** A lease that reads no clock (none configured). */
    LeaseClock NONE = ClockReading::unbounded;

    ClockReading read(long nowNanos);
}
