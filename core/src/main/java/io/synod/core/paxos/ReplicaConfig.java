package io.synod.core.paxos;

/**
 * Static configuration of one replica. Node ids are 0..clusterSize-1. Every bound here exists so
 * that no queue, batch or message grows without limit.
 *
 * @param heartbeatIntervalNanos   a leader sends heartbeats (carrying its commit point) this often
 * @param retransmitIntervalNanos  unanswered Prepare/Accept messages are resent after this long
 * @param phase1TimeoutNanos       a candidate whose phase 1 makes no progress (no promise page, no
 *                                 snapshot chunk) for this long gives up (resigns) instead of waiting forever
 * @param maxInFlightSlots         pipeline window: proposed but not yet committed slots
 * @param maxBatchEntries          entries per Accept message (and per catch-up message)
 * @param maxBatchBytes            bytes of entries per Accept message
 * @param maxPendingProposals      client commands queued while the window is full or phase 1 runs
 * @param maxCommandBytes          largest accepted command payload
 * @param snapshotEverySlots       take a snapshot after applying this many slots since the last
 * @param logRetainSlots           keep this many applied slots below the snapshot for catch-up
 * @param snapshotEveryBytes       also take a snapshot once the entries applied since the last one hold this
 *                                 many bytes ({@link Entry#sizeBytes()}): the log is held in memory until a
 *                                 snapshot compacts it, so with large values a slot count alone does not bound the
 *                                 heap (10,000 slots of 512 KiB values are 5 GiB)
 * @param logRetainBytes           keep at most this many bytes of entries below the snapshot (and at most
 *                                 {@code logRetainSlots} slots): a peer further behind gets the snapshot
 * @param maxClientSessions        at-most-once table size (least recently used client evicted)
 * @param maxPromiseBytes          bytes of entries per phase 1 Promise page (the leader asks for the next page)
 * @param snapshotChunkBytes       bytes of encoded snapshot per InstallSnapshot chunk
 * @param checkQuorumNanos         a leader that heard no answer in its ballot from enough peers to make a
 *                                 phase 1 quorum (with itself) for this long steps down and resigns
 *                                 ({@link QuorumContact}, etcd's CheckQuorum; never less than four
 *                                 heartbeat intervals); 0 turns the check off
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
        long snapshotEveryBytes,
        long logRetainBytes,
        int maxClientSessions,
        int maxPromiseBytes,
        int snapshotChunkBytes,
        long checkQuorumNanos) {

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
        positive(snapshotEveryBytes, "snapshotEveryBytes");
        if (logRetainBytes < 0) {
            throw new IllegalArgumentException("logRetainBytes must be >= 0, got " + logRetainBytes);
        }
        positive(maxClientSessions, "maxClientSessions");
        positive(maxPromiseBytes, "maxPromiseBytes");
        positive(snapshotChunkBytes, "snapshotChunkBytes");
        if (checkQuorumNanos < 0) {
            throw new IllegalArgumentException("checkQuorumNanos must be >= 0 (0: off), got " + checkQuorumNanos);
        }
    }

    private static void positive(long value, String name) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, got " + value);
        }
    }

    /**
     * Bytes of applied entries between snapshots by default: 32 MiB, so that with the default 4 groups the logs a
     * node holds in memory stay below 256 MiB (with the retention) whatever the value size; slot-bound (10,000) for
     * values below about 3 KiB.
     */
    public static final long DEFAULT_SNAPSHOT_EVERY_BYTES = 32L << 20;

    /**
     * Bytes of entries kept below a snapshot by default for catch-up: 32 MiB. With 8 MiB a follower on a 50 Mbit/s
     * link fell behind the retained log with 1000 KiB coded values and was sent snapshot after snapshot
     * ({@code bench coded}: 19 MiB on the wire per write instead of 4).
     */
    public static final long DEFAULT_LOG_RETAIN_BYTES = 32L << 20;

    /** Defaults suited to a LAN cluster; tests and the simulator override what they need. */
    public static ReplicaConfig defaults(int nodeId, int clusterSize) {
        return new ReplicaConfig(nodeId, clusterSize,
                50_000_000L,      // heartbeat 50 ms
                100_000_000L,     // retransmit 100 ms
                2_000_000_000L,   // phase 1 gives up after 2 s
                256, 64, 1 << 20, 4096, 1 << 20,
                10_000, 1_000,
                DEFAULT_SNAPSHOT_EVERY_BYTES, DEFAULT_LOG_RETAIN_BYTES,
                100_000,
                1 << 20,          // a Promise page carries up to 1 MiB of entries
                256 * 1024,       // snapshots travel in 256 KiB chunks
                1_000_000_000L);  // CheckQuorum: 20 heartbeats without a quorum's answer and the leader steps down
    }

    /** A builder holding this configuration's values, to change a few and {@link Builder#build()} a new one. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    public ReplicaConfig withNodeId(int id) {
        return toBuilder().nodeId(id).build();
    }

    public ReplicaConfig withSnapshotEverySlots(int every, int retain) {
        return toBuilder().snapshotEverySlots(every).logRetainSlots(retain).build();
    }

    /** Snapshots also every {@code every} bytes of applied entries; at most {@code retain} bytes kept below one. */
    public ReplicaConfig withSnapshotEveryBytes(long every, long retain) {
        return toBuilder().snapshotEveryBytes(every).logRetainBytes(retain).build();
    }

    public ReplicaConfig withTimers(long heartbeatNanos, long retransmitNanos, long phase1TimeoutNanos) {
        return toBuilder().heartbeatIntervalNanos(heartbeatNanos).retransmitIntervalNanos(retransmitNanos)
                .phase1TimeoutNanos(phase1TimeoutNanos).build();
    }

    /** The CheckQuorum window ({@code 0}: off). */
    public ReplicaConfig withCheckQuorum(long nanos) {
        return toBuilder().checkQuorumNanos(nanos).build();
    }

    public ReplicaConfig withBatching(int inFlightSlots, int batchEntries, int batchBytes, int pendingProposals) {
        return toBuilder().maxInFlightSlots(inFlightSlots).maxBatchEntries(batchEntries).maxBatchBytes(batchBytes)
                .maxPendingProposals(pendingProposals).build();
    }

    /** Mutable copy of a configuration; {@link #build()} validates. The argument list is written here once. */
    public static final class Builder {
        private int nodeId;
        private int clusterSize;
        private long heartbeatIntervalNanos;
        private long retransmitIntervalNanos;
        private long phase1TimeoutNanos;
        private int maxInFlightSlots;
        private int maxBatchEntries;
        private int maxBatchBytes;
        private int maxPendingProposals;
        private int maxCommandBytes;
        private int snapshotEverySlots;
        private int logRetainSlots;
        private long snapshotEveryBytes;
        private long logRetainBytes;
        private int maxClientSessions;
        private int maxPromiseBytes;
        private int snapshotChunkBytes;
        private long checkQuorumNanos;

        private Builder(ReplicaConfig c) {
            nodeId = c.nodeId;
            clusterSize = c.clusterSize;
            heartbeatIntervalNanos = c.heartbeatIntervalNanos;
            retransmitIntervalNanos = c.retransmitIntervalNanos;
            phase1TimeoutNanos = c.phase1TimeoutNanos;
            maxInFlightSlots = c.maxInFlightSlots;
            maxBatchEntries = c.maxBatchEntries;
            maxBatchBytes = c.maxBatchBytes;
            maxPendingProposals = c.maxPendingProposals;
            maxCommandBytes = c.maxCommandBytes;
            snapshotEverySlots = c.snapshotEverySlots;
            logRetainSlots = c.logRetainSlots;
            snapshotEveryBytes = c.snapshotEveryBytes;
            logRetainBytes = c.logRetainBytes;
            maxClientSessions = c.maxClientSessions;
            maxPromiseBytes = c.maxPromiseBytes;
            snapshotChunkBytes = c.snapshotChunkBytes;
            checkQuorumNanos = c.checkQuorumNanos;
        }

        public ReplicaConfig build() {
            return new ReplicaConfig(nodeId, clusterSize, heartbeatIntervalNanos, retransmitIntervalNanos,
                    phase1TimeoutNanos, maxInFlightSlots, maxBatchEntries, maxBatchBytes, maxPendingProposals,
                    maxCommandBytes, snapshotEverySlots, logRetainSlots, snapshotEveryBytes, logRetainBytes, maxClientSessions, maxPromiseBytes,
                    snapshotChunkBytes, checkQuorumNanos);
        }

        public Builder nodeId(int value) {
            nodeId = value;
            return this;
        }

        public Builder clusterSize(int value) {
            clusterSize = value;
            return this;
        }

        public Builder heartbeatIntervalNanos(long value) {
            heartbeatIntervalNanos = value;
            return this;
        }

        public Builder retransmitIntervalNanos(long value) {
            retransmitIntervalNanos = value;
            return this;
        }

        public Builder phase1TimeoutNanos(long value) {
            phase1TimeoutNanos = value;
            return this;
        }

        public Builder maxInFlightSlots(int value) {
            maxInFlightSlots = value;
            return this;
        }

        public Builder maxBatchEntries(int value) {
            maxBatchEntries = value;
            return this;
        }

        public Builder maxBatchBytes(int value) {
            maxBatchBytes = value;
            return this;
        }

        public Builder maxPendingProposals(int value) {
            maxPendingProposals = value;
            return this;
        }

        public Builder maxCommandBytes(int value) {
            maxCommandBytes = value;
            return this;
        }

        public Builder snapshotEverySlots(int value) {
            snapshotEverySlots = value;
            return this;
        }

        public Builder logRetainSlots(int value) {
            logRetainSlots = value;
            return this;
        }

        public Builder snapshotEveryBytes(long value) {
            snapshotEveryBytes = value;
            return this;
        }

        public Builder logRetainBytes(long value) {
            logRetainBytes = value;
            return this;
        }

        public Builder maxClientSessions(int value) {
            maxClientSessions = value;
            return this;
        }

        public Builder maxPromiseBytes(int value) {
            maxPromiseBytes = value;
            return this;
        }

        public Builder snapshotChunkBytes(int value) {
            snapshotChunkBytes = value;
            return this;
        }

        public Builder checkQuorumNanos(long value) {
            checkQuorumNanos = value;
            return this;
        }
    }
}
