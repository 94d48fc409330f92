package io.synod.coordination;

/** Which read-lease mechanism a group runs (DESIGN.md, "Reads and leases"). */
public enum LeaseMode {
    /** Reads go to the leader and through the log. */
    NONE,
    /** LeaseGuard log-based leader lease (Davis, Demirbas, Deng, SIGMOD 2026). */
    LEADER,
    /** Quorum leases (Moraru, Andersen, Kaminsky, SoCC 2014). */
    QUORUM,
    /** Every replica holds every key; writes wait for all replicas. */
    MEGASTORE
}
