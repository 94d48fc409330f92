package io.synod.core.paxos;

/**
 * What every role of one replica shares: who it is, its configuration and clock, where it stands
 * (role, own ballot, leader hint) and the output being gathered for the next {@link Ready}. The
 * roles ({@link Acceptor}, {@link Phase1}, {@link Leader}, {@link Learner}, {@link CatchUp},
 * {@link Clients}) read and write it. {@link Replica} makes every role change except the promotion
 * to LEADER, which {@link Phase1} makes when its read quorum is complete.
 */
final class ReplicaContext {
    final ReplicaConfig config;
    final int self;
    final int clusterSize;
    final Outbox out = new Outbox();
    /**
     * The group's value coding (RS-Paxos), {@link Coding#OFF} for plain Multi-Paxos: the one this replica
     * was built with, changed by every coding-change entry it applied (or the coding a snapshot it
     * installed recorded). The leader codes new values with the coding after its commit point instead.
     */
    Coding coding;
    /** The coding this replica was built with (the group's configuration before any change). */
    final Coding initialCoding;
    /**
     * The group's configuration of replicas (docs/membership.md) after the applied slot: the one this replica
     * was built with, changed by every membership-change entry it applied (or the one a snapshot it installed
     * recorded). The leader counts a slot with the configuration in force at that slot instead.
     */
    GroupMembership membership;
    final GroupMembership initialMembership;
    /** The membership rules' switches, on except in the simulator's negative controls. */
    final MembershipGuards membershipGuards = new MembershipGuards();
    /** Whole values of coded entries this replica encoded or rebuilt (bounded). */
    final ValueCache cache;
    /** Epoch bound and divergence detection (defence in depth, docs/security.md). */
    final ReplicaGuard guard = new ReplicaGuard();

    /** The replica's clock: only moves forward (a clock that steps back is treated as standing still). */
    long nowNanos;
    Role role = Role.FOLLOWER;
    /** This replica's ballot while CANDIDATE or LEADER. */
    Ballot ownBallot;
    int leaderHint = -1;
    /** The lease policy ({@link LeaseHooks#NONE} without leases) and the latest clock reading for it (null until one came). */
    LeaseHooks leases = LeaseHooks.NONE;
    ClockReading clock;

    ReplicaContext(ReplicaConfig config, Coding coding, GroupMembership membership, long nowNanos) {
        this.config = config;
        this.membership = membership;
        this.initialMembership = membership;
        this.coding = coding;
        this.initialCoding = coding;
        this.cache = new ValueCache(coding.cacheEntries(), coding.cacheBytes());
        this.self = config.nodeId();
        this.clusterSize = config.clusterSize();
        this.nowNanos = nowNanos;
    }

    /** The leader a client reply names: this replica while it leads, else the last known leader. */
    int replyLeaderHint() {
        return role == Role.LEADER ? self : leaderHint;
    }
}
