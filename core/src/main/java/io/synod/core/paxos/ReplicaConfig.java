package io.synod.core.paxos;

/**
 * Static configuration of one replica. Node ids are 0..clusterSize-1. Every bound here exists so
 * that no queue, batch or message grows without limit.
 *
 * @param heartbeatIntervalNanos   a leader sends heartbeats (carrying its commit point) this often
 * @param retransmitIntervalNanos  unanswered Prepare/Accept messages are resent after this long
 * @param phase1TimeoutNanos       a candidate that cannot gather a read quorum of promises in this
 *                                 long gives up (resigns) instead of waiting forever
 * @param maxInFlightSlots         pipeline window: proposed but not yet committed slots
 * @param maxBatchEntries          entries per Accept message (and per catch-up message)
 * @param maxBatchBytes            bytes of entries per Accept message
 * @param maxPendingProposals      client commands queued while the window is full or phase 1 runs
 * @param maxCommandBytes          largest accepted command payload
 * @param snapshotEverySlots       take a snapshot after applying this many slots since the last
 * @param logRetainSlots           keep this many applied slots below the snapshot for catch-up
 * @param maxClientSessions        at-most-once table size (least recently used client evicted)
 */
public record ReplicaConfig(
        int nodeId,
        int clusterSize,
        long heartbeatIntervalNanos,
        long retransmitIntervalNanos,
        long phase1TimeoutNanos,
        int maxInFlightSlots,
        int maxBatchEntries,
        int maxBatchBytes,
        int maxPendingProposals,
        int maxCommandBytes,
        int snapshotEverySlots,
        int logRetainSlots,
        int maxClientSessions) {

    /** Node ids must fit the bit sets used for acceptor tracking. */
    public static final int MAX_CLUSTER_SIZE = 63;

    public ReplicaConfig {
        if (clusterSize < 1 || clusterSize > MAX_CLUSTER_SIZE) {
            throw new IllegalArgumentException("cluster size must be 1.." + MAX_CLUSTER_SIZE + ", got " + clusterSize);
        }
        if (nodeId < 0 || nodeId >= clusterSize) {
            throw new IllegalArgumentException("node id must be 0.." + (clusterSize - 1) + ", got " + nodeId);
        }
        positive(heartbeatIntervalNanos, "heartbeatIntervalNanos");
        positive(retransmitIntervalNanos, "retransmitIntervalNanos");
        positive(phase1TimeoutNanos, "phase1TimeoutNanos");
        positive(maxInFlightSlots, "maxInFlightSlots");
        positive(maxBatchEntries, "maxBatchEntries");
        positive(maxBatchBytes, "maxBatchBytes");
        positive(maxPendingProposals, "maxPendingProposals");
        positive(maxCommandBytes, "maxCommandBytes");
        positive(snapshotEverySlots, "snapshotEverySlots");
        if (logRetainSlots < 0) {
            throw new IllegalArgumentException("logRetainSlots must be >= 0, got " + logRetainSlots);
        }
        positive(maxClientSessions, "maxClientSessions");
    }

    private static void positive(long value, String name) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, got " + value);
        }
    }

    /** Defaults suited to a LAN cluster; tests and the simulator override what they need. */
    public static ReplicaConfig defaults(int nodeId, int clusterSize) {
        return new ReplicaConfig(nodeId, clusterSize,
                50_000_000L,      // heartbeat 50 ms
                100_000_000L,     // retransmit 100 ms
                2_000_000_000L,   // phase 1 gives up after 2 s
                256, 64, 1 << 20, 4096, 1 << 20,
                10_000, 1_000, 100_000);
    }

    public ReplicaConfig withNodeId(int id) {
        return new ReplicaConfig(id, clusterSize, heartbeatIntervalNanos, retransmitIntervalNanos,
                phase1TimeoutNanos, maxInFlightSlots, maxBatchEntries, maxBatchBytes, maxPendingProposals,
                maxCommandBytes, snapshotEverySlots, logRetainSlots, maxClientSessions);
    }

    public ReplicaConfig withSnapshotEverySlots(int every, int retain) {
        return new ReplicaConfig(nodeId, clusterSize, heartbeatIntervalNanos, retransmitIntervalNanos,
                phase1TimeoutNanos, maxInFlightSlots, maxBatchEntries, maxBatchBytes, maxPendingProposals,
                maxCommandBytes, every, retain, maxClientSessions);
    }

    public ReplicaConfig withTimers(long heartbeatNanos, long retransmitNanos, long phase1TimeoutNanos) {
        return new ReplicaConfig(nodeId, clusterSize, heartbeatNanos, retransmitNanos,
                phase1TimeoutNanos, maxInFlightSlots, maxBatchEntries, maxBatchBytes, maxPendingProposals,
                maxCommandBytes, snapshotEverySlots, logRetainSlots, maxClientSessions);
    }

    public ReplicaConfig withBatching(int inFlightSlots, int batchEntries, int batchBytes, int pendingProposals) {
        return new ReplicaConfig(nodeId, clusterSize, heartbeatIntervalNanos, retransmitIntervalNanos,
                phase1TimeoutNanos, inFlightSlots, batchEntries, batchBytes, pendingProposals,
                maxCommandBytes, snapshotEverySlots, logRetainSlots, maxClientSessions);
    }
}
