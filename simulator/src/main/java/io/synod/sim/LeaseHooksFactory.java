package io.synod.sim;

import io.synod.core.paxos.LeaseHooks;

/**
 * Builds the lease policy of one replica incarnation. A lease policy's state is volatile, so each
 * restart gets a fresh one; it sees time only through the replica (each node's drifting local clock).
 */
@FunctionalInterface
public interface LeaseHooksFactory {
    LeaseHooks create(int nodeId, int clusterSize);

    /** No leases: every read goes through the log. */
    LeaseHooksFactory NONE = (nodeId, clusterSize) -> LeaseHooks.NONE;
}
