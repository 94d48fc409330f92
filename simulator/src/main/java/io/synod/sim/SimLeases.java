package io.synod.sim;

import io.synod.core.paxos.ClockReading;
import io.synod.core.util.Check;

/**
 * The lease side of a simulated world: the policy per replica incarnation and the clocks it may rely
 * on. Each node then gets, before every input, a {@link ClockReading}: its drifting local monotonic
 * clock (the one its timers run on) and a bounded-uncertainty interval of width
 * {@code 2 * clockUncertaintyNanos} that always contains the simulated true time (a TrueTime-like
 * clock whose error varies per node and millisecond within the bound).
 *
 * @param name                  for reports ("leader", "none", ...)
 * @param factory               one policy per replica incarnation
 * @param clockUncertaintyNanos half-width of the bounded-uncertainty interval
 * @param driftFaultMaxPpm      bound of the drift-rate changes the clock faults inject (the bound a
 *                              timer-based lease's drift margin must cover)
 * @param monotonicJumps        whether clock faults may make local monotonic clocks jump forward
 *                              (a jump is drift beyond any bound: timer-only leases are unsafe under it)
 * @param initialDriftMaxPpm    bound of each node's clock rate error from the start of a seed (the
 *                              simulator's usual ±100 ppm, or up to the drift bound)
 * @param isolationDeposes      an isolated leader also loses its election session: after the oracle's
 *                              detection delay another node is elected behind its back, while clients
 *                              still reach the old leader (the case a lease must get right: a deposed
 *                              leader that does not know it, serving reads)
 * @param handoverFaults        the leader-lease faults (leader-lease worlds only, so other worlds keep
 *                              their schedules): {@code ISOLATE_AFTER_COMMIT}, the leader cut off right
 *                              after its commit point advanced and deposed at once, with a client that
 *                              follows the oracle writing at the successor and then another client
 *                              (whose view of the oracle lags) reading the same key at the old leader
 */
public record SimLeases(String name, LeaseHooksFactory factory, long clockUncertaintyNanos, long driftFaultMaxPpm,
        boolean monotonicJumps, long initialDriftMaxPpm, boolean isolationDeposes, boolean handoverFaults) {
    /** Default uncertainty of the interval clock: 1 ms (scaled like the simulator's other timers). */
    public static final long DEFAULT_UNCERTAINTY_NANOS = SimTiming.MILLIS;

    /** No leases: exactly the simulator without a lease policy. */
    public static final SimLeases NONE = new SimLeases("none", LeaseHooksFactory.NONE, DEFAULT_UNCERTAINTY_NANOS,
            SimTiming.DRIFT_FAULT_MAX_PPM, true, SimTiming.DRIFT_NORMAL_MAX_PPM, false, false);

    public SimLeases {
        Check.argument(name != null && factory != null, "lease world needs a name and a policy factory");
        Check.argument(clockUncertaintyNanos >= 0, "clock uncertainty must be >= 0, got %d", clockUncertaintyNanos);
        Check.argument(driftFaultMaxPpm >= 0 && driftFaultMaxPpm < 500_000, "drift bound must be 0..499999 ppm, got %d",
                driftFaultMaxPpm);
        Check.argument(!handoverFaults || isolationDeposes, "hand-over faults need a world whose isolated leader is deposed");
        Check.argument(initialDriftMaxPpm >= 0 && initialDriftMaxPpm <= driftFaultMaxPpm,
                "initial drift must be 0..%d ppm, got %d", driftFaultMaxPpm, initialDriftMaxPpm);
    }

    /**
     * A policy with the default clocks (drift faults up to the simulator's usual ±2 %, jumps allowed),
     * where an isolated leader is deposed behind its back.
     */
    public static SimLeases of(String name, LeaseHooksFactory factory) {
        return new SimLeases(name, factory, DEFAULT_UNCERTAINTY_NANOS, SimTiming.DRIFT_FAULT_MAX_PPM, true,
                SimTiming.DRIFT_NORMAL_MAX_PPM, true, false);
    }

    /**
     * Clocks whose rates err by up to {@code ppm} from the start of the seed and under clock faults,
     * jumping forward under clock faults only if {@code jumps}.
     */
    public SimLeases withDriftWithin(long ppm, boolean jumps) {
        return new SimLeases(name, factory, clockUncertaintyNanos, ppm, jumps, ppm, isolationDeposes, handoverFaults);
    }

    public SimLeases withIsolationDeposes(boolean deposes) {
        return new SimLeases(name, factory, clockUncertaintyNanos, driftFaultMaxPpm, monotonicJumps, initialDriftMaxPpm,
                deposes, handoverFaults && deposes);
    }

    /** With the leader-lease faults ({@link #handoverFaults()}). */
    public SimLeases withHandoverFaults(boolean on) {
        return new SimLeases(name, factory, clockUncertaintyNanos, driftFaultMaxPpm, monotonicJumps, initialDriftMaxPpm,
                isolationDeposes, on);
    }

    /** The reading of node {@code node} at simulated time {@code simNanos} with local clock {@code localNanos}. */
    ClockReading reading(long seed, int node, long simNanos, long localNanos) {
        long u = clockUncertaintyNanos;
        long bucket = simNanos / SimTiming.MILLIS;
        long hash = SimRandom.splitMix64(seed * 0x9E3779B97F4A7C15L ^ (node + 1L) * 0xBF58476D1CE4E5B9L ^ bucket);
        long error = u == 0 ? 0 : Math.floorMod(hash, 2 * u + 1) - u;
        long reading = simNanos + error;
        return new ClockReading(localNanos, reading - u, reading + u, true);
    }
}
