package io.synod.leases;

import io.synod.core.util.Check;

/**
 * Settings of a {@link LeaderLease}.
 *
 * @param leaseNanos        Δ, how long an entry vouches for its creator's lease (LeaseGuard §3)
 * @param clock             which clock the lease relies on
 * @param driftMarginPpm    ε, the bound on the local clock's rate error, in parts per million
 *                          ({@link Clock#TIMER} only: reads stop after Δ(1−ε) of local time, a new
 *                          leader waits Δ(1+ε), §4)
 * @param deferredCommit    a new leader defers its commit point until the old leases expired (§3.2);
 *                          false only in a negative control
 * @param inheritedReads    a new leader serves reads of keys outside its limbo region while it waits
 *                          (§3.3; needs {@link Clock#BOUNDED})
 * @param limboCheck        inherited reads skip keys written in the limbo region; false only in a
 *                          negative control
 * @param readsWithoutLease the "inconsistent" baseline of LeaseGuard's evaluation (Fig. 7): a node that
 *                          believes it leads answers every read locally, with no lease at all (stale
 *                          reads are possible after a failover); only for experiments, never safe
 * @param logLease          the "log lease" baseline of LeaseGuard's evaluation (Fig. 7): a new leader
 *                          takes no client command into its log (answers BUSY) until the old lease
 *                          expired, instead of accepting and replicating meanwhile (deferred commit);
 *                          only for experiments (safe, slower)
 * @param endLeaseStopsReads a leader stops lease reads once it created its end-lease entry (planned
 *                          hand-over); false only in a negative control
 * @param waitsForNonVoters a new leader waits out its predecessor's lease even when the predecessor is no voter of
 *                          the membership it applied (rule LL1, docs/membership.md: a removed leader may still read
 *                          on entries the voters chose); false only in a negative control
 */
public record LeaderLeaseConfig(long leaseNanos, Clock clock, long driftMarginPpm, boolean deferredCommit,
        boolean inheritedReads, boolean limboCheck, boolean readsWithoutLease, boolean logLease, boolean endLeaseStopsReads,
        boolean waitsForNonVoters) {
    /** What the lease trusts about time. */
    public enum Clock {
        /** A bounded-uncertainty clock ([earliest, latest] contains true time): stamps compare across nodes. */
        BOUNDED,
        /** Only each node's local monotonic clock, whose rate errs by at most ε: no cross-node comparison. */
        TIMER
    }

    public LeaderLeaseConfig {
        Check.argument(leaseNanos > 0, "lease duration must be > 0, got %d", leaseNanos);
        Check.argument(clock != null, "clock must not be null");
        Check.argument(driftMarginPpm >= 0 && driftMarginPpm < 1_000_000, "drift margin must be 0..999999 ppm, got %d",
                driftMarginPpm);
        Check.argument(!inheritedReads || clock == Clock.BOUNDED,
                "inherited lease reads need a bounded-uncertainty clock (LeaseGuard §4)");
        Check.argument(!readsWithoutLease || (!deferredCommit && !inheritedReads),
                "reads without a lease (the inconsistent baseline) make deferred commit and inherited reads meaningless");

        Check.argument(!logLease || (deferredCommit && !inheritedReads),
                "the log-lease baseline waits for the old lease like deferred commit and serves no inherited reads");
    }

    /** The seven-argument form: no log-lease baseline, the end-lease entry stops reads. */
    public LeaderLeaseConfig(long leaseNanos, Clock clock, long driftMarginPpm, boolean deferredCommit, boolean inheritedReads,
            boolean limboCheck, boolean readsWithoutLease) {
        this(leaseNanos, clock, driftMarginPpm, deferredCommit, inheritedReads, limboCheck, readsWithoutLease, false, true, true);
    }

    /** The six-argument form: a real lease (reads only with a valid lease). */
    public LeaderLeaseConfig(long leaseNanos, Clock clock, long driftMarginPpm, boolean deferredCommit, boolean inheritedReads,
            boolean limboCheck) {
        this(leaseNanos, clock, driftMarginPpm, deferredCommit, inheritedReads, limboCheck, false);
    }

    /**
     * LeaseGuard's "inconsistent" baseline (Fig. 7): the leader reads locally without any lease and a
     * new leader commits at once. Not linearizable across a failover; for availability experiments only.
     */
    public static LeaderLeaseConfig inconsistent(long leaseNanos) {
        return new LeaderLeaseConfig(leaseNanos, Clock.BOUNDED, 0, false, false, false, true);
    }

    /** LeaseGuard with a bounded-uncertainty clock: deferred commit and inherited reads. */
    public static LeaderLeaseConfig bounded(long leaseNanos) {
        return new LeaderLeaseConfig(leaseNanos, Clock.BOUNDED, 0, true, true, true);
    }

    /** Timer-only leases with drift margin ε (no inherited reads, §4). */
    public static LeaderLeaseConfig timer(long leaseNanos, long driftMarginPpm) {
        return new LeaderLeaseConfig(leaseNanos, Clock.TIMER, driftMarginPpm, true, false, false);
    }

    /**
     * LeaseGuard's "log lease" baseline (Fig. 7): lease reads, and a new leader that neither commits,
     * nor serves reads, nor takes client commands into its log until the old lease expired (no deferred
     * commit backlog, no inherited reads). Safe; for availability experiments.
     */
    public static LeaderLeaseConfig logLease(long leaseNanos) {
        return new LeaderLeaseConfig(leaseNanos, Clock.BOUNDED, 0, true, false, true, false, true, true, true);
    }

    public LeaderLeaseConfig withDeferredCommit(boolean on) {
        return new LeaderLeaseConfig(leaseNanos, clock, driftMarginPpm, on, inheritedReads, limboCheck, readsWithoutLease, logLease,
                endLeaseStopsReads, waitsForNonVoters);
    }

    public LeaderLeaseConfig withInheritedReads(boolean on, boolean checkLimbo) {
        return new LeaderLeaseConfig(leaseNanos, clock, driftMarginPpm, deferredCommit, on, checkLimbo, readsWithoutLease, logLease,
                endLeaseStopsReads, waitsForNonVoters);
    }

    /** The negative control with false: a leader keeps reading on its lease after its end-lease entry. */
    public LeaderLeaseConfig withEndLeaseStopsReads(boolean on) {
        return new LeaderLeaseConfig(leaseNanos, clock, driftMarginPpm, deferredCommit, inheritedReads, limboCheck, readsWithoutLease,
                logLease, on, waitsForNonVoters);
    }

    /**
     * The negative control of rule LL1 with false: a new leader whose predecessor (the creator of the newest entry of
     * an earlier ballot in its log) is no voter of the membership it applied skips its deferred-commit wait.
     */
    public LeaderLeaseConfig withWaitsForNonVoters(boolean on) {
        return new LeaderLeaseConfig(leaseNanos, clock, driftMarginPpm, deferredCommit, inheritedReads, limboCheck, readsWithoutLease,
                logLease, endLeaseStopsReads, on);
    }

    /** Local time a leader may read for after creating an entry: Δ(1−ε). */
    long readWindowLocalNanos() {
        return leaseNanos - scale(leaseNanos, driftMarginPpm);
    }

    /** Local time a new leader waits before committing: Δ(1+ε). */
    long deferLocalNanos() {
        return leaseNanos + scale(leaseNanos, driftMarginPpm) + 1;
    }

    private static long scale(long nanos, long ppm) {
        return nanos / 1_000_000 * ppm + (nanos % 1_000_000) * ppm / 1_000_000 + (ppm == 0 ? 0 : 1);
    }
}
