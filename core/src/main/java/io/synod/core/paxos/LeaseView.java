package io.synod.core.paxos;

/**
 * What a lease policy may see of its replica (read-only): who it is, its role and ballot, its log
 * and commit point, and the latest {@link ClockReading}. Handed to the policy once, by
 * {@link LeaseHooks#attach}; valid for the replica's lifetime.
 */
public interface LeaseView {
    int self();

    int clusterSize();

    Role role();

    /** This replica's ballot while CANDIDATE or LEADER, else null. */
    Ballot ownBallot();

    /** The highest ballot this replica promised. */
    Ballot promised();

    long commitSlot();

    long appliedSlot();

    /** Highest slot holding an accepted entry (or the snapshot's slot). */
    long lastSlot();

    long snapshotSlot();

    /** The entry accepted in {@code slot}, or null (none, or compacted). */
    Entry entry(long slot);

    /** The latest clock reading the runtime handed in, or null if it never did. */
    ClockReading clock();

    /**
     * The voters (bit i = replica i) of the membership this replica applied (docs/membership.md): the replicas
     * whose acceptances choose the slots after its applied slot, unless a change past it is chosen.
     */
    default long appliedVoters() {
        return clusterSize() >= 64 ? -1L : (1L << clusterSize()) - 1;
    }

    /**
     * Leader side: the voters of the membership at the leader's commit point, then of each membership a change
     * in its log past that point sets, so config(s) is among them for every slot s it may commit
     * (docs/membership.md rule M1). Others: only {@link #appliedVoters()}.
     */
    default long[] votersInFlight() {
        return new long[] {appliedVoters()};
    }

    /**
     * The fewest replicas among {@code voters} that meet every write quorum of the slots past this replica's applied
     * slot: the phase 1 quorum. A majority without coding; with RS-Paxos {@code Q_R = voters - F} (§4), F the
     * smallest of the applied coding and of every coding change in its log past the applied slot, because a plain
     * value is chosen by only {@code F + 1} acceptances, fewer than a majority when F + 1 &lt;= voters/2
     * (docs/membership.md, rule QL2).
     */
    default int readQuorum(int voters) {
        return voters / 2 + 1;
    }

    /** Sends a lease policy's own message to a peer (it leaves with the next {@link Ready}, like any other). */
    void send(Message.Lease message);

    /**
     * Answers a read-only state-machine payload against this replica's applied state (a policy that
     * keeps its own settings in the state, e.g. a quorum-lease configuration agreed through the log,
     * reads them back after a snapshot). Null if the state cannot answer it now.
     */
    default byte[] readState(byte[] payload) {
        return null;
    }
}
