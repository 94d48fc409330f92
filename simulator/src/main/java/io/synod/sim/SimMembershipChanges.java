package io.synod.sim;

import io.synod.core.paxos.Entry;
import io.synod.core.paxos.GroupMembership;
import io.synod.core.paxos.MembershipChanges;
import io.synod.core.paxos.Role;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The membership-change event of a {@link Simulation} whose {@link SimConfig#membershipChanges()} is on
 * (docs/membership.md): the group starts with nodes {@code 0..N-3} voting and the last two nodes as spares
 * (replicas that are no member yet: they run, may be elected, and hear the log, but are never counted).
 * Every 1 to 5 ms of the fault phase (its own random stream), each replica that is up, not paused and
 * leading takes the next step of a replacement from the membership at its commit point: promote the learner
 * (or, one time in twenty, remove it), else remove a voter while there are more than three (a crashed one if
 * any: replacing a crashed node), else add a spare as a learner. With two spares that is two whole
 * replacements per seed, each add, promote, remove, proposed under every fault and refused (counted) when a
 * rule says not now. In half of the seeds one initial voter is cut off from the start until the replacements are
 * done (or {@value #STALE_VOTER_MAX_MILLIS} ms passed), the leader of the moment crashes, and the stale voter is
 * elected at once: a candidate that missed
 * every change, whose phase 1 must find them (rule M3). The {@code membership-*} mutations switch one rule off on every replica, and
 * {@code membership-swap} and {@code membership-reused-identity} also change the steps taken.
 */
public final class SimMembershipChanges {
    private static final long MIN_GAP_NANOS = SimTiming.MILLIS;
    private static final long MAX_GAP_NANOS = 5 * SimTiming.MILLIS;

    static final long STALE_VOTER_MAX_MILLIS = 400;

    private final Simulation sim;
    private SimRandom random;
    /** The voter kept stale (cut off) and its isolation token, or -1. */
    private int staleVoter = -1;
    private int staleToken;
    /** Voters are removed while more than this many vote. */
    private int floor;
    private long proposed;
    private long refused;
    private final Set<Long> appliedChangeSlots = new HashSet<>();
    /** Every applied change entry by slot: the membership it puts in force from the next slot on. */
    private final TreeMap<Long, GroupMembership> changes = new TreeMap<>();

    SimMembershipChanges(Simulation sim) {
        this.sim = sim;
    }

    /**
     * The membership every replica starts with: nodes {@code 0..N-3} voting and two spares; with RS-Paxos coding
     * nodes {@code 0..N-2} voting and one spare, so that the promoted spare makes N voters and values take the
     * coding's full X (fewer voters re-derive a smaller X, {@code Coding.dataShardsFor}). With more nodes than the
     * code length ({@code --nodes 6 --coding 5,1,3}, or {@code --nodes 5 --coding 4,1,2}) the ids past it, the spare's
     * among them, get full copies instead of a shard (rule M9).
     */
    GroupMembership initial() {
        int n = sim.config.nodes();
        return sim.config.membershipChanges() ? GroupMembership.firstVoters(n, n - spares()) : GroupMembership.allVoters(n);
    }

    private int spares() {
        return sim.config.coding().enabled() ? 1 : 2;
    }

    void start() {
        if (sim.config.membershipChanges()) {
            random = SimRandom.stream(sim.config.seed(), "membership-changes");
            // Plain: back to the initial voters after each replacement. Coded: in half the seeds the group keeps
            // the promoted spare (N voters, full X to the end), in the other half it removes a voter again.
            floor = initial().voterCount() + (sim.config.coding().enabled() && random.chance(0.5) ? 1 : 0);
            if (sim.config.faults() != FaultProfile.NONE && random.chance(0.5)) {
                staleVoter = random.nextInt(sim.config.nodes() - 2);
                staleToken = sim.network.isolate(staleVoter);
                sim.queue.after(STALE_VOTER_MAX_MILLIS * SimTiming.MILLIS, this::releaseStaleVoter);
            }
            sim.queue.after(random.uniform(MIN_GAP_NANOS, MAX_GAP_NANOS), this::fire);
        }
    }

    /**
     * A replica (re)started: the mutation under test switches its rule off, and the replica's defence in depth
     * too (an acceptor that knows a slot is chosen refuses another value for it, {@link Mutation#NO_DIVERGENCE_CHECK}):
     * the control tests the membership rule alone, not the layer behind it.
     */
    void onRestart(SimNode node) {
        if (sim.config.mutation().needsMembershipChanges()) {
            node.replica.defence().disableDivergenceCheck();
        }
        MembershipChanges changes = node.replica.membership();
        switch (sim.config.mutation()) {
            case MEMBERSHIP_STALE_PHASE1 -> changes.disableEveryConfigurationRead();
            case MEMBERSHIP_LEARNER_VOTES -> changes.countLearners();
            case MEMBERSHIP_RAFT_RULE -> changes.useAppendedConfiguration();
            case MEMBERSHIP_SWAP -> changes.allowAnyStep();
            case MEMBERSHIP_EARLY_PROMOTE -> changes.promoteLaggingLearners();
            case MEMBERSHIP_CODED_MAJORITY_READ -> changes.countCodedReadsByMajority();
            case MEMBERSHIP_SHARED_SHARD -> changes.wrapShardsBeyondCode();
            default -> { }
        }
    }

    /** One seed's result with how many changes leaders proposed, how many a rule refused, and how many were applied. */
    public record Run(SimResult result, long proposed, long refused, int applied) {}

    Run run(SimResult result) {
        return new Run(result, proposed, refused, appliedChangeSlots.size());
    }

    void onApplied(Entry entry) {
        if (GroupMembership.isChange(entry.command())) {
            appliedChangeSlots.add(entry.slot());
            changes.put(entry.slot(), GroupMembership.of(entry.command()));
        }
    }

    /**
     * config(slot): the membership the chosen change entries below {@code slot} put in force (rule M1), from the
     * changes some replica applied (the chosen log is unique, and a replica that answers for {@code slot} applied
     * every entry below it).
     */
    GroupMembership inForceAt(long slot) {
        Map.Entry<Long, GroupMembership> last = changes.lowerEntry(slot);
        return last == null ? initial() : last.getValue();
    }

    /**
     * Whether {@code node} belongs to the membership in force at the end of the seed, as the replicas that applied
     * the most ({@code maxApplied}) hold it; every node when membership changes are off.
     */
    boolean isFinalMember(SimNode node, long maxApplied) {
        if (!sim.config.membershipChanges()) {
            return true;
        }
        for (SimNode other : sim.nodes) {
            if (other.replica.appliedSlot() == maxApplied) {
                return other.replica.membership().applied().isMember(node.id);
            }
        }
        return true;
    }

    /** Every member applied the same log, so every member must hold the same membership; else a description. */
    String disagreement() {
        GroupMembership reference = null;
        long maxApplied = 0;
        for (SimNode node : sim.nodes) {
            maxApplied = Math.max(maxApplied, node.replica.appliedSlot());
        }
        for (SimNode node : sim.nodes) {
            if (!isFinalMember(node, maxApplied)) {
                continue;
            }
            GroupMembership membership = node.replica.membership().applied();
            if (reference != null && !membership.equals(reference)) {
                return "node " + node.id + " holds membership " + membership + " but node 0 holds " + reference;
            }
            reference = membership;
        }
        return null;
    }

    private void fire() {
        if (sim.phase != Simulation.Phase.FAULTS) {
            return;
        }
        for (SimNode node : sim.nodes) {
            if (node.isUp() && node.pausedUntilNanos <= sim.queue.now() && node.replica.role() == Role.LEADER) {
                step(node);
                sim.inputs.drive(node);
            }
        }
        sim.queue.after(random.uniform(MIN_GAP_NANOS, MAX_GAP_NANOS), this::fire);
    }

    /** The stale voter rejoins the network and is elected before anyone can tell it what it missed. */
    private void releaseStaleVoter() {
        if (staleVoter < 0) {
            return;
        }
        sim.network.endIsolation(staleVoter, staleToken);
        if (sim.phase == Simulation.Phase.FAULTS) {
            int leader = sim.oracle.leader();
            if (leader >= 0 && leader != staleVoter && sim.nodes[leader].isUp()) {
                sim.crash(sim.nodes[leader], sim.nodes[leader].incarnation); // The replica that knows the most goes down.
            }
            sim.oracle.electBehindBackOf(staleVoter, -1);
        }
        staleVoter = -1;
    }

    private void step(SimNode leader) {
        MembershipChanges changes = leader.replica.membership();
        GroupMembership m = changes.committed();
        if (staleVoter >= 0 && m.learners() == 0 && m.voterCount() == floor && spare(m) < 0) {
            releaseStaleVoter(); // The replacements are done.
        }
        try {
            long slot = nextStep(changes, m);
            if (slot >= 0) {
                proposed++;
                sim.trace.add(0x3E3B, leader.id, slot);
            }
        } catch (MembershipChanges.Refused | IllegalArgumentException e) {
            refused++; // Not now (a change in flight, a learner behind, no entry of the ballot chosen yet).
        }
    }

    private long nextStep(MembershipChanges changes, GroupMembership m) {
        if (m.learners() != 0) {
            int learner = Long.numberOfTrailingZeros(m.learners());
            return random.chance(0.05) ? changes.remove(learner) : changes.promote(learner);
        }
        if (m.voterCount() > floor) {
            return changes.remove(victim(m));
        }
        int spare = spare(m);
        if (spare >= 0 && sim.config.mutation() == Mutation.MEMBERSHIP_SWAP) {
            return changes.propose(m.swapped(victim(m), spare)); // No joint membership in between.
        }
        if (spare >= 0) {
            return changes.addLearner(spare);
        }
        if (sim.config.mutation() == Mutation.MEMBERSHIP_REUSED_IDENTITY && m.retired() != 0) {
            int old = Long.numberOfTrailingZeros(m.retired());
            wipe(sim.nodes[old]);
            return changes.propose(m.withReusedLearner(old)); // Back under its old id, its promises forgotten.
        }
        return -1;
    }

    /** The lowest id that is neither a member nor retired, or -1. */
    private int spare(GroupMembership m) {
        for (int id = 0; id < sim.config.nodes(); id++) {
            if (!m.isMember(id) && !m.isRetired(id)) {
                return id;
            }
        }
        return -1;
    }

    /**
     * The voter to remove: a crashed one if any (replacing a crashed node), else the oldest (lowest id) voter
     * other than the stale one (a rolling replacement; the stale voter stays, so its return tests rule M3).
     */
    private int victim(GroupMembership m) {
        long voters = m.voters();
        for (long rest = voters; rest != 0; rest &= rest - 1) {
            int id = Long.numberOfTrailingZeros(rest);
            if (!sim.nodes[id].isUp()) {
                return id;
            }
        }
        long others = staleVoter >= 0 ? voters & ~(1L << staleVoter) : voters;
        return Long.numberOfTrailingZeros(others != 0 ? others : voters);
    }

    /** The reused-identity control: the node loses its disk (crashing first if it runs) and restarts empty. */
    private void wipe(SimNode node) {
        if (node.isUp()) {
            sim.crash(node, node.incarnation, SimTiming.MILLIS);
        }
        if (!node.isUp()) {
            node.disk = new SimDisk(false);
        }
    }
}
