package io.synod.core.paxos;

/**
 * A read-only window on a replica's defence in depth ({@link ReplicaGuard}) for the runtime's metrics
 * and log, and the simulator's checks; plus the switch its negative control uses.
 */
public final class ReplicaDefence {
    private final ReplicaGuard guard;

    ReplicaDefence(ReplicaGuard guard) {
        this.guard = guard;
    }

    /** Ballots may run this many epochs ahead of the newest epoch seen in ZooKeeper. */
    public static long epochSlack() {
        return ReplicaGuard.EPOCH_SLACK;
    }

    /** The newest epoch this replica was told of, or -1 before the first. */
    public long seenEpoch() {
        return guard.seenEpoch();
    }

    /** Messages dropped because their ballot ran too far ahead of {@link #seenEpoch()}. */
    public long refusedBallots() {
        return guard.refusedBallots();
    }

    /** Slots for which a different value than the one held (chosen, or in the same ballot) was offered. */
    public long divergences() {
        return guard.divergences();
    }

    /** A one-line description of the latest divergence (both values' checksums), or null if none. */
    public String lastDivergence() {
        return guard.lastDivergence();
    }

    /** Negative control only: accept ballots however far ahead they run (so a forged ballot can wedge). */
    public void disableEpochCheck() {
        guard.disableEpochCheck();
    }

    /** Negative control only: acknowledge any value for a chosen slot and let an Accept commit what it writes. */
    public void disableDivergenceCheck() {
        guard.disableDivergenceCheck();
    }
}
