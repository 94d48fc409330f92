package io.synod.coordination;

import java.util.List;

/**
 * One replication group's configuration, stored in {@code /synod/<cluster>/groups/<g>/config}.
 *
 * @param group                the group number, 0..G-1
 * @param members              node ids of the group's replicas, strictly increasing; N = size
 * @param f                    failures tolerated; read quorum Q_R = N - F (RS-Paxos, Mu et al.,
 *                             HPDC 2014, §4)
 * @param codingDataShards     X, the number of data shards a large value is coded into;
 *                             1 = plain Paxos, at most N - 2F (RS-Paxos §4.3)
 * @param codingThresholdBytes values at or above this size are coded; below it they travel whole
 * @param leaseMode            the read-lease mechanism of the group
 * @param leaseTiming          Δ, clock bound and drift margin of that lease ({@link LeaseTiming#normalized})
 */
public record GroupConfig(int group, List<Integer> members, int f, int codingDataShards,
                          int codingThresholdBytes, LeaseMode leaseMode, LeaseTiming leaseTiming) {

    /** Upper bound on the number of groups a cluster may have. */
    public static final int MAX_GROUPS = 1024;

    public GroupConfig {
        if (group < 0 || group >= MAX_GROUPS) {
            throw new IllegalArgumentException("group must be 0.." + (MAX_GROUPS - 1) + ", got " + group);
        }
        members = List.copyOf(members);
        if (members.isEmpty() || members.size() > ClusterPaths.MAX_NODE_ID + 1) {
            throw new IllegalArgumentException("group " + group + " must have 1.." + (ClusterPaths.MAX_NODE_ID + 1)
                    + " members, got " + members.size());
        }
        int previous = -1;
        for (int id : members) {
            if (id < 0 || id > ClusterPaths.MAX_NODE_ID) {
                throw new IllegalArgumentException("group " + group + ": member id must be 0.." + ClusterPaths.MAX_NODE_ID
                        + ", got " + id);
            }
            if (id <= previous) {
                throw new IllegalArgumentException("group " + group + ": member ids must be strictly increasing, got "
                        + members);
            }
            previous = id;
        }
        int n = members.size();
        if (f < 0 || 2 * f + 1 > n) {
            throw new IllegalArgumentException("group " + group + ": F must be 0.." + (n - 1) / 2 + " for N=" + n
                    + ", got " + f);
        }
        if (codingDataShards < 1 || codingDataShards > n - 2 * f) {
            throw new IllegalArgumentException("group " + group + ": coding data shards X must be 1.." + (n - 2 * f)
                    + " for N=" + n + " F=" + f + ", got " + codingDataShards);
        }
        if (codingThresholdBytes < 0) {
            throw new IllegalArgumentException("group " + group + ": coding threshold must be >= 0 bytes, got "
                    + codingThresholdBytes);
        }
        if (leaseMode == null || leaseTiming == null) {
            throw new IllegalArgumentException("group " + group + ": lease mode and timing must be given");
        }
        leaseTiming.check(leaseMode, "group " + group);
    }

    /** A group with the default timing of its lease mode ({@link LeaseTiming#defaults}). */
    public GroupConfig(int group, List<Integer> members, int f, int codingDataShards, int codingThresholdBytes,
                       LeaseMode leaseMode) {
        this(group, members, f, codingDataShards, codingThresholdBytes, leaseMode,
                leaseMode == null ? null : LeaseTiming.defaults(leaseMode));
    }

    /** N, the number of replicas. */
    public int n() {
        return members.size();
    }

    /** Q_R = N - F. */
    public int readQuorum() {
        return n() - f;
    }
}
