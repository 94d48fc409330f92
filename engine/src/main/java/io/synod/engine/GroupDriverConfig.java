package io.synod.engine;

import io.synod.core.paxos.Coding;
import io.synod.core.paxos.GroupMembership;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.leases.ReadLease;

/**
 * Everything a {@link GroupDriver} is configured with, in one place.
 *
 * @param group the group id
 * @param replica the core replica's settings (node id, cluster size, heartbeat, pipeline window, ...)
 * @param coding how values are coded (RS-Paxos), or {@link Coding#OFF} for majorities and full copies
 * @param lease the group's read lease (the policy the replica runs behind the driver's read gate)
 * @param leaseClock the clocks that lease is judged by, read once per input at the time passed in
 * @param maxWaiters client commands waiting for their answer, at most (more are answered BUSY)
 * @param metrics where the driver's counts and measurements go (the runner exports them)
 * @param controls negative controls the simulator plants ({@link DriverControls#NONE} everywhere else)
 * @param membership the group's initial membership (docs/membership.md); every node votes unless the simulator says otherwise
 */
public record GroupDriverConfig(int group, ReplicaConfig replica, Coding coding, ReadLease lease, LeaseClock leaseClock,
        int maxWaiters, DriverMetrics metrics, DriverControls controls, GroupMembership membership) {
    public GroupDriverConfig {
        if (replica == null || coding == null || lease == null || leaseClock == null || metrics == null
                || controls == null || membership == null) {
            throw new IllegalArgumentException("group " + group + ": a driver needs a replica config, coding, lease,"
                    + " lease clock, metrics and controls");
        }
        if (maxWaiters <= 0) {
            throw new IllegalArgumentException("group " + group + ": maxWaiters must be > 0, got " + maxWaiters);
        }
    }

    /** A group whose every node votes. */
    public GroupDriverConfig(int group, ReplicaConfig replica, Coding coding, ReadLease lease, LeaseClock leaseClock,
            int maxWaiters, DriverMetrics metrics, DriverControls controls) {
        this(group, replica, coding, lease, leaseClock, maxWaiters, metrics, controls, GroupMembership.allVoters(replica.clusterSize()));
    }

    /** A real driver (no negative control). */
    public GroupDriverConfig(int group, ReplicaConfig replica, Coding coding, ReadLease lease, LeaseClock leaseClock,
            int maxWaiters, DriverMetrics metrics) {
        this(group, replica, coding, lease, leaseClock, maxWaiters, metrics, DriverControls.NONE);
    }

    /** A group without coding and without a read lease. */
    public static GroupDriverConfig of(int group, ReplicaConfig replica, int maxWaiters, DriverMetrics metrics) {
        return new GroupDriverConfig(group, replica, Coding.OFF, ReadLease.NONE, LeaseClock.NONE, maxWaiters, metrics);
    }

    public GroupDriverConfig withCoding(Coding value) {
        return new GroupDriverConfig(group, replica, value, lease, leaseClock, maxWaiters, metrics, controls, membership);
    }

    /** The same group under {@code value}, judged by {@code clock} (the server's real clocks, a test's fake). */
    public GroupDriverConfig withLease(ReadLease value, LeaseClock clock) {
        return new GroupDriverConfig(group, replica, coding, value, clock, maxWaiters, metrics, controls, membership);
    }

    /** The same group with its lease judged by {@code clock} (tests: a fake clock). */
    public GroupDriverConfig withLeaseClock(LeaseClock clock) {
        return new GroupDriverConfig(group, replica, coding, lease, clock, maxWaiters, metrics, controls, membership);
    }

    /** The same group starting with {@code value} as its membership (the simulator's membership world). */
    public GroupDriverConfig withMembership(GroupMembership value) {
        return new GroupDriverConfig(group, replica, coding, lease, leaseClock, maxWaiters, metrics, controls, value);
    }

    /** The same group with the negative controls {@code value} planted (the simulator only). */
    public GroupDriverConfig withControls(DriverControls value) {
        return new GroupDriverConfig(group, replica, coding, lease, leaseClock, maxWaiters, metrics, value, membership);
    }
}
