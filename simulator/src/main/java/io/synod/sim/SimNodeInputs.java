package io.synod.sim;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.ClientRequest;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.GroupMembership;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Ready;
import io.synod.engine.DriverInput;
import io.synod.engine.Responder;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.RoutedCommand;

/**
 * Every input a simulated node's group driver takes (peer messages, client commands, watch polls, admin coding
 * changes, election events, ticks), each at the node's local clock and delayed while the node is paused, and the
 * Ready contract around the driver as the server's runner keeps it: after each input the driver's pass, then its
 * persist request to the simulated disk, whose completion is a later event. With the checks that watch that
 * contract from outside the replica (acknowledged writes durable, ballots and applied slots never going back).
 */
final class SimNodeInputs {
    private final Simulation sim;
    /** Request ids of the client commands, watch polls and admin requests handed to the drivers (each a fresh one). */
    private long requestIds;

    SimNodeInputs(Simulation sim) {
        this.sim = sim;
    }

    /** A paused process (GC, VM migration) handles its input when it wakes; returns true if deferred. */
    private boolean deferIfPaused(SimNode node, EventQueue.Action action) {
        if (node.pausedUntilNanos > sim.queue.now()) {
            sim.queue.at(node.pausedUntilNanos, action);
            return true;
        }
        return false;
    }

    void scheduleTick(SimNode node, int incarnation) {
        long jitter = sim.nodeRandom.uniform(0, SimTiming.TICK_INTERVAL_NANOS / 4);
        sim.queue.after(SimTiming.TICK_INTERVAL_NANOS - SimTiming.TICK_INTERVAL_NANOS / 8 + jitter, () -> tick(node, incarnation));
    }

    private void tick(SimNode node, int incarnation) {
        if (!node.isUp() || node.incarnation != incarnation || deferIfPaused(node, () -> tick(node, incarnation))) {
            return;
        }
        long local = node.localNanos(sim.queue.now());
        sim.trace.add(0x71C4, node.id, local);
        node.driver.tick(local);
        sim.extension.afterTick(node.id, node.replica, local);
        drive(node);
        scheduleTick(node, incarnation);
    }

    void deliver(Message message) {
        SimNode node = sim.nodes[message.to()];
        if (!node.isUp() || sim.network.isCut(message.from(), message.to())) {
            sim.trace.add(0xD409, message.from(), message.to());
            return;
        }
        if (deferIfPaused(node, () -> deliver(message))) {
            return;
        }
        sim.trace.addMessage(message);
        if (message instanceof Message.Promise promise && !promise.isLastPage()) {
            sim.promisePages++;
        } else if (message instanceof Message.InstallSnapshot) {
            sim.snapshotChunks++;
        }
        node.driver.step(new DriverInput.Peer(message), node.localNanos(sim.queue.now()));
        drive(node);
    }

    void deliverElection(SimNode node, ElectionEvent event, long generation) {
        if (!node.isUp() || generation != sim.oracle.generation()) {
            return;
        }
        if (deferIfPaused(node, () -> deliverElection(node, event, generation))) {
            return;
        }
        if (event instanceof ElectionEvent.Elected elected) {
            sim.trace.add(0xE1EC, node.id, elected.epoch());
            sim.elections.add(new ScenarioResult.Election(sim.queue.now(), node.id, elected.epoch()));
        } else {
            sim.trace.add(0x1EAD, node.id, ((ElectionEvent.LeaderIs) event).leaderId());
        }
        node.driver.onElection(event, node.localNanos(sim.queue.now()));
        drive(node);
    }

    void sendClientRequest(int nodeId, ClientRequest request) {
        if (sim.network.clientMessageLost()) {
            return;
        }
        long latency = sim.scenario.hasSites() ? sim.network.clientLatencyNanos(sim.clients.siteOfClient(request.command().clientId()), nodeId)
                : sim.network.clientLatencyNanos();
        sim.queue.after(latency, () -> deliverClientRequest(sim.nodes[nodeId], request));
    }

    private void deliverClientRequest(SimNode node, ClientRequest request) {
        if (!node.isUp() || deferIfPaused(node, () -> deliverClientRequest(node, request))) {
            return;
        }
        sim.trace.add(0xC11E, node.id, 0);
        Command command = request.command();
        sim.trace.addCommand(command);
        long local = node.localNanos(sim.queue.now());
        boolean readOnly;
        try {
            readOnly = RoutedCommand.of(command.payload()).readOnly();
        } catch (IllegalArgumentException e) {
            readOnly = false; // the state machine answers it with its error result, as for any undecodable command
        }
        node.driver.step(new DriverInput.Client(new ClientFrame.Command(++requestIds, command.clientId(),
                command.sequence(), command.payload(), 0), readOnly, node.output.responder(command.clientId(),
                command.sequence()), local), local);
        drive(node);
    }

    /**
     * A watch poll of {@link SimWatchers} travels to {@code nodeId} over the client sim.network (it may be lost) and
     * reaches its driver; the answer travels back to {@code answer} the same way.
     */
    void sendWatchPoll(int nodeId, byte[] query, Responder answer) {
        if (sim.network.clientMessageLost()) {
            return;
        }
        SimNode node = sim.nodes[nodeId];
        Responder back = response -> {
            if (!sim.network.clientMessageLost()) {
                sim.queue.after(sim.network.clientLatencyNanos(), () -> answer.respond(response));
            }
        };
        sim.queue.after(sim.network.clientLatencyNanos(), () -> deliverWatchPoll(node, query, back));
    }

