package io.synod.engine;

import io.synod.core.paxos.Role;

/**
 * What a group's driver counts and measures, as events: the runner exports them (the server's Micrometer
 * meters, {@code server.group.GroupMetrics}); the simulator and tests may ignore them ({@link #NONE}).
 * Called on the driver's caller only; an implementation read by another thread (a scrape) publishes safely.
 */
public interface DriverMetrics {
    /** Counts nothing. */
    DriverMetrics NONE = new DriverMetrics() {};

    /** The path a LINEARIZABLE read answered OK was served by. */
    enum ReadPath {
        /** Under the lease, by the leader. */
        LEASE_LEADER,
        /** Under a quorum lease, by a follower that holds the key. */
        LEASE_FOLLOWER,
        /** Through the log. */
        LOG
    }

    /** A client command was answered OK, {@code nanos} after it arrived. */
    default void commitLatency(long nanos) {}

    /** A read was answered OK by {@code path}. */
    default void read(ReadPath path) {}

    /** A quorum-lease read a holder kept waiting instead of refusing it. */
    default void holderReadWait() {}

    /** A STALE read of a deferred key was answered BUSY: its rebuild took too long. */
    default void parkedReadTimeout() {}

    /** This replica became leader. */
    default void leaderChange() {}

    /** A Ready applied {@code entries} entries. */
    default void applied(int entries) {}

    /** A shard request left (a recovery read of a coded value). */
    default void recoveryRequest() {}

    /**
     * After a pass: the replica's gauges. {@code applyLagSlots}: accepted slots not yet applied; the rest are the
     * replica's own counts (Accepts re-sent on its timer, divergent slots seen, peer messages refused for a
     * ballot too far ahead of the epochs seen).
     */
    default void afterPass(long applyLagSlots, long commitSlot, Role role, long acceptRetransmits, long divergences,
            long refusedBallots) {}

    /** The runner persisted a Ready: its write and fsync took {@code nanos} and wrote {@code entries} entries. */
    default void recordPersist(long nanos, int entries) {}
}
