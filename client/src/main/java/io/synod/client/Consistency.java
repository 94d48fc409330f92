package io.synod.client;

/**
 * How fresh a read must be (docs/client.md).
 */
public enum Consistency {
    /**
     * Linearizable: the read reflects every write acknowledged before it started. In a group with a
     * leader lease ({@code lease=leader|leader-timer}) the leader answers it from its own state while
     * it holds the lease (LeaseGuard), otherwise through the log like {@link #LOG}. With quorum leases
     * ({@code lease=quorum|megastore}) and {@link SynodClient.Builder#readFrom} a replica holding the
     * key's lease answers it from its own state (Moraru et al., SoCC 2014, §3). It is never answered
     * from a replica that might be behind. The result's {@code servedBy} says which path served it.
     */
    LINEARIZABLE,
    /** Sequenced through the group's log like a write, even where a lease could serve it: one replication round. */
    LOG,
    /**
     * Answered from the local state of whichever replica receives it, leader or follower, at that
     * replica's applied slot: possibly old (a follower may lag, a partitioned replica may be far
     * behind). The reply's slot says which point of the log the answer reflects.
     */
    STALE
}