    private void deliverWatchPoll(SimNode node, byte[] query, Responder answer) {
        if (!node.isUp() || deferIfPaused(node, () -> deliverWatchPoll(node, query, answer))) {
            return;
        }
        sim.trace.add(0x3A7C, node.id, 0);
        node.driver.step(new DriverInput.WatchPoll(new ClientFrame.WatchPoll(++requestIds, query), answer),
                node.localNanos(sim.queue.now()));
        drive(node);
    }

    /** An admin coding change ({@link SimCodingAdmin}) reaches {@code node}'s driver now, answered to {@code responder}. */
    void deliverCodingChange(SimNode node, int failures, int dataShards, int thresholdBytes, Responder responder) {
        node.driver.step(new DriverInput.CodingChange(new ClientFrame.CodingChange(++requestIds, 0, failures, dataShards,
                thresholdBytes), responder), node.localNanos(sim.queue.now()));
        drive(node);
    }

    /** After an input: the driver's pass at the node's local time, then its persist request, if a new one. */
    void drive(SimNode node) {
        if (node.isUp()) {
            node.driver.ready(node.localNanos(sim.queue.now()));
            startFsync(node);
            sim.leaderIsolation.afterInput(node);
        }
        checkMonotonic(node);
    }

    /**
     * The driver's persist request goes to the node's log ({@link SimNodeLog}), whose fsync takes simulated time
     * (persistence is always asynchronous here: the driver keeps taking inputs meanwhile, which its next Ready batches).
     */
    private void startFsync(SimNode node) {
        Ready ready = node.driver.persistRequest();
        if (ready == null || ready == node.fsyncing) {
            return;
        }
        node.fsyncing = ready;
        node.log.append(sim, node, ready);
    }

    /** The node log's fsync made {@code node}'s persist request durable: the driver's pass goes on. */
    void fsyncDone(SimNode node) {
        Ready ready = node.fsyncing;
        node.fsyncing = null;
        sim.traffic.log += SimTraffic.entries(ready.entries());
        sim.trace.add(0xF5C, node.id, sim.queue.now());
        // As the server's group loop does it: the completion, then a pass, which runs the after-work it released
        // (GroupDriver.persistedBeforePass), so that the simulated runtime takes the server's path.
        long local = node.localNanos(sim.queue.now());
        node.driver.persistedBeforePass(ready, local);
        node.driver.ready(local);
        startFsync(node);
        checkMonotonic(node);
    }

    /**
     * The durability check of an acknowledged write (the Ready contract seen from outside the replica): when the OK
     * reply leaves {@code node}, the disks of at least {@code N - Q1 + 1} sim.nodes hold its entry at the slot it names
     * (or a snapshot past it), so that every phase 1 sim.quorum meets a durable copy (Paxos Made Simple §2.2: a chosen
     * value is accepted by a sim.quorum, and acceptances are stable storage).
     */
    void checkDurable(SimNode node, ClientReply reply) {
        int n = sim.config.nodes();
        int phase1 = sim.quorum.phase1Quorum(n);
        if (sim.config.coding().alternate() != null) {
            // Coding changes: the quorums in force change with the log; the larger phase 1 quorum needs fewer copies.
            phase1 = Math.max(phase1, sim.config.coding().alternate().quorum().phase1Quorum(n));
        }
        int needed = n - phase1 + 1;
        long counted = -1L;
        if (sim.config.membershipChanges()) {
            // Only the voters of the membership in force at the slot count, and a majority of them is the quorum
            // (docs/membership.md rule M2); the replier may have applied later changes in the same batch.
            // With coding, phase 1 reads voters - F of them (F the smallest in play), so F + 1 copies are needed.
            GroupMembership membership = sim.membershipChanges.inForceAt(reply.slot());
            counted = membership.voters();
            int voters = membership.voterCount();
            int readQuorum = voters / 2 + 1;
            if (sim.config.coding().enabled()) {
                readQuorum = Math.max(readQuorum, sim.quorum.phase1Quorum(voters));
                if (sim.config.coding().alternate() != null) {
                    readQuorum = Math.max(readQuorum, sim.config.coding().alternate().quorum().phase1Quorum(voters));
                }
            }
            needed = voters - readQuorum + 1;
        }
        int holding = 0;
        for (SimNode each : sim.nodes) {
            if ((counted & (1L << each.id)) != 0 && each.disk.holds(reply.slot(), reply.clientId(), reply.sequence())) {
                holding++;
            }
        }
        if (holding < needed) {
            sim.fail(SimViolation.Kind.ACK_NOT_DURABLE, "node " + node.id + " acknowledged client " + reply.clientId() + " seq "
                    + reply.sequence() + " at slot " + reply.slot() + " while " + holding + " disk(s) held it, fewer than "
                    + needed);
        }
    }

    /** Session expiries proposed by every node's driver so far, crashed incarnations included. */
    long expiriesProposed() {
        long total = sim.expiriesOfCrashed;
        for (SimNode node : sim.nodes) {
            total += node.isUp() ? node.driver.expiriesProposed() : 0;
        }
        return total;
    }

    private void checkMonotonic(SimNode node) {
        if (!node.isUp()) {
            return;
        }
        Ballot promised = node.replica.promised();
        long applied = node.replica.appliedSlot();
        if (promised.isBelow(node.lastPromised)) {
            sim.safety.onRegression("node " + node.id + " promised " + promised + " after promising " + node.lastPromised, sim.queue.now());
        }
        if (applied < node.lastAppliedSlot) {
            sim.safety.onRegression("node " + node.id + " applied slot went from " + node.lastAppliedSlot + " back to " + applied,
                    sim.queue.now());
        }
        node.lastPromised = promised;
        node.lastAppliedSlot = applied;
    }
}
