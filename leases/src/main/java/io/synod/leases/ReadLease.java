package io.synod.leases;

import io.synod.core.paxos.LeaseHooks;
import java.util.function.Supplier;

/**
 * A group's read lease as its driver runs it: the policy each replica incarnation gets (fresh on every start: a
 * lease's state is volatile), behind a {@link ReadGate}, and whether followers may answer reads under it. Pure:
 * the clocks the policy is judged by are the runner's input (docs/leases.md, "On the server"); the server builds
 * one from its cluster's lease setting, the simulator from its lease worlds.
 */
public final class ReadLease {
    /** No lease: every read goes through the log, and no clock is read. */
    public static final ReadLease NONE = new ReadLease("none", () -> LeaseHooks.NONE, false);

    private final String name;
    private final Supplier<LeaseHooks> policies;
    private final boolean followerReads;

    private ReadLease(String name, Supplier<LeaseHooks> policies, boolean followerReads) {
        this.name = name;
        this.policies = policies;
        this.followerReads = followerReads;
    }

    /** LeaseGuard (SIGMOD 2026) with {@code config}: only the leader answers reads under it. */
    public static ReadLease leader(String name, LeaderLeaseConfig config) {
        return new ReadLease(name, () -> new LeaderLease(config, KeyExtractor.KV), false);
    }

    /**
     * Moraru quorum leases (SoCC 2014) with {@code config}; with {@code auto} non-null the lease configurations go
     * through the log, assigned from read statistics (§3, §5). Holders answer reads as followers.
     */
    public static ReadLease quorum(String name, QuorumLeaseConfig config, AutoAssignment auto) {
        return new ReadLease(name, () -> new QuorumLease(config, KeyExtractor.KV, QuorumLease.ReadObserver.NONE, auto),
                true);
    }

    /** A lease whose incarnations run the policies {@code policies} makes (the simulator's lease worlds). */
    public static ReadLease of(String name, Supplier<LeaseHooks> policies, boolean followerReads) {
        return new ReadLease(name, policies, followerReads);
    }

    /** The lease's name as the configuration spells it ({@code none}, {@code leader}, {@code quorum-auto}, ...). */
    public String name() {
        return name;
    }

    public boolean enabled() {
        return this != NONE;
    }

    /** Whether a follower may answer reads under this lease (quorum-lease holders). */
    public boolean followerReads() {
        return followerReads;
    }

    /** The policy of one replica incarnation, behind the gate the driver uses to force a read through the log. */
    public ReadGate newGate() {
        return ReadGate.of(policies.get());
    }

    @Override
    public String toString() {
        return name;
    }
}
