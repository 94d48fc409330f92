package io.synod.sim;

import io.synod.core.paxos.ClientRequest;
import io.synod.core.paxos.Replica;

/** What a {@link SimExtension} sees of a running {@link Simulation}: its clock, its nodes and its client path. */
final class SimExtensionWorld implements SimExtension.World {
    private final Simulation sim;

    SimExtensionWorld(Simulation sim) {
        this.sim = sim;
    }

    @Override
    public long nowNanos() {
        return sim.queue.now();
    }

    @Override
    public void after(long delayNanos, EventQueue.Action action) {
        sim.queue.after(delayNanos, action);
    }

    @Override
    public void send(int nodeId, ClientRequest request) {
        sim.inputs.sendClientRequest(nodeId, request);
    }

    @Override
    public int nodes() {
        return sim.nodes.length;
    }

    @Override
    public boolean acceptingWork() {
        return sim.phase == Simulation.Phase.FAULTS || sim.phase == Simulation.Phase.LIVENESS;
    }

    @Override
    public Replica replica(int nodeId) {
        return sim.nodes[nodeId].isUp() ? sim.nodes[nodeId].replica : null;
    }

    @Override
    public long expiriesProposed() {
        return sim.inputs.expiriesProposed();
    }
}
