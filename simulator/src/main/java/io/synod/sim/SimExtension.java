package io.synod.sim;

import io.synod.core.paxos.ClientRequest;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Replica;
import io.synod.protocol.ClientReply;
import java.util.List;

/**
 * A second workload and its checks, plugged into a {@link Simulation} beside the list-append clients: it may send
 * requests of client ids of its own, act on a node after its tick, and check every node after each batch it applied. Everything it
 * does is driven by the simulation's event queue and a random stream of its own, so a seed stays reproducible.
 */
interface SimExtension {

    /** What the extension may use of the simulated world. */
    interface World {
        long nowNanos();

        void after(long delayNanos, EventQueue.Action action);

        /** Sends a request to a node over the simulated client network (it may be lost, like any client's). */
        void send(int nodeId, ClientRequest request);

        int nodes();

        /** Whether the simulation still takes new work (fault and liveness phases; not while quiescing). */
        boolean acceptingWork();

        /** The node's replica, or null while it is down. */
        Replica replica(int nodeId);

        /** Session expiries the nodes' group drivers proposed so far, every incarnation's. */
        long expiriesProposed();
    }

    /** Called once, before the first event. */
    void start(World world, SimRandom random);

    /** Whether {@code clientId} is one of the extension's clients (its replies are routed to {@link #onReply}). */
    boolean ownsClient(long clientId);

    /** A reply to one of the extension's requests, arriving at the client. */
    void onReply(int fromNode, ClientReply reply);

    /** After a node's tick (and its driver's: the leader's session expiry runs there). */
    void afterTick(int nodeId, Replica replica, long localNanos);

    /** After a node applied {@code applied} (its state machine is past them): a violation, or null. */
    String afterApplied(int nodeId, Replica replica, List<Entry> applied);

    /** A node restarted with a fresh replica (its state rebuilt from its disk). */
    void onRestart(int nodeId);

    /** No extension. */
    SimExtension NONE = new SimExtension() {
        @Override
        public void start(World world, SimRandom random) {}

        @Override
        public boolean ownsClient(long clientId) {
            return false;
        }

        @Override
        public void onReply(int fromNode, ClientReply reply) {}

        @Override
        public void afterTick(int nodeId, Replica replica, long localNanos) {}

        @Override
        public String afterApplied(int nodeId, Replica replica, List<Entry> applied) {
            return null;
        }

        @Override
        public void onRestart(int nodeId) {}
    };
}
