package io.synod.sim;

import io.synod.core.paxos.Coding;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Role;
import java.util.HashSet;
import java.util.Set;

/**
 * The simulated operator of a coded {@link Simulation} whose {@link SimCoding#alternate()} is set: every 1 to 15 ms
 * of the fault phase (its own random stream, so other draws of the seed stay as they were), it sends each replica
 * that is up, not paused and leading an admin coding change to the other of the two codings than the one that
 * replica has applied. The request goes through the group driver's admin path, as on a server
 * ({@code io.synod.engine.CodingChanges}: proposed by the leader, answered when its slot applies). Several changes
 * may be in flight at once, from one leader or from competing ones, under every fault.
 */
final class SimCodingAdmin {
    private static final long MIN_GAP_NANOS = SimTiming.MILLIS;
    private static final long MAX_GAP_NANOS = 15 * SimTiming.MILLIS;

    private final Simulation sim;
    private SimRandom random;
    private long proposed;
    private final Set<Long> appliedChangeSlots = new HashSet<>();

    SimCodingAdmin(Simulation sim) {
        this.sim = sim;
    }

    void start() {
        if (sim.config.coding().alternate() != null) {
            random = SimRandom.stream(sim.config.seed(), "coding-changes");
            scheduleNext();
        }
    }

    /** Change requests a leader proposed in this seed (not answered at once; not all are chosen). */
    long proposed() {
        return proposed;
    }

    /** Distinct slots where some replica applied a coding change. */
    int applied() {
        return appliedChangeSlots.size();
    }

    /** Notes a change entry some replica applied. */
    void onApplied(Entry entry) {
        if (Coding.isChange(entry.command())) {
            appliedChangeSlots.add(entry.slot());
        }
    }

    /** Every replica applied the same log, so every replica must run the same coding; else a description. */
    String disagreement() {
        Coding reference = null;
        for (SimNode node : sim.nodes) {
            Coding coding = node.replica.coding();
            if (reference != null && !coding.sameParameters(reference)) {
                return "node " + node.id + " runs coding " + coding + " but node 0 runs " + reference;
            }
            reference = coding;
        }
        return null;
    }

    private void scheduleNext() {
        sim.queue.after(random.uniform(MIN_GAP_NANOS, MAX_GAP_NANOS), this::fire);
    }

    private void fire() {
        if (sim.phase != Simulation.Phase.FAULTS) {
            return;
        }
        Coding first = sim.config.coding().coding();
        Coding second = sim.config.coding().alternate();
        for (SimNode node : sim.nodes) {
            if (!node.isUp() || node.pausedUntilNanos > sim.queue.now() || node.replica.role() != Role.LEADER) {
                continue;
            }
            Coding target = sameChangeable(node.replica.coding(), first) ? second : first;
            sim.trace.add(0xC0DE, node.id, target.failures() * 100L + target.dataShards());
            boolean[] answered = new boolean[1];
            sim.inputs.deliverCodingChange(node, target.failures(), target.dataShards(), target.thresholdBytes(),
                    response -> answered[0] = true);
            if (!answered[0]) {
                proposed++; // the driver answers a refusal at once; a proposed change once its slot applies
            }
        }
        scheduleNext();
    }

    private static boolean sameChangeable(Coding a, Coding b) {
        return a.failures() == b.failures() && a.dataShards() == b.dataShards() && a.thresholdBytes() == b.thresholdBytes();
    }
}
