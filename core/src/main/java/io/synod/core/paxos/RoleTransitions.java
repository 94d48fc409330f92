package io.synod.core.paxos;

/**
 * A replica's role transitions (elected, step down, follow a leader) and the acceptor's gates that cause them:
 * a Prepare, Accept, Heartbeat or Nack whose ballot is above or below this replica's promise (Paxos Made Simple
 * §2.2, P1a) moves it between FOLLOWER, CANDIDATE and LEADER.
 */
final class RoleTransitions {
    private final ReplicaContext ctx;
    private final Acceptor acceptor;
    private final Learner learner;
    private final Clients clients;
    private final Leader leader;
    private final Phase1 phase1;
    private final LeaseHooks leases;

    RoleTransitions(ReplicaContext ctx, Acceptor acceptor, Learner learner, Clients clients, Leader leader, Phase1 phase1,
            LeaseHooks leases) {
        this.ctx = ctx;
        this.acceptor = acceptor;
        this.learner = learner;
        this.clients = clients;
        this.leader = leader;
        this.phase1 = phase1;
        this.leases = leases;
    }

    /** The election service names this replica in {@code epoch}: unless that epoch is stale, it runs phase 1. */
    void onElected(long epoch) {
        Ballot ballot = new Ballot(epoch, ctx.self);
        if (ctx.role != Role.FOLLOWER && ballot.equals(ctx.ownBallot)) {
            return; // The oracle repeats itself.
        }
        if (!ballot.isAbove(acceptor.promised())) {
            // The epoch is stale (we promised it or something higher already): using it could
            // collide with a ballot we once used. Ask the oracle for a fresh one instead.
            if (ctx.role == Role.FOLLOWER) {
                ctx.out.resign();
            }
            return;
        }
        if (ctx.role != Role.FOLLOWER) {
            stepDown(ctx.self);
        }
        ctx.role = Role.CANDIDATE;
        ctx.ownBallot = ballot;
        ctx.leaderHint = ctx.self;
        acceptor.raisePromise(ballot);
        phase1.start();
    }

    void onPrepare(Message.Prepare m) {
        if (m.ballot().nodeId() != m.from()) {
            return; // A ballot belongs to the node that runs it; anything else is corrupt.
        }
        if (m.ballot().isBelow(acceptor.promised())) {
            ctx.out.send(new Message.Nack(ctx.self, m.from(), acceptor.promised(), m.ballot()));
            return;
        }
        if (m.ballot().isAbove(acceptor.promised())) {
            if (ctx.role != Role.FOLLOWER) {
                stepDown(m.from());
            }
            acceptor.raisePromise(m.ballot());
        }
        ctx.leaderHint = m.from();
        ctx.out.send(acceptor.promise(m));
    }

    void onAccept(Message.Accept m) {
        if (!admitLeaderMessage(m)) {
            return;
        }
        long[] slots = acceptor.accept(m, learner.commitSlot());
        learner.learnCommit(m.ballot(), acceptor.trustedCommit(m.leaderCommit()));
        ctx.out.send(new Message.Accepted(ctx.self, m.from(), m.ballot(), slots, learner.appliedSlot()));
    }

    void onHeartbeat(Message.Heartbeat m) {
        if (!admitLeaderMessage(m)) {
            return;
        }
        learner.learnCommit(m.ballot(), m.leaderCommit());
        ctx.out.send(new Message.HeartbeatReply(ctx.self, m.from(), m.ballot(), learner.appliedSlot()));
    }

    void onNack(Message.Nack m) {
        if (ctx.role == Role.FOLLOWER || ctx.ownBallot == null || !m.rejected().equals(ctx.ownBallot)) {
            return;
        }
        if (m.ballot().isAbove(ctx.ownBallot)) {
            // Someone promised a higher ballot: our epoch is over. Step down and let the oracle
            // pick again (maybe us, with a fresh epoch).
            stepDown(m.ballot().nodeId());
            ctx.out.resign();
        }
    }

    /**
     * The gate for Accept, Heartbeat and InstallSnapshot: a message from a leader of a ballot below
     * our promise is refused with a Nack (so a deposed leader learns it, Paxos Made Simple §2.2
     * P1a); otherwise we follow its sender. A ballot names the node that runs it; a message whose
     * sender is not that node is corrupt and dropped.
     */
    boolean admitLeaderMessage(Message m) {
        if (m.ballot().nodeId() != m.from()) {
            return false;
        }
        if (m.ballot().isBelow(acceptor.promised())) {
            ctx.out.send(new Message.Nack(ctx.self, m.from(), acceptor.promised(), m.ballot()));
            return false;
        }
        if (m.ballot().isAbove(acceptor.promised())) {
            acceptor.raisePromise(m.ballot());
        }
        if (ctx.role != Role.FOLLOWER && !m.ballot().equals(ctx.ownBallot)) {
            stepDown(m.from());
        }
        ctx.leaderHint = m.from();
        return true;
    }

    /**
     * Leaves CANDIDATE or LEADER: clients waiting here are answered (see {@link Clients#onStepDown}),
     * nothing stays in flight.
     */
    void stepDown(int newLeaderHint) {
        if (ctx.role == Role.FOLLOWER) {
            ctx.leaderHint = newLeaderHint;
            return;
        }
        clients.onStepDown(newLeaderHint);
        leases.onStepDown();
        leader.clear();
        phase1.clear();
        ctx.role = Role.FOLLOWER;
        ctx.ownBallot = null;
        ctx.leaderHint = newLeaderHint;
    }
}
