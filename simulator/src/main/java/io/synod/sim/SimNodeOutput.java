package io.synod.sim;

import io.synod.core.paxos.Coding;
import io.synod.core.paxos.GroupMembership;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Ready;
import io.synod.engine.DriverOutput;
import io.synod.engine.Responder;
import io.synod.protocol.ClientReply;

/**
 * What a simulated machine does with its group driver's outputs (one per node incarnation), as the server's runner
 * does with the real ones: messages go through the simulated network (coded mode may corrupt a recovery-read shard
 * on the way), compaction to the simulated disk, a resignation to the election oracle. A Ready's persistence is not
 * here: the simulation takes the driver's persist request and completes it after a simulated fsync. Answers reach
 * the simulated clients through {@link #responder}. Every Ready the driver takes is traced and its applied entries
 * checked against the chosen log.
 */
final class SimNodeOutput implements DriverOutput {
    private final Simulation sim;
    private final SimNode node;

    SimNodeOutput(Simulation sim, SimNode node) {
        this.sim = sim;
        this.node = node;
    }

    @Override
    public void readyTaken(Ready ready) {
        traceReady(ready);
        sim.safety.onApplied(node.id, ready.committedEntries(), sim.queue.now());
        String problem = sim.extension.afterApplied(node.id, node.replica, ready.committedEntries());
        if (problem != null) {
            sim.fail(SimViolation.Kind.STATE_DIVERGENCE, problem);
        }
        for (Entry applied : ready.committedEntries()) {
            sim.codingChanges.onApplied(applied);
            sim.membershipChanges.onApplied(applied);
            if (!applied.command().isNoop() && !Coding.isChange(applied.command()) && !GroupMembership.isChange(applied.command())) {
                sim.committedWriteSlots.add(applied.slot());
            }
        }
    }

    @Override
    public void compactThrough(long slot) {
        node.disk.compactThrough(slot);
    }

    @Override
    public void send(Message message) {
        if (message.from() != node.id || message.to() < 0 || message.to() >= sim.nodes.length) {
            sim.fail(SimViolation.Kind.REPLICA_FAILURE, "node " + node.id + " sent a message from " + message.from() + " to "
                    + message.to() + ": " + message.getClass().getSimpleName());
            return;
        }
        if (message instanceof Message.Promise && node.crashAfterNextPromise) {
            node.crashAfterNextPromise = false;
            int incarnation = node.incarnation;
            sim.queue.after(sim.faultRandom.uniform(0, 50 * SimTiming.MICROS), () -> sim.crash(node, incarnation,
                    sim.faultRandom.uniform(SimTiming.CRASH_DOWNTIME_MIN_NANOS / 2, SimTiming.CRASH_DOWNTIME_MIN_NANOS)));
        }
        sim.traffic.sent(message);
        Message sent = corruptShard(message);
        // Bandwidth (off by default: then 0, and nothing is drawn for it): the message leaves once the link sent it.
        long transmit = sim.network.transmitNanos(message.from(), message.to(), sim.queue.now(), SimTraffic.bytes(message));
        int copies = sim.network.copies(message.from(), message.to());
        for (int i = 0; i < copies; i++) {
            sim.queue.after(transmit + sim.network.latencyNanos(message.from(), message.to()), () -> sim.inputs.deliver(sent));
        }
    }

    /**
     * Where the driver's answer to the simulated client request (clientId, sequence) goes: back to the client as the
     * replica's reply, checked first if it acknowledges a write (its slot must hold it, and enough disks must hold it
     * already: no reply before the fsyncs that make it durable).
     */
    Responder responder(long clientId, long sequence) {
        return response -> reply(new ClientReply(clientId, sequence, status(response.status()), response.slot(),
                response.result(), response.leaderHint()));
    }

    private static ClientReply.Status status(int status) {
        // No group is not a status of one replica's reply: the simulated groups never fail (a failure ends the seed).
        return status >= 0 && status < ClientReply.Status.values().length ? ClientReply.Status.values()[status]
                : ClientReply.Status.NOT_LEADER;
    }

    private void reply(ClientReply reply) {
        sim.trace.addReply(reply);
        if (reply.status() == ClientReply.Status.OK && sim.stateMachines.isWriteResult(reply.result())) {
            sim.safety.onWriteAcknowledged(node.id, reply.clientId(), reply.sequence(), reply.slot(), sim.queue.now());
            sim.inputs.checkDurable(node, reply);
        }
        if (!sim.network.clientMessageLost()) {
            int from = node.id;
            if (sim.extension.ownsClient(reply.clientId())) {
                sim.queue.after(sim.network.clientLatencyNanos(), () -> sim.extension.onReply(from, reply));
            } else if (sim.scenario.hasSites()) {
                sim.queue.after(sim.network.clientLatencyNanos(sim.clients.siteOfClient(reply.clientId()), from), () -> sim.clients.onReply(from, reply));
            } else {
                sim.queue.after(sim.network.clientLatencyNanos(), () -> sim.clients.onReply(from, reply));
            }
        }
    }

    @Override
    public void resign() {
        sim.trace.add(0x4E51, node.id, 0);
        sim.oracle.onResign(node.id);
    }

    @Override
    public void commitApplied() {
        // The in-memory store writes each apply at once (KvStateMachine on a store that is not durable).
    }

    @Override
    public void finishRepair() {
        // Simulated disks are never damaged: no replica starts repairing.
    }

    @Override
    public void joinElection() {
        // The election oracle counts every live node as a candidate.
    }

    @Override
    public void leaveElection() {
        // Only a failed group leaves; a failure ends the seed.
    }

    @Override
    public void log(Level level, String line) {
        // The driver's operator lines are not part of a seed's outcome.
    }

    /**
     * Coded mode's shard-corruption fault: during the fault phase with network faults, one recovery-read
     * reply in ten that carries a shard arrives with one payload byte flipped (the shard's CRC32C then
     * fails). Only recovery reads are corrupted: RS-Paxos, like Paxos, assumes acceptors store what they
     * accepted (a disk that corrupts accepted shards is caught by the log's own checksums).
     */
    private Message corruptShard(Message message) {
        if (!sim.coding.enabled() || !sim.config.faults().network() || sim.phase != Simulation.Phase.FAULTS
                || !(message instanceof Message.ShardReply reply) || reply.entry() == null || reply.entry().coded() == null
                || reply.entry().coded().shard() == null || !sim.corruptRandom.chance(0.1)) {
            return message;
        }
        Entry entry = reply.entry();
        byte[] shard = entry.coded().shard().clone();
        int payloadStart = 17;
        int position = payloadStart + sim.corruptRandom.nextInt(Math.max(1, shard.length - payloadStart - 4));
        shard[position] ^= (byte) (1 + sim.corruptRandom.nextInt(255));
        sim.traffic.corrupted++;
        sim.trace.add(0xC0EE, reply.from(), position);
        return new Message.ShardReply(reply.from(), reply.to(), reply.ballot(),
                new Entry(entry.slot(), entry.ballot(), entry.command(), entry.coded().withShard(shard)), 0);
    }

    private void traceReady(Ready ready) {
        sim.trace.add(0x4EAD, node.id, ready.messages().size() * 31L + ready.replies().size());
        sim.trace.addBallot(ready.promised());
        sim.trace.addEntries(ready.entries());
        sim.trace.addSnapshot(ready.snapshot());
        sim.trace.add(ready.compactThroughSlot());
        for (Entry applied : ready.committedEntries()) {
            sim.trace.add(applied.slot());
        }
    }
}
