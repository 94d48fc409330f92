package io.synod.coordination;

/**
 * The time parameters of a group's lease, part of its configuration so every member runs the same
 * lease (a member that disagrees refuses to start). Only the parameters the mode uses are kept; the
 * others are 0, so two configurations differ only where it matters ({@link #normalized}).
 *
 * @param deltaMillis      Δ, how long a log entry vouches for its creator's lease (LeaseGuard §3);
 *                         0 for {@link LeaseMode#NONE}
 * @param clockBoundMicros the bound on every node's wall-clock error, used as the uncertainty
 *                         interval {@code [wall - bound, wall + bound]} ({@link LeaseMode#LEADER} only)
 * @param driftPpm         ε, the bound on the local clock's rate error in parts per million
 *                         ({@link LeaseMode#LEADER_TIMER} and the quorum-lease modes, LeaseGuard §4)
 */
public record LeaseTiming(int deltaMillis, int clockBoundMicros, int driftPpm) {
    public static final int DEFAULT_DELTA_MILLIS = 1000;
    public static final int DEFAULT_CLOCK_BOUND_MICROS = 10_000;
    public static final int DEFAULT_DRIFT_PPM = 10_000;
    public static final int MAX_DELTA_MILLIS = 600_000;

    public static final LeaseTiming NONE = new LeaseTiming(0, 0, 0);

    public LeaseTiming {
        if (deltaMillis < 0 || deltaMillis > MAX_DELTA_MILLIS) {
            throw new IllegalArgumentException("lease delta must be 0.." + MAX_DELTA_MILLIS + " ms, got " + deltaMillis);
        }
        if (clockBoundMicros < 0) {
            throw new IllegalArgumentException("clock uncertainty bound must be >= 0 us, got " + clockBoundMicros);
        }
        if (driftPpm < 0 || driftPpm >= 1_000_000) {
            throw new IllegalArgumentException("drift margin must be 0..999999 ppm, got " + driftPpm);
        }
    }

    /** The defaults for {@code mode}: Δ = 1 s, clock bound 10 ms, ε = 1 %. */
    public static LeaseTiming defaults(LeaseMode mode) {
        return new LeaseTiming(DEFAULT_DELTA_MILLIS, DEFAULT_CLOCK_BOUND_MICROS, DEFAULT_DRIFT_PPM).normalized(mode);
    }

    /** This timing with the parameters {@code mode} does not use set to 0. */
    public LeaseTiming normalized(LeaseMode mode) {
        return switch (mode) {
            case NONE -> NONE;
            case LEADER -> new LeaseTiming(deltaMillis, clockBoundMicros, 0);
            case LEADER_TIMER -> new LeaseTiming(deltaMillis, 0, driftPpm);
            case QUORUM, QUORUM_AUTO, MEGASTORE -> new LeaseTiming(deltaMillis, 0, driftPpm);
        };
    }

    /** Checks this timing fits {@code mode} (normalized, Δ > 0 for a lease); the message names the group. */
    void check(LeaseMode mode, String where) {
        if (!equals(normalized(mode))) {
            throw new IllegalArgumentException(where + ": lease timing " + this + " has parameters lease mode " + mode
                    + " does not use (expected " + normalized(mode) + ")");
        }
        if (mode != LeaseMode.NONE && deltaMillis == 0) {
            throw new IllegalArgumentException(where + ": lease mode " + mode + " needs a lease delta > 0 ms");
        }
    }
}
