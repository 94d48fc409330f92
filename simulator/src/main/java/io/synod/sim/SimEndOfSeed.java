package io.synod.sim;

import io.synod.core.check.CheckResult;
import io.synod.core.check.LinearizabilityChecker;
import io.synod.core.check.Verdict;
import java.util.Arrays;

/**
 * The end of a seed in a {@link Simulation}: the deferred-rebuild resolve phase that follows quiescence, and
 * the final checks (every replica up, applied through the same slot into the same state, no acknowledged
 * write unapplied, a linearizable client history).
 */
final class SimEndOfSeed {
    private final Simulation sim;

    SimEndOfSeed(Simulation sim) {
        this.sim = sim;
    }

    /**
     * The quiesce phase: replicas get {@link Simulation#quiesceNanos()} to converge, measured from the last
     * change of leadership. Catch-up is the leader's work (Multi-Paxos: a follower learns missing slots
     * from the leader in office), so a window that opens while a leader is being replaced loses the part
     * spent electing; when the window ends with different candidates or leaders than it began with, it
     * opens again. A cluster that never settles still fails: the whole phase is bounded by
     * {@link SimConfig#livenessBoundNanos()}, the bound every operation after healing must meet.
     */
    void startQuiesce() {
        sim.phase = Simulation.Phase.QUIESCE;
        long giveUpNanos = sim.queue.now() + sim.config.livenessBoundNanos();
        openQuiesceWindow(giveUpNanos);
    }

    private void openQuiesceWindow(long giveUpNanos) {
        String leadership = leadership();
        sim.queue.after(sim.quiesceNanos(), () -> {
            String now = leadership();
            if (now.equals(leadership)) {
                endQuiesce();
            } else if (sim.queue.now() >= giveUpNanos) {
                sim.fail(SimViolation.Kind.LIVENESS, "leadership still changing " + sim.config.livenessBoundNanos() / 1_000_000
                        + " ms after the last operation (" + (now.isEmpty() ? "no candidate or leader" : now.trim()) + ")");
                sim.phase = Simulation.Phase.DONE;
            } else {
                // The traffic of the writes is what a 100 ms window costs, as it was before windows re-opened:
                // heartbeats of the extra windows are a cost of the check, not of the writes.
                markQuiesceEnd();
                openQuiesceWindow(giveUpNanos);
            }
        });
    }

    private void endQuiesce() {
        if (sim.coding.defersRebuild()) {
            startResolvePhase();
        } else {
            sim.phase = Simulation.Phase.DONE;
        }
    }

    private void markQuiesceEnd() {
        if (sim.trafficAtQuiesceEnd == null) {
            sim.trafficAtQuiesceEnd = sim.traffic.result(sim.committedWriteSlots.size());
        }
    }

    /** The nodes running for or holding leadership, with their ballots (ballots only grow: a change shows). */
    private String leadership() {
        StringBuilder out = new StringBuilder();
        for (SimNode node : sim.nodes) {
            if (node.isUp() && node.replica.ownBallot() != null) {
                out.append(" node ").append(node.id).append(' ').append(node.replica.role()).append(' ').append(node.replica.ownBallot());
            }
        }
        return out.toString();
    }

    /**
     * Deferred rebuild: the replicas' states are compared resolved, so every replica now rebuilds every
     * key it applied without its bytes, through its own recovery reads; the seed ends once none is left
     * (within the quiesce bound, else a liveness violation). Its traffic is not counted as the writes'.
     */
    void startResolvePhase() {
        sim.phase = Simulation.Phase.RESOLVE;
        markQuiesceEnd();
        for (SimNode node : sim.nodes) {
            if (node.isUp()) {
                node.replica.resolveDeferred();
                sim.inputs.drive(node);
            }
        }
        // A replica whose peers all compacted a slot fetches a peer's snapshot, which may travel in
        // hundreds of small chunks (small-messages environments): allow a generous bound.
        long deadline = sim.queue.now() + Simulation.RESOLVE_BOUND_NANOS;
        awaitResolved(deadline);
    }

    void awaitResolved(long deadlineNanos) {
        int unresolved = 0;
        String where = "";
        for (SimNode node : sim.nodes) {
            int count = node.isUp() ? node.replica.unresolvedSlots() : 0;
            if (count > 0) {
                unresolved += count;
                where += " node " + node.id + ": " + count;
            }
        }
        if (unresolved == 0) {
            sim.phase = Simulation.Phase.DONE;
        } else if (sim.queue.now() >= deadlineNanos) {
            sim.fail(SimViolation.Kind.LIVENESS, "deferred values not rebuilt " + Simulation.RESOLVE_BOUND_NANOS / 1_000_000
                    + " ms after the end of the seed:" + where);
            sim.phase = Simulation.Phase.DONE;
        } else {
            sim.queue.after(SimTiming.MILLIS, () -> awaitResolved(deadlineNanos));
        }
    }

    void finalChecks() {
        long maxApplied = 0;
        for (SimNode node : sim.nodes) {
            if (!node.isUp()) {
                sim.fail(SimViolation.Kind.LIVENESS, "node " + node.id + " is still down after the liveness phase");
                return;
            }
            maxApplied = Math.max(maxApplied, node.replica.appliedSlot());
        }
        SimNode reference = null;
        byte[] referenceState = null;
        for (SimNode node : sim.nodes) {
            if (!sim.membershipChanges.isFinalMember(node, maxApplied)) {
                continue; // A spare or a removed replica: the leader no longer sends it the log (docs/membership.md).
            }
            if (node.replica.appliedSlot() != maxApplied) {
                sim.fail(SimViolation.Kind.LIVENESS, "node " + node.id + " applied through slot " + node.replica.appliedSlot()
                        + " but another node through " + maxApplied + " after " + sim.quiesceNanos() / 1_000_000
                        + " ms without faults (role " + node.replica.role() + ", commit " + node.replica.commitSlot() + ")");
                return;
            }
            byte[] state = node.replica.stateMachine().snapshot();
            if (reference == null) {
                reference = node;
                referenceState = state;
            } else if (!Arrays.equals(state, referenceState)) {
                sim.fail(SimViolation.Kind.STATE_DIVERGENCE, "nodes " + reference.id + " and " + node.id + " applied through slot "
                        + maxApplied + " but hold different state");
                return;
            }
        }
        String memberships = sim.membershipChanges.disagreement();
        if (memberships != null) {
            sim.fail(SimViolation.Kind.STATE_DIVERGENCE, "replicas applied through slot " + maxApplied + " but " + memberships);
            return;
        }
        String codings = sim.codingChanges.disagreement();
        if (codings != null) {
            sim.fail(SimViolation.Kind.STATE_DIVERGENCE, "replicas applied through slot " + maxApplied + " but " + codings);
            return;
        }
        sim.safety.checkNoUnappliedAcks(sim.queue.now());
        if ((sim.violation = sim.safety.violation()) != null) {
            return;
        }
        CheckResult check = new LinearizabilityChecker().check(sim.clients.history());
        if (check.verdict() == Verdict.NOT_LINEARIZABLE) {
            sim.fail(SimViolation.Kind.NOT_LINEARIZABLE, check.explanation());
        } else if (check.verdict() == Verdict.UNKNOWN) {
            sim.fail(SimViolation.Kind.CHECK_INCONCLUSIVE, check.explanation());
        }
    }
}
