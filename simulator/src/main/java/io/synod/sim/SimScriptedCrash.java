package io.synod.sim;

import io.synod.core.paxos.Role;

/**
 * The scripted crash of a {@link SimScenario} in a {@link Simulation}: find the leader, optionally cut
 * it off until it holds a limbo region of uncommitted entries, then crash it and record when and with how much
 * limbo; or crash the node the scenario names ({@link SimScenario#crashNode()}), leader or not.
 */
final class SimScriptedCrash {
    private final Simulation sim;

    SimScriptedCrash(Simulation sim) {
        this.sim = sim;
    }

    /** Crashes the node leading in the highest ballot (waiting for one if nobody leads), after building up its limbo region if asked. */
    void scriptedLeaderCrash() {
        if (sim.phase != Simulation.Phase.FAULTS) {
            return;
        }
        if (sim.scenario.crashNode() >= 0) {
            SimNode node = sim.nodes[sim.scenario.crashNode()];
            if (node.isUp()) {
                scriptedCrash(node); // A named node, leader or not (quorum leases Fig. 7: a non-leader fails).
            }
            return;
        }
        SimNode leader = null;
        for (SimNode node : sim.nodes) {
            if (node.isUp() && node.replica.role() == Role.LEADER
                    && (leader == null || leader.replica.promised().isBelow(node.replica.promised()))) {
                leader = node;
            }
        }
        if (leader == null) {
            sim.queue.after(SimTiming.MILLIS, this::scriptedLeaderCrash);
            return;
        }
        if (sim.scenario.limboEntries() == 0) {
            scriptedCrash(leader);
            return;
        }
        for (SimNode other : sim.nodes) {
            sim.network.cutLink(other.id, leader.id);
        }
        awaitLimbo(leader, leader.incarnation, sim.queue.now() + 2_000 * SimTiming.MILLIS);
    }

    /** The leader's followers accept but it hears no answer, so nothing commits: wait until it holds enough uncommitted entries. */
    void awaitLimbo(SimNode node, int incarnation, long deadlineNanos) {
        if (!node.isUp() || node.incarnation != incarnation || sim.phase != Simulation.Phase.FAULTS) {
            return;
        }
        if (node.replica.lastSlot() - node.replica.commitSlot() >= sim.scenario.limboEntries() || sim.queue.now() >= deadlineNanos) {
            scriptedCrash(node);
            return;
        }
        sim.queue.after(SimTiming.MILLIS / 4, () -> awaitLimbo(node, incarnation, deadlineNanos));
    }

    void scriptedCrash(SimNode node) {
        sim.crashedNode = node.id;
        sim.crashNanos = sim.queue.now();
        sim.limboAtCrash = node.replica.lastSlot() - node.replica.commitSlot();
        sim.crash(node, node.incarnation,
                sim.scenario.restartAfterNanos() > 0 ? sim.scenario.restartAfterNanos() : sim.config.maxSimulatedNanos());
        sim.network.healAll();
    }
}
