package io.synod.leases;

import io.synod.core.util.Check;

/**
 * Settings of automatic lease assignment from read statistics (Moraru et al., SoCC 2014, §3 and §5: a
 * replica holds leases on the keys it reads most). Every replica counts its reads per key in a bounded
 * {@link ReadCounter}; every {@code periodNanos} it sends the leader its {@code reportKeys} most-read
 * keys, and every {@code halfLifePeriods} periods it halves its counts; the leader then proposes, through the log, a configuration that gives
 * each of the (at most {@code maxKeys}) keys read at least {@code minReads} times in the reports the
 * leader plus the ⌊N/2⌋ replicas that read it most (Moraru's lease quorum), every other key to the
 * leader alone. It proposes only when that differs from the newest configuration, and never while an
 * earlier change may still have readers (docs/leases.md, "Configurations through the log").
 *
 * @param periodNanos       how often replicas report and the leader re-evaluates (local time)
 * @param reportKeys        keys per report (and per replica in the leader's view)
 * @param counterCapacity   keys each replica counts (space-saving)
 * @param maxKeys           keys one configuration lists ({@link LeaseConfiguration#MAX_KEYS} at most)
 * @param minReads          reads (summed over the replicas' reports) a key needs to be listed
 * @param stickiness        a replica that holds a key keeps it unless another reads it this many times
 *                          as often (≥ 1; damps flapping between replicas with similar counts)
 * @param halfLifePeriods   counts are halved every this many periods (≥ 1): the memory of the statistics,
 *                          long enough that a replica reading at a low rate is counted on more than one
 *                          period's reads
 * @param unlistedToAll     keys the configuration does not list are held by every replica (Megastore for
 *                          the cold keys: local reads everywhere, writes wait for everyone) instead of the
 *                          leader alone (Moraru's lease quorum of the leader only)
 * @param keepOldHolders    while a change may still have readers of the old configuration, writes wait
 *                          for the holders of both, and the leader proposes no other change; false only
 *                          in a negative control (writes wait for the newest holders only, and the leader
 *                          changes again as soon as the previous change committed)
 * @param holdersFollowChanges a holder reads under the configuration it applied, with promises of that
 *                          version, and not while a configuration entry is pending; false only in a
 *                          negative control (a holder keeps reading under version 0 with any promise)
 */
public record AutoAssignment(long periodNanos, int reportKeys, int counterCapacity, int maxKeys, long minReads,
        double stickiness, int halfLifePeriods, boolean unlistedToAll, boolean keepOldHolders, boolean holdersFollowChanges) {
    public AutoAssignment {
        Check.argument(periodNanos > 0, "assignment period must be > 0 ns, got %d", periodNanos);
        Check.argument(reportKeys >= 1 && reportKeys <= counterCapacity && counterCapacity <= 1 << 16,
                "need 1 <= report keys (%d) <= counter capacity (%d) <= 65536", reportKeys, counterCapacity);
        Check.argument(maxKeys >= 0 && maxKeys <= LeaseConfiguration.MAX_KEYS, "max keys must be 0..%d, got %d",
                LeaseConfiguration.MAX_KEYS, maxKeys);
        Check.argument(minReads >= 1, "min reads must be >= 1, got %d", minReads);
        Check.argument(stickiness >= 1 && stickiness <= 100, "stickiness must be 1..100, got %s", stickiness);
        Check.argument(halfLifePeriods >= 1 && halfLifePeriods <= 1000, "half-life must be 1..1000 periods, got %d", halfLifePeriods);
    }

    /** Automatic assignment with the configuration-change rule in force. */
    public AutoAssignment(long periodNanos, int reportKeys, int counterCapacity, int maxKeys, long minReads, double stickiness,
            int halfLifePeriods) {
        this(periodNanos, reportKeys, counterCapacity, maxKeys, minReads, stickiness, halfLifePeriods, false, true, true);
    }

    /** The same, with keys not listed held by every replica. */
    public AutoAssignment withUnlistedToAll() {
        return new AutoAssignment(periodNanos, reportKeys, counterCapacity, maxKeys, minReads, stickiness, halfLifePeriods, true,
                keepOldHolders, holdersFollowChanges);
    }

    /** Negative control: writes after a change wait only for the new configuration's holders. */
    public AutoAssignment withoutOldHolders() {
        return new AutoAssignment(periodNanos, reportKeys, counterCapacity, maxKeys, minReads, stickiness, halfLifePeriods,
                unlistedToAll, false, holdersFollowChanges);
    }

    /** Negative control: holders ignore configuration changes (read under version 0 with promises of any version). */
    public AutoAssignment withHoldersIgnoringChanges() {
        return new AutoAssignment(periodNanos, reportKeys, counterCapacity, maxKeys, minReads, stickiness, halfLifePeriods,
                unlistedToAll, keepOldHolders, false);
    }
}
