package io.synod.core.paxos;

import io.synod.core.util.Check;
import java.util.Collection;

/**
 * The lease policy's read-only window on one replica ({@link LeaseHooks#attach}): what it may see of
 * the replica's roles and state, and the one thing it may do, send a lease message to a peer.
 */
final class ReplicaLeaseView implements LeaseView {
    private final ReplicaContext ctx;
    private final Acceptor acceptor;
    private final Learner learner;
    private final Leader leader;
    private final Applier applier;
    private final QuorumPolicy quorum;

    ReplicaLeaseView(ReplicaContext ctx, Acceptor acceptor, Learner learner, Leader leader, Applier applier,
            QuorumPolicy quorum) {
        this.ctx = ctx;
        this.acceptor = acceptor;
        this.learner = learner;
        this.leader = leader;
        this.applier = applier;
        this.quorum = quorum;
    }

    @Override
    public long appliedVoters() {
        return ctx.membership.voters();
    }

    @Override
    public int readQuorum(int voters) {
        // Asked on every quorum-lease read decision: the acceptor keeps its coding changes apart, so this looks at
        // the few past the applied slot (usually none) instead of walking the log from there.
        int fewest = acceptor.fewestFailuresAbove(learner.appliedSlot(), ctx.coding.failures());
        return quorum.phase1Quorum(voters, fewest);
    }

    @Override
    public long[] votersInFlight() {
        if (ctx.role != Role.LEADER) {
            return new long[] {ctx.membership.voters()};
        }
        // The membership at the commit point, then each one a change past it sets: config(s) is among them for
        // every slot s the leader may commit (docs/membership.md, rule QL4).
        Collection<GroupMembership> inFlight = leader.membershipsInFlight();
        long[] sets = new long[1 + inFlight.size()];
        sets[0] = leader.committedMembership().voters();
        int i = 1;
        for (GroupMembership m : inFlight) {
            sets[i++] = m.voters();
        }
        return sets;
    }

    @Override
    public int self() {
        return ctx.self;
    }

    @Override
    public int clusterSize() {
        return ctx.clusterSize;
    }

    @Override
    public Role role() {
        return ctx.role;
    }

    @Override
    public Ballot ownBallot() {
        return ctx.role == Role.FOLLOWER ? null : ctx.ownBallot;
    }

    @Override
    public Ballot promised() {
        return acceptor.promised();
    }

    @Override
    public long commitSlot() {
        return learner.commitSlot();
    }

    @Override
    public long appliedSlot() {
        return learner.appliedSlot();
    }

    @Override
    public long lastSlot() {
        return acceptor.lastSlot();
    }

    @Override
    public long snapshotSlot() {
        return acceptor.snapshot().lastIncludedSlot();
    }

    @Override
    public Entry entry(long slot) {
        return acceptor.entry(slot);
    }

    @Override
    public ClockReading clock() {
        return ctx.clock;
    }

    @Override
    public byte[] readState(byte[] payload) {
        if (!applier.isReadOnly(payload) || !learner.resolvedForRead(payload)) {
            return null;
        }
        return applier.read(payload);
    }

    @Override
    public void send(Message.Lease message) {
        Check.argument(message != null && message.from() == ctx.self && message.to() != ctx.self
                && message.to() >= 0 && message.to() < ctx.clusterSize, "lease message %s is not from this replica to a peer",
                message);
        ctx.out.send(message);
    }
}
