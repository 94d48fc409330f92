package io.synod.server.group.driver;

import io.synod.core.paxos.Coding;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.server.lease.GroupLease;

/**
 * Everything a {@link GroupDriver} is configured with, in one place.
 *
 * @param group the group id
 * @param replica the core replica's settings (node id, cluster size, heartbeat, pipeline window, ...)
 * @param coding how values are coded (RS-Paxos), or {@link Coding#OFF} for majorities and full copies
 * @param lease the group's read lease (the policy the replica runs behind the driver's read gate)
 * @param leaseClock the clocks that lease is judged by, read once per input at the time passed in
 * @param maxWaiters client commands waiting for their answer, at most (more are answered BUSY)
 * @param metrics the group's meters
 */
public record GroupDriverConfig(int group, ReplicaConfig replica, Coding coding, GroupLease lease, LeaseClock leaseClock,
        int maxWaiters, GroupMetrics metrics) {
    public GroupDriverConfig {
        if (replica == null || coding == null || lease == null || leaseClock == null || metrics == null) {
            throw new IllegalArgumentException("group " + group + ": a driver needs a replica config, coding, lease,"
                    + " lease clock and metrics");
        }
        if (maxWaiters <= 0) {
            throw new IllegalArgumentException("group " + group + ": maxWaiters must be > 0, got " + maxWaiters);
        }
    }

    /** A group without coding and without a read lease. */
    public static GroupDriverConfig of(int group, ReplicaConfig replica, int maxWaiters, GroupMetrics metrics) {
        return new GroupDriverConfig(group, replica, Coding.OFF, GroupLease.NONE, LeaseClock.NONE, maxWaiters, metrics);
    }

    public GroupDriverConfig withCoding(Coding value) {
        return new GroupDriverConfig(group, replica, value, lease, leaseClock, maxWaiters, metrics);
    }

    /** The same group under {@code value}, judged by that lease's own clocks. */
    public GroupDriverConfig withLease(GroupLease value) {
        return new GroupDriverConfig(group, replica, coding, value, value::read, maxWaiters, metrics);
    }

    /** The same group with its lease judged by {@code clock} (tests: a fake clock). */
    public GroupDriverConfig withLeaseClock(LeaseClock clock) {
        return new GroupDriverConfig(group, replica, coding, lease, clock, maxWaiters, metrics);
    }
}
