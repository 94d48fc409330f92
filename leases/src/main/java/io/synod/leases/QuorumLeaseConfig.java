package io.synod.leases;

import io.synod.core.util.Check;

/**
 * Settings of a {@link QuorumLease} (Moraru et al., SoCC 2014, §3.5, §3.8). All durations are local
 * monotonic time; clocks need not agree with each other, only their rates are bounded by ε.
 *
 * @param leaseNanos        t_lease: a promise lasts t_lease(1−ε) of the holder's time from the moment it
 *                          sent the guard, and binds the grantor for t_lease(1+ε) of the grantor's time
 *                          from the moment it received it
 * @param guardNanos        t_guard: a promise counts only if it arrives within t_guard of its guard
 *                          (must exceed the largest round trip, or no promise ever counts, §3.5)
 * @param renewNanos        a holder sends a fresh guard to every grantor this often; must leave at least
 *                          one round trip before t_lease(1−ε) runs out (§3.8)
 * @param graceNanos        t_grace: a grantor stops renewing a holder that has not heard from a leader of
 *                          its ballot for this long; the holder's leases then run out and writes to its
 *                          keys resume after about t_grace + t_guard + t_lease
 * @param driftMarginPpm    ε, the bound on every clock's rate error, in parts per million
 * @param assignment        which replicas hold which keys (the lease configuration)
 * @param pendingWriteCheck a holder refuses to read k while it has an accepted but unapplied write to k;
 *                          false only in a negative control
 * @param waitForHolders    a write commits only after every bound holder of its key accepted it; false
 *                          only in a negative control
 * @param promisedSlotCheck a holder reads only once it applied through the slot its promises report, or
 *                          holds current-ballot entries through it (rule 4c); false only in a negative control
 * @param followsMembership a holder reads only while it votes in the membership it applied, counting promises
 *                          of that membership's voters only (docs/membership.md, rules QL1–QL2); false only in a
 *                          negative control, where it reads as if every replica voted
 */
public record QuorumLeaseConfig(long leaseNanos, long guardNanos, long renewNanos, long graceNanos, long driftMarginPpm,
        KeyAssignment assignment, boolean pendingWriteCheck, boolean waitForHolders, boolean promisedSlotCheck,
        boolean followsMembership) {
    public QuorumLeaseConfig {
        Check.argument(leaseNanos > 0 && guardNanos > 0 && renewNanos > 0 && graceNanos > 0,
                "lease, guard, renew and grace durations must be > 0 (got %d, %d, %d, %d)", leaseNanos, guardNanos,
                renewNanos, graceNanos);
        Check.argument(driftMarginPpm >= 0 && driftMarginPpm < 1_000_000, "drift margin must be 0..999999 ppm, got %d",
                driftMarginPpm);
        Check.argument(assignment != null, "key assignment must not be null");
        Check.argument(renewNanos < leaseNanos - scale(leaseNanos, driftMarginPpm),
                "renew interval %d ns leaves no time before the lease of %d ns (ε %d ppm) runs out", renewNanos, leaseNanos,
                driftMarginPpm);
    }

    /** Quorum leases with the static hashed lease quorums. */
    public static QuorumLeaseConfig quorum(long leaseNanos, long guardNanos, long renewNanos, long graceNanos,
            long driftMarginPpm) {
        return new QuorumLeaseConfig(leaseNanos, guardNanos, renewNanos, graceNanos, driftMarginPpm,
                KeyAssignment.HASHED_MAJORITY, true, true, true, true);
    }

    public QuorumLeaseConfig withAssignment(KeyAssignment keys) {
        return new QuorumLeaseConfig(leaseNanos, guardNanos, renewNanos, graceNanos, driftMarginPpm, keys, pendingWriteCheck,
                waitForHolders, promisedSlotCheck, followsMembership);
    }

    public QuorumLeaseConfig withDriftMargin(long ppm) {
        return new QuorumLeaseConfig(leaseNanos, guardNanos, renewNanos, graceNanos, ppm, assignment, pendingWriteCheck,
                waitForHolders, promisedSlotCheck, followsMembership);
    }

    /** Negative controls: switch off one of the two rules that make a holder's read safe. */
    public QuorumLeaseConfig withChecks(boolean pendingWrites, boolean holders) {
        return new QuorumLeaseConfig(leaseNanos, guardNanos, renewNanos, graceNanos, driftMarginPpm, assignment, pendingWrites,
                holders, promisedSlotCheck, followsMembership);
    }

    /** Negative control: a holder reads without regard to the slots its promises report (no rule 4c). */
    public QuorumLeaseConfig withoutPromisedSlotCheck() {
        return new QuorumLeaseConfig(leaseNanos, guardNanos, renewNanos, graceNanos, driftMarginPpm, assignment, pendingWriteCheck,
                waitForHolders, false, followsMembership);
    }

    /** Negative control: a holder reads as if every replica voted, whatever the membership it applied (no QL1–QL2). */
    public QuorumLeaseConfig ignoringMembership() {
        return new QuorumLeaseConfig(leaseNanos, guardNanos, renewNanos, graceNanos, driftMarginPpm, assignment, pendingWriteCheck,
                waitForHolders, promisedSlotCheck, false);
    }

    /** How long a holder trusts a promise, from sending its guard: t_lease(1−ε). */
    long holdLocalNanos() {
        return leaseNanos - scale(leaseNanos, driftMarginPpm);
    }

    /** How long a grantor stays bound, from receiving a guard: t_lease(1+ε). */
    long bindLocalNanos() {
        return leaseNanos + scale(leaseNanos, driftMarginPpm);
    }

    private static long scale(long nanos, long ppm) {
        return nanos / 1_000_000 * ppm + (nanos % 1_000_000) * ppm / 1_000_000 + (ppm == 0 ? 0 : 1);
    }
}
