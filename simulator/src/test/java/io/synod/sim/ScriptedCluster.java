package io.synod.sim;

import io.synod.core.kv.KvStateMachine;
import io.synod.core.paxos.ClientRequest;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.LeaseHooks;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.QuorumPolicy;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.ReadyLoop;
import io.synod.core.paxos.Replica;
import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A hand-driven cluster for scenario tests: the test decides which message is delivered when,
 * which fsync is held, and where a crash tears a write. It uses the simulator's disk model
 * ({@link SimDisk}) and its cross-replica agreement check ({@link SafetyMonitor}), and follows the
 * Ready contract (persist, then send, then advance).
 */
final class ScriptedCluster {
    static final long MS = 1_000_000L;

    final int size;
    final Replica[] replicas;
    final ReadyLoop[] loops;
    final SimDisk[] disks;
    final SafetyMonitor safety;
    final List<Message> inFlight = new ArrayList<>();
    final Map<Long, ClientReply> lastReplyByClient = new HashMap<>();
    final boolean[] holdFsync;
    final boolean[] resigned;
    private long nowNanos = 1_000;

    ScriptedCluster(int size) {
        this.size = size;
        this.replicas = new Replica[size];
        this.disks = new SimDisk[size];
        this.loops = new ReadyLoop[size];
        this.holdFsync = new boolean[size];
        this.resigned = new boolean[size];
        this.safety = new SafetyMonitor(size);
        for (int node = 0; node < size; node++) {
            disks[node] = new SimDisk(false);
            restart(node);
        }
    }

    void restart(int node) {
        replicas[node] = new Replica(Simulation.replicaConfig(node, size), disks[node].state(), new KvStateMachine(),
                QuorumPolicy.MAJORITY, LeaseHooks.NONE, nowNanos);
        loops[node] = new ReadyLoop(replicas[node], new NodeSink(node));
        safety.onRestart(node);
        process(node);
    }

    /**
     * Crashes {@code node}. If an fsync is held, {@code keptRecords} of its records reached the disk
     * (the next one is torn); nothing it would have sent leaves.
     */
    void crash(int node, int keptRecords) {
        Ready held = loops[node].persisting();
        if (held != null && keptRecords > 0) {
            disks[node].keepPrefix(held, keptRecords);
        }
        replicas[node] = null;
        loops[node] = null;
    }

    boolean isUp(int node) {
        return replicas[node] != null;
    }

    void elect(int node, long epoch) {
        replicas[node].onElection(new ElectionEvent.Elected(epoch));
        process(node);
    }

    void propose(int node, long clientId, long sequence, KvCommand command) {
        replicas[node].propose(new ClientRequest(new Command(clientId, sequence, command.encode())));
        process(node);
    }

    void tick(long advanceNanos) {
        nowNanos += advanceNanos;
        for (int node = 0; node < size; node++) {
            if (isUp(node)) {
                replicas[node].tick(nowNanos);
                process(node);
            }
        }
    }

    /** Completes the held fsync of {@code node}: persist, send, advance. */
    void fsync(int node) {
        Ready ready = loops[node].persisting();
        disks[node].persist(ready);
        loops[node].persisted(ready);
    }

    /** Delivers, oldest first, the in-flight messages matching {@code which} (answers they cause stay in flight). */
    int deliver(Predicate<Message> which) {
        List<Message> chosen = new ArrayList<>();
        for (Iterator<Message> it = inFlight.iterator(); it.hasNext(); ) {
            Message message = it.next();
            if (which.test(message)) {
                chosen.add(message);
                it.remove();
            }
        }
        for (Message message : chosen) {
            if (isUp(message.to())) {
                replicas[message.to()].step(message);
                process(message.to());
            }
        }
        return chosen.size();
    }

    void drop(Predicate<Message> which) {
        inFlight.removeIf(which);
    }

    /** Delivers everything, dropping what {@code cut} matches, until nothing is in flight (bounded). */
    void settle(Predicate<Message> cut) {
        for (int round = 0; round < 10_000 && !inFlight.isEmpty(); round++) {
            drop(cut);
            deliver(m -> true);
        }
        if (!inFlight.isEmpty()) {
            throw new AssertionError("cluster did not settle: " + inFlight.size() + " messages in flight");
        }
    }

    /** Ticks (which drives heartbeats, retransmissions and catch-up) and settles, several times. */
    void runFor(long nanos, Predicate<Message> cut) {
        for (long elapsed = 0; elapsed < nanos; elapsed += MS) {
            tick(MS);
            settle(cut);
        }
    }

    ClientReply lastReply(long clientId) {
        return lastReplyByClient.get(clientId);
    }

    long[] readList(int node, String key) {
        byte[] result = replicas[node].stateMachine().read(new KvCommand.ReadList(key).encode());
        return ((KvResult.ListValue) KvResult.decode(result)).elements();
    }

    private void process(int node) {
        if (isUp(node)) {
            loops[node].drive();
        }
    }

    /** The simulator's disk model, a network the test delivers from, and the agreement check. */
    private final class NodeSink implements ReadyLoop.Sink {
        private final int node;

        NodeSink(int node) {
            this.node = node;
        }

        @Override
        public void taken(Ready ready) {
            safety.onApplied(node, ready.committedEntries(), nowNanos);
        }

        @Override
        public boolean persist(Ready ready) {
            if (holdFsync[node]) {
                return false; // Held until the test calls fsync(node) or crashes the node.
            }
            disks[node].persist(ready);
            return true;
        }

        @Override
        public void compactThrough(long slot) {
            disks[node].compactThrough(slot);
        }

        @Override
        public void send(Message message) {
            inFlight.add(message);
        }

        @Override
        public void reply(ClientReply reply) {
            lastReplyByClient.put(reply.clientId(), reply);
        }

        @Override
        public void resign() {
            resigned[node] = true;
        }
    }
}
