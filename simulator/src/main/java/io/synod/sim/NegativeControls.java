package io.synod.sim;

import io.synod.core.erasure.ReedSolomonCodec;
import io.synod.core.paxos.CodedValue;
import io.synod.core.paxos.Coding;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.LeaseHooks;
import io.synod.core.paxos.QuorumPolicy;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.core.paxos.ReplicaDefence;
import io.synod.core.paxos.Role;
import io.synod.core.paxos.ShardDecoder;
import io.synod.engine.DriverControls;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where each {@link Mutation} is planted: the quorum policy, the lease hooks, the disk, the group
 * driver's handlers (the order of the Ready contract among them), or the value coding (phase 1's rebuild rule, the recovery read's decoder). The simulator asks this class for each of those parts and otherwise knows
 * nothing about mutations.
 */
final class NegativeControls {
    private final Mutation mutation;

    NegativeControls(Mutation mutation) {
        this.mutation = mutation;
    }

    /** {@link Mutation#NO_EPOCH_BOUND} and {@link Mutation#NO_DIVERGENCE_CHECK}: the replica's defence in depth off. */
    void defence(ReplicaDefence defence) {
        if (mutation == Mutation.NO_EPOCH_BOUND) {
            defence.disableEpochCheck();
        } else if (mutation == Mutation.NO_DIVERGENCE_CHECK) {
            defence.disableDivergenceCheck();
        }
    }

    /**
     * {@link Mutation#CODED_MAJORITY_WRITE}: with coding, phase 1 still needs {@code Q_R = N - F}
     * promises, but every value (coded ones too) commits with a plain majority instead of {@code Q_W(X)}.
     */
    QuorumPolicy quorum(SimCoding coding) {
        if (coding.enabled()) {
            QuorumPolicy real = coding.coding().quorum();
            if (mutation != Mutation.CODED_MAJORITY_WRITE) {
                return real;
            }
            return new QuorumPolicy() {
                @Override
                public int phase1Quorum(int clusterSize) {
                    return real.phase1Quorum(clusterSize);
                }

                @Override
                public boolean isWriteQuorum(Entry entry, int acceptances, int clusterSize) {
                    return acceptances >= clusterSize / 2 + 1;
                }

                @Override
                public String toString() {
                    return "coded-majority-write (mutation)";
                }
            };
        }
        return quorum();
    }

    /**
     * {@link Mutation#PHASE1_FEW_SHARDS}: phase 1 re-proposes values it cannot rebuild;
     * {@link Mutation#RECOVERY_SKIPS_CRC}: recovery reads decode without any checksum check;
     * {@link Mutation#DEFERRED_STALE_READ}: deferred keys are read without being rebuilt.
     */
    Coding coding(Coding real) {
        if (mutation == Mutation.PHASE1_FEW_SHARDS) {
            return real.withUnrebuildableReproposals();
        }
        if (mutation == Mutation.RECOVERY_SKIPS_CRC) {
            return real.withDecoder(UNCHECKED_DECODER);
        }
        if (mutation == Mutation.CODING_CHANGE_STALE_QUORUM) {
            return real.withStalePhase1Quorum();
        }
        if (mutation == Mutation.DEFERRED_STALE_READ) {
            return (real.defersRebuild() ? real : real.withDeferredRebuild()).withUnresolvedReads();
        }
        return real;
    }

    /**
     * Reads the shard header fields and payload as they are (format of {@link io.synod.core.erasure.ValueShard})
     * and rebuilds with the bare codec: no shard CRC32C, no value CRC32C.
     */
    private static final ShardDecoder UNCHECKED_DECODER = new ShardDecoder() {
        @Override
        public int usableShards(CodedValue coding, List<byte[]> encoded) {
            return byIndex(coding, encoded).size();
        }

        @Override
        public byte[] rebuild(CodedValue coding, List<byte[]> encoded) {
            Map<Integer, byte[]> shards = byIndex(coding, encoded);
            int data = coding.dataShards();
            int total = coding.totalShards();
            if (shards.size() < data) {
                return null;
            }
            int payload = (coding.valueLength() + data - 1) / data;
            byte[][] stripe = new byte[total][];
            boolean[] present = new boolean[total];
            for (int i = 0; i < total; i++) {
                byte[] shard = shards.get(i);
                present[i] = shard != null;
                stripe[i] = shard == null ? new byte[payload] : Arrays.copyOfRange(shard, HEADER, HEADER + payload);
            }
            new ReedSolomonCodec(data, total - data).reconstructData(stripe, present, 0, payload);
            byte[] value = new byte[coding.valueLength()];
            for (int k = 0; k < data; k++) {
                int start = k * payload;
                int copied = Math.max(0, Math.min(payload, value.length - start));
                System.arraycopy(stripe[k], 0, value, start, copied);
            }
            return value;
        }

        private static final int HEADER = 17;

        private Map<Integer, byte[]> byIndex(CodedValue coding, List<byte[]> encoded) {
            int payload = (coding.valueLength() + coding.dataShards() - 1) / coding.dataShards();
            Map<Integer, byte[]> shards = new TreeMap<>();
            for (byte[] shard : encoded) {
                int index = shard.length > 4 ? shard[4] & 0xFF : -1;
                if (index >= 0 && index < coding.totalShards() && shard.length >= HEADER + payload) {
                    shards.putIfAbsent(index, shard);
                }
            }
            return shards;
        }

        @Override
        public String toString() {
            return "unchecked (mutation)";
        }
    };

