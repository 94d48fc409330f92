package io.synod.sim;

import io.synod.core.paxos.Role;

/**
 * The one fault that outlives the fault phase (network profiles, half of the seeds): the first node
 * the liveness phase's stabilizing election makes leader is cut off from every peer the moment it
 * leads (before its first Accept leaves), while the oracle goes on naming it, as ZooKeeper does for a
 * leader whose session is healthy but whose peer links are down. The cut ends when that node stops
 * leading (the oracle may name it again later; it then runs phase 1 with its peers like any candidate),
 * or {@link SimConfig#livenessBoundNanos()} plus a second after the phase began, so a seed always
 * ends. Only the leader's CheckQuorum ({@code ReplicaConfig#checkQuorumNanos}) lets the probes succeed
 * in time: it steps down and resigns, and the oracle elects a node that reaches a quorum. The negative control {@link Mutation#NO_CHECK_QUORUM} turns the check off; it is caught as
 * {@code LIVENESS}.
 */
final class SimLeaderIsolation {
    private static final long POLL_NANOS = SimTiming.MILLIS;

    private final Simulation sim;
    private boolean armed;
    private long electionsAtStart;
    private long giveUpAtNanos;
    private int isolated = -1;
    private int token;

    SimLeaderIsolation(Simulation sim) {
        this.sim = sim;
    }

    /** Called as the liveness phase starts, after the oracle was told to stabilize. */
    void start() {
        SimRandom random = SimRandom.stream(sim.config.seed(), "lasting-isolation");
        if (!sim.config.faults().network() || !random.chance(0.5)) {
            return;
        }
        armed = true;
        electionsAtStart = sim.oracle.elections();
        giveUpAtNanos = sim.queue.now() + sim.config.livenessBoundNanos() + 1_000 * SimTiming.MILLIS;
    }

    /** After every input of {@code node}: cut it off if it is the newly elected node and now leads. */
    void afterInput(SimNode node) {
        // Only while probes are outstanding: a leader cut off in the quiesce phase would leave the final
        // convergence check to the timing of a re-election nobody waits for.
        if (!armed || sim.phase != Simulation.Phase.LIVENESS || !node.isUp() || node.replica.role() != Role.LEADER || sim.oracle.elections() == electionsAtStart
                || sim.oracle.leader() != node.id) {
            return;
        }
        armed = false;
        isolated = node.id;
        token = sim.network.isolate(node.id);
        sim.trace.add(0x150C, node.id, sim.queue.now());
        sim.queue.after(POLL_NANOS, this::awaitReplacement);
    }

    /** Whether a leader is cut off right now (the quiesce phase waits for the cut to end). */
    boolean isolating() {
        return isolated >= 0;
    }

    private void awaitReplacement() {
        SimNode node = sim.nodes[isolated];
        if (!node.isUp() || node.replica.role() != Role.LEADER || sim.queue.now() >= giveUpAtNanos) {
            sim.network.endIsolation(isolated, token);
            sim.trace.add(0x150D, isolated, sim.queue.now());
            isolated = -1;
            return;
        }
        sim.queue.after(POLL_NANOS, this::awaitReplacement);
    }
}
