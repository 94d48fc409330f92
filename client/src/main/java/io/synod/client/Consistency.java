package io.synod.client;

/**
 * How fresh a read must be (DESIGN.md, "Reads and leases").
 */
public enum Consistency {
    /**
     * Linearizable: the read reflects every write acknowledged before it started. Until leases are
     * plugged into the server this is served by the group's leader through the log (the same path as
     * {@link #LOG}); it is never answered from a replica that might be behind.
     */
    LINEARIZABLE,
    /** Sequenced through the group's log like a write: always linearizable, one replication round. */
    LOG,
    /**
     * Answered from the local state of whichever replica receives it, leader or follower, at that
     * replica's applied slot: possibly old (a follower may lag, a partitioned replica may be far
     * behind). The reply's slot says which point of the log the answer reflects.
     */
    STALE
}