    /** {@link Mutation#NO_CHECK_QUORUM}: the replica configuration with CheckQuorum off. */
    ReplicaConfig replicaConfig(ReplicaConfig real) {
        return mutation == Mutation.NO_CHECK_QUORUM ? real.withCheckQuorum(0) : real;
    }

    /** {@link Mutation#WRITE_QUORUM_TOO_SMALL}: phase 1 uses majorities, a value commits with one acceptance fewer. */
    QuorumPolicy quorum() {
        if (mutation != Mutation.WRITE_QUORUM_TOO_SMALL) {
            return QuorumPolicy.MAJORITY;
        }
        return new QuorumPolicy() {
            @Override
            public int phase1Quorum(int clusterSize) {
                return clusterSize / 2 + 1;
            }

            @Override
            public boolean isWriteQuorum(Entry entry, int acceptances, int clusterSize) {
                return acceptances >= clusterSize / 2;
            }

            @Override
            public String toString() {
                return "majority-minus-one (mutation)";
            }
        };
    }

    /** {@link Mutation#LOCAL_READS_WITHOUT_LEASE}: every read is answered locally, with no lease. */
    LeaseHooksFactory leases(LeaseHooksFactory requested) {
        if (mutation != Mutation.LOCAL_READS_WITHOUT_LEASE) {
            return requested;
        }
        LeaseHooks localReads = new LeaseHooks() {
            @Override
            public boolean mayServeLocalRead(Role role, Command read, long nowNanos) {
                return role == Role.LEADER; // Any leader, deposed or not (followers are asked too since leases came).
            }

            @Override
            public boolean mayCommit(Entry entry, long nowNanos) {
                return true;
            }

            @Override
            public long requiredAcceptors(Entry entry) {
                return 0L;
            }

            @Override
            public String toString() {
                return "local-reads-without-lease (mutation)";
            }
        };
        return (node, size) -> localReads;
    }

    /** {@link Mutation#SHARED_FSYNC_SKIPS_GROUP}: the node log completes requests its fsync did not cover. */
    boolean sharedFsyncSkipsGroup() {
        return mutation == Mutation.SHARED_FSYNC_SKIPS_GROUP;
    }

    /** {@link Mutation#PROMISE_NOT_PERSISTED}: the disk drops promised-ballot writes. */
    boolean diskDropsPromises() {
        return mutation == Mutation.PROMISE_NOT_PERSISTED;
    }

    /**
     * The parts planted in the group driver: the quorum policy the replica runs ({@code quorum}, which the quorum
     * mutations replace), and the driver's own bugs: {@link Mutation#SEND_BEFORE_FSYNC} (a Ready's messages and
     * replies leave when its fsync starts instead of when it completes), {@link Mutation#REPLY_BEFORE_FSYNC},
     * {@link Mutation#HOLDER_READ_EARLY} and {@link Mutation#WATCH_OUT_OF_ORDER}.
     */
    DriverControls driver(QuorumPolicy quorum) {
        DriverControls.Bug bug = switch (mutation) {
            case SEND_BEFORE_FSYNC -> DriverControls.Bug.SEND_BEFORE_FSYNC;
            case REPLY_BEFORE_FSYNC -> DriverControls.Bug.REPLY_BEFORE_FSYNC;
            case HOLDER_READ_EARLY -> DriverControls.Bug.HOLDER_READ_EARLY;
            case WATCH_OUT_OF_ORDER -> DriverControls.Bug.WATCH_OUT_OF_ORDER;
            default -> DriverControls.Bug.NONE;
        };
        return new DriverControls(quorum, bug);
    }
}
