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
     * Deferred rebuild: the replicas' states are compared resolved, so every replica now rebuilds every
     * key it applied without its bytes, through its own recovery reads; the seed ends once none is left
     * (within the quiesce bound, else a liveness violation). Its traffic is not counted as the writes'.
     */
    void startResolvePhase() {
        sim.phase = Simulation.Phase.RESOLVE;
        sim.trafficAtQuiesceEnd = sim.traffic.result(sim.committedWriteSlots.size());
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
