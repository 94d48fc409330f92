package io.synod.coordination;

/** Which read-lease mechanism a group runs (docs/leases.md). */
public enum LeaseMode {
    /** Reads go to the leader and through the log. */
    NONE,
    /** LeaseGuard log-based leader lease (Davis, Demirbas, Deng, SIGMOD 2026) on a bounded-uncertainty clock. */
    LEADER,
    /** Quorum leases (Moraru, Andersen, Kaminsky, SoCC 2014). */
    QUORUM,
    /** Every replica holds every key; writes wait for all replicas. */
    MEGASTORE,
    /** LeaseGuard leader lease on local timers only, with a drift margin (LeaseGuard §4; no inherited reads). */
    LEADER_TIMER,
    /**
     * Quorum leases whose configurations are agreed through the log and assigned from the replicas' read
     * statistics (Moraru et al. §3, §5). Last, so the ordinals of older specs keep their meaning.
     */
    QUORUM_AUTO
}
