package io.synod.core.paxos;

import io.synod.core.util.Check;

/**
 * Membership changes through one replica (docs/membership.md): its applied {@link GroupMembership}, and, while
 * it leads, the single-step changes it may propose as log entries: add a learner, promote a caught-up
 * learner, remove a member. Replacing a voter is those three steps (add, promote, remove), the joint
 * configuration being the one in between. Every refusal is a {@link Refused} naming the rule.
 *
 * <p>With RS-Paxos coding the shards stay one per replica id and the quorums count voters: X for new values
 * is re-derived from the voters ({@link Coding#dataShardsFor}), and a change that would leave 2F voters or
 * fewer is refused (rule M8). A durable state machine that does not record the membership with its applied slot
 * ({@link AppliedState#recordsMembership()}) is refused, never ignored.
 */
public final class MembershipChanges {
    /** A change this replica will not propose now; the message names the rule (docs/membership.md). */
    public static final class Refused extends IllegalStateException {
        Refused(String message) {
            super(message);
        }
    }

    private final ReplicaContext ctx;
    private final Leader leader;
    private final Learner learner;
    private final CatchUp catchUp;
    private final QuorumContact contact;

    MembershipChanges(ReplicaContext ctx, Leader leader, Learner learner, CatchUp catchUp, QuorumContact contact) {
        this.ctx = ctx;
        this.leader = leader;
        this.learner = learner;
        this.catchUp = catchUp;
        this.contact = contact;
    }

    /** The membership this replica has applied (in force after its applied slot). */
    public GroupMembership applied() {
        return ctx.membership;
    }

    /** While leading, the membership in force at the next slot to commit (the base of the next change). */
    public GroupMembership committed() {
        Check.state(ctx.role == Role.LEADER, "only a leader knows the membership at its commit point");
        return leader.committedMembership();
    }

    /** While leading, the slot through which replica {@code id} reported it applied (-1: not heard); its catch-up progress. */
    public long peerAppliedSlot(int id) {
        Check.state(ctx.role == Role.LEADER, "only a leader tracks its peers' applied slots");
        return id == ctx.self ? learner.appliedSlot() : catchUp.peerAppliedSlot(id);
    }

    /**
     * While leading, the ids that answered its ballot within the CheckQuorum window, and itself, as a bit set: what an
     * operator's strict reconfiguration check counts as live (the server's admin path; the replica itself never refuses
     * a change for it).
     */
    public long heardRecently() {
        Check.state(ctx.role == Role.LEADER, "only a leader hears its peers' answers");
        return contact.heardRecently();
    }

    /** Proposes adding {@code id} as a learner; returns the change entry's slot. */
    public long addLearner(int id) {
        return propose(base().withLearner(id));
    }

    /** Proposes promoting the learner {@code id} to voter once it has caught up (rule M6); returns the slot. */
    public long promote(int id) {
        GroupMembership base = base();
        GroupMembership next = base.promoted(id);
        long applied = catchUp.peerAppliedSlot(id);
        if (ctx.membershipGuards.promoteOnlyCaughtUp && id != ctx.self && applied < learner.commitSlot()) {
            throw new Refused("learner " + id + " applied through slot " + applied + ", the commit point is "
                    + learner.commitSlot() + ": it is promoted once caught up (rule M6)");
        }
        return propose(next);
    }

    /** Proposes removing the voter or learner {@code id} (its id is retired); returns the slot. */
    public long remove(int id) {
        return propose(base().without(id));
    }

    /**
     * Proposes {@code next} as the group's membership; it must be one step from the membership at the commit
     * point (rule M4) unless a negative control switched that rule off. Returns the change entry's slot.
     *
     * @throws Refused if this replica does not lead, a change is in flight, no entry of its ballot is chosen
     *                 yet (rule M5), the coding would lose its F (rule M8), or the group runs on a durable state
     *                 machine
     * @throws IllegalArgumentException if {@code next} is not a single step
     */
    public long propose(GroupMembership next) {
        GroupMembership base = base();
        if (ctx.membershipGuards.singleStep) {
            Check.argument(base.singleStepTo(next) >= 0, "from %s to %s is not one step (add a learner, promote one, "
                    + "remove one member): replace a voter by add, promote, remove (rule M4)", base, next);
        }
        int failures = leader.committedCoding().failures();
        if (ctx.coding.enabled() && next.voterCount() <= 2 * failures) {
            throw new Refused(next.voterCount() + " voters cannot tolerate F=" + failures
                    + " failures: RS-Paxos needs more than 2F voters (rule M8)");
        }
        if (ctx.membershipGuards.oneChosenChangeAtATime) {
            if (leader.membershipChangeInFlight()) {
                throw new Refused("a membership change is in flight: one at a time (rule M5)");
            }
            if (!leader.ownBallotEntryChosen()) {
                if (leader.appendedNothing()) {
                    leader.append(Command.NOOP); // The entry of its own ballot the next attempt waits for.
                }
                throw new Refused("no entry of this leader's ballot is chosen yet (rule M5, raft-dev 2015)");
            }
        }
        return leader.appendMembershipChange(next);
    }

    private GroupMembership base() {
        if (ctx.role != Role.LEADER) {
            throw new Refused("not the leader: membership changes go through the group's leader");
        }
        if (learner.appliedState().durableAppliedSlot() >= 0 && !learner.appliedState().recordsMembership()) {
            throw new Refused("membership changes are not supported on a durable state machine: it does not record the membership");
        }
        return leader.committedMembership();
    }

    // ---- negative controls (the simulator's membership-* mutations), never used in production -------

    /** NEGATIVE CONTROL ONLY: phase 1 waits for a majority of the applied membership alone (rule M3 off). */
    public void disableEveryConfigurationRead() {
        ctx.membershipGuards.phase1ReadsEveryConfiguration = false;
    }

    /** NEGATIVE CONTROL ONLY: learners' acceptances and promises count (rule M2 off). */
    public void countLearners() {
        ctx.membershipGuards.learnersNeverCounted = false;
    }

    /** NEGATIVE CONTROL ONLY: Raft's rule, changes counted once appended, several in flight (rule M5 off). */
    public void useAppendedConfiguration() {
        ctx.membershipGuards.oneChosenChangeAtATime = false;
    }

    /** NEGATIVE CONTROL ONLY: any membership may follow any (rule M4 off). */
    public void allowAnyStep() {
        ctx.membershipGuards.singleStep = false;
    }

    /** NEGATIVE CONTROL ONLY: a coded group's phase 1 counts a majority of the voters, not voters - F (rule M8 off). */
    public void countCodedReadsByMajority() {
        ctx.membershipGuards.codedReadQuorum = false;
    }

    /** NEGATIVE CONTROL ONLY: a replica id at or beyond the code length gets shard {@code id mod N}, not the whole value (rule M9 off). */
    public void wrapShardsBeyondCode() {
        ctx.membershipGuards.fullCopiesBeyondCode = false;
    }

    /** NEGATIVE CONTROL ONLY: a learner is promoted however far behind (rule M6 off). */
    public void promoteLaggingLearners() {
        ctx.membershipGuards.promoteOnlyCaughtUp = false;
    }
}
