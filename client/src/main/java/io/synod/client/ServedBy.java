package io.synod.client;

import io.synod.protocol.ClientFrame;

/** Which path answered a read (the server says so in its reply; docs/leases.md, "On the server"). */
public enum ServedBy {
    /** Sequenced through the group's log (writes always; reads without a lease, or with consistency LOG). */
    LOG,
    /**
     * Answered from the receiving replica's own state under a lease, linearizable: the group's leader
     * holding its LeaseGuard lease, or a replica holding the key's quorum lease (Moraru §3).
     */
    LEASE,
    /** Answered from the receiving replica's local state with no guarantee (consistency STALE). */
    LOCAL;

    /** The path of a response's {@code served} field ({@code ClientFrame.SERVED_*}). */
    static ServedBy of(int served) {
        return switch (served) {
            case ClientFrame.SERVED_LEASE -> LEASE;
            case ClientFrame.SERVED_LOCAL -> LOCAL;
            default -> LOG;
        };
    }
}
