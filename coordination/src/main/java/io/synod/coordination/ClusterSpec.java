package io.synod.coordination;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@link ClusterMetadata#createCluster} creates: G groups, each replicated on every listed
 * member, with the same F, coding and lease mode, and a shard map splitting the key space evenly
 * ({@link ShardMap#uniform}). Stored in the cluster's root znode so that a repeated creation can
 * tell "same cluster, nothing to do" from "a different cluster already has this name".
 *
 * @param groups               G, 1..256
 * @param members              node ids, strictly increasing
 * @param f                    failures tolerated per group
 * @param codingDataShards     X per group (1 = no coding)
 * @param codingThresholdBytes values at or above this size are coded
 * @param leaseMode            lease mechanism per group
 * @param leaseTiming          Δ, clock bound and drift margin of that lease
 */
public record ClusterSpec(int groups, List<Integer> members, int f, int codingDataShards,
                          int codingThresholdBytes, LeaseMode leaseMode, LeaseTiming leaseTiming) {

    public static final int DEFAULT_GROUPS = 4;
    /** Default size at or above which values are Reed-Solomon coded (when X > 1). */
    public static final int DEFAULT_CODING_THRESHOLD_BYTES = 64 * 1024;

    public ClusterSpec {
        if (groups < 1 || groups > ShardMap.MAX_UNIFORM_GROUPS) {
            throw new IllegalArgumentException("groups must be 1.." + ShardMap.MAX_UNIFORM_GROUPS + ", got " + groups);
        }
        members = List.copyOf(members);
        // One group's validation covers members, F, X, threshold and lease mode.
        new GroupConfig(0, members, f, codingDataShards, codingThresholdBytes, leaseMode, leaseTiming);
    }

    /** A spec with the default timing of its lease mode ({@link LeaseTiming#defaults}). */
    public ClusterSpec(int groups, List<Integer> members, int f, int codingDataShards, int codingThresholdBytes,
                       LeaseMode leaseMode) {
        this(groups, members, f, codingDataShards, codingThresholdBytes, leaseMode,
                leaseMode == null ? null : LeaseTiming.defaults(leaseMode));
    }

    /** G = 4, F = (N-1)/2, no coding, leader leases. */
    public static ClusterSpec defaults(List<Integer> members) {
        return new ClusterSpec(DEFAULT_GROUPS, members, (members.size() - 1) / 2, 1,
                DEFAULT_CODING_THRESHOLD_BYTES, LeaseMode.LEADER);
    }

    /** Members 0..n-1 with {@link #defaults}. */
    public static ClusterSpec defaults(int nodes) {
        List<Integer> ids = new ArrayList<>(nodes);
        for (int i = 0; i < nodes; i++) {
            ids.add(i);
        }
        return defaults(ids);
    }

    public ClusterSpec withGroups(int g) {
        return new ClusterSpec(g, members, f, codingDataShards, codingThresholdBytes, leaseMode, leaseTiming);
    }

    /** This spec with another lease mode and timing (the timing is normalized for the mode). */
    public ClusterSpec withLease(LeaseMode mode, LeaseTiming timing) {
        return new ClusterSpec(groups, members, f, codingDataShards, codingThresholdBytes, mode, timing.normalized(mode));
    }

    /** The configuration of group {@code g} under this spec. */
    public GroupConfig groupConfig(int g) {
        if (g < 0 || g >= groups) {
            throw new IllegalArgumentException("group must be 0.." + (groups - 1) + ", got " + g);
        }
        return new GroupConfig(g, members, f, codingDataShards, codingThresholdBytes, leaseMode, leaseTiming);
    }
}
