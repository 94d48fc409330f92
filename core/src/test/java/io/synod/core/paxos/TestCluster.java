package io.synod.core.paxos;

import io.synod.core.kv.KvStateMachine;
import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * A tiny deterministic cluster for replica scenario tests: synchronous "fsync", a FIFO network
 * whose messages a test may drop with a filter, in-memory disks that survive crashes. Unlike the
 * simulator it has no randomness: every test scripts exactly the interleaving it checks.
 */
final class TestCluster {
    static final class Disk {
        Ballot promised = Ballot.ZERO;
        final TreeMap<Long, Entry> entries = new TreeMap<>();
        Snapshot snapshot = Snapshot.EMPTY;

        DurableState state() {
            return new DurableState(promised, snapshot, new ArrayList<>(entries.values()));
        }
    }

    final int size;
    final ReplicaConfig baseConfig;
    final Replica[] replicas;
    final ReadyLoop[] loops;
    final Disk[] disks;
    final boolean[] down;
    final ArrayDeque<Message> network = new ArrayDeque<>();
    final List<ClientReply> replies = new ArrayList<>();
    /** Every entry each replica applied, by slot: the agreement check compares these. */
    final List<Map<Long, Entry>> appliedBySlot = new ArrayList<>();
    final boolean[] resigned;
    /** Nodes whose "fsync" does not return: their Ready stays persisting until {@link #finishFsync(int)}. */
    final boolean[] slowDisk;
    private final Ready[] fsyncing;
    Predicate<Message> drop = m -> false;
    /** Stopped processes (SIGSTOP): no ticks, no Readies; messages to them wait until {@link #resume(int)}. */
    final boolean[] paused;
    private final ArrayDeque<Message> heldForPaused = new ArrayDeque<>();
    long now;
    /** The state machine each (re)started node gets. */
    final java.util.function.IntFunction<StateMachine> machines;

    TestCluster(int size) {
        this(size, ReplicaConfig.defaults(0, size));
    }

    TestCluster(int size, ReplicaConfig config) {
        this(size, config, node -> new KvStateMachine());
    }

    TestCluster(int size, ReplicaConfig config, java.util.function.IntFunction<StateMachine> machines) {
        this(size, config, machines, Coding.OFF, node -> LeaseHooks.NONE);
    }

    /** The replicas' value coding (RS-Paxos). */
    final Coding coding;
    /** The lease policy each (re)started node gets. */
    final java.util.function.IntFunction<LeaseHooks> leases;

    TestCluster(int size, ReplicaConfig config, java.util.function.IntFunction<StateMachine> machines,
            java.util.function.IntFunction<LeaseHooks> leases) {
        this(size, config, machines, Coding.OFF, leases);
    }

    TestCluster(int size, ReplicaConfig config, java.util.function.IntFunction<StateMachine> machines, Coding coding,
            LeaseHooks hooks) {
        this(size, config, machines, coding, node -> hooks);
    }

    TestCluster(int size, ReplicaConfig config, java.util.function.IntFunction<StateMachine> machines, Coding coding,
            java.util.function.IntFunction<LeaseHooks> leases) {
        this.coding = coding;
        this.machines = machines;
        this.leases = leases;
        this.size = size;
        this.baseConfig = config;
        this.replicas = new Replica[size];
        this.loops = new ReadyLoop[size];
        this.disks = new Disk[size];
        this.down = new boolean[size];
        this.resigned = new boolean[size];
        this.paused = new boolean[size];
        this.slowDisk = new boolean[size];
        this.fsyncing = new Ready[size];
        for (int i = 0; i < size; i++) {
            disks[i] = new Disk();
            appliedBySlot.add(new HashMap<>());
            start(i);
        }
    }

    /** The membership every (re)started replica begins with (docs/membership.md); null: every node votes. */
    GroupMembership membership;

    /** Restarts every (still empty) replica with {@code initial} as the group's membership. */
    void startWith(GroupMembership initial) {
        membership = initial;
        for (int i = 0; i < size; i++) {
            start(i);
        }
    }

    /** The node loses its disk (a new, empty one). */
    void wipe(int node) {
        disks[node] = new Disk();
    }

    private void start(int node) {
        GroupMembership initial = membership != null ? membership : GroupMembership.allVoters(size);
        replicas[node] = new Replica(baseConfig.withNodeId(node), disks[node].state(), machines.apply(node),
                coding.enabled() ? coding.quorum() : QuorumPolicy.MAJORITY, leases.apply(node), coding, initial, now);
        loops[node] = new ReadyLoop(replicas[node], new NodeSink(node));
    }

    void crash(int node) {
        down[node] = true;
        fsyncing[node] = null;
        network.removeIf(m -> m.to() == node);
    }

    void pause(int node) {
        paused[node] = true;
    }

    /** The stopped process runs again: the messages that waited for it arrive, then its next tick. */
    void resume(int node) {
        paused[node] = false;
        heldForPaused.removeIf(m -> {
            if (m.to() == node) {
                network.add(m);
                return true;
            }
            return false;
        });
        settle();
    }

    void restart(int node) {
        down[node] = false;
        start(node);
    }

    /** The slow disk of {@code node} finishes the write it is busy with; its Ready's messages leave. */
    void finishFsync(int node) {
        Ready ready = fsyncing[node];
        if (ready == null) {
            throw new AssertionError("node " + node + " is not persisting anything");
        }
        fsyncing[node] = null;
        write(node, ready);
        loops[node].persisted(ready);
        settle();
    }

    private void write(int node, Ready ready) {
        Disk disk = disks[node];
        if (ready.promised() != null) {
            disk.promised = ready.promised();
        }
        for (Entry entry : ready.entries()) {
            disk.entries.put(entry.slot(), entry);
        }
        if (ready.snapshot() != null) {
            disk.snapshot = ready.snapshot();
        }
    }

    void elect(int node, long epoch) {
        replicas[node].onElection(new ElectionEvent.Elected(epoch));
        settle();
    }

    void propose(int node, long clientId, long sequence, KvCommand command) {
        replicas[node].propose(new ClientRequest(new Command(clientId, sequence, command.encode())));
        settle();
    }

    void tick(long advanceNanos) {
        now += advanceNanos;
        for (int i = 0; i < size; i++) {
            if (!down[i] && !paused[i]) {
                replicas[i].tick(now);
            }
        }
        settle();
    }

    /** Processes Readies and delivers messages until nothing moves (bounded). */
    void settle() {
        for (int round = 0; round < 100_000; round++) {
            boolean moved = false;
            for (int i = 0; i < size; i++) {
                if (!down[i] && !paused[i] && replicas[i].hasReady()) {
                    loops[i].drive();
                    moved = true;
                }
            }
            Message message = network.poll();
            if (message != null) {
                moved = true;
                if (paused[message.to()] && !drop.test(message)) {
                    heldForPaused.add(message);
                } else if (!down[message.to()] && !drop.test(message)) {
                    replicas[message.to()].step(message);
                }
            }
            if (!moved) {
                return;
            }
        }
        throw new AssertionError("cluster did not settle");
    }

    /** Synchronous "fsync" into the in-memory disk, a FIFO network, and the agreement check on every applied entry. */
    private final class NodeSink implements ReadyLoop.Sink {
        private final int node;

        NodeSink(int node) {
            this.node = node;
        }

        @Override
        public void taken(Ready ready) {
            for (Entry entry : ready.committedEntries()) {
                checkAgreement(node, entry);
            }
        }

        @Override
        public boolean persist(Ready ready) {
            if (slowDisk[node]) {
                fsyncing[node] = ready;
                return false;
            }
            write(node, ready);
            return true;
        }

        @Override
        public void compactThrough(long slot) {
            disks[node].entries.headMap(slot, true).clear();
        }

        @Override
        public void send(Message message) {
            network.add(message);
        }

        @Override
        public void reply(ClientReply reply) {
            replies.add(reply);
        }

        @Override
        public void resign() {
            resigned[node] = true;
        }
    }

    /** Same value; a coded value applied deferred (its stub) is compared by client id, sequence and coding. */
    private static boolean same(Entry a, Entry b) {
        if (a.isComplete() && b.isComplete()) {
            return a.command().equals(b.command());
        }
        return a.command().clientId() == b.command().clientId() && a.command().sequence() == b.command().sequence()
                && (a.isComplete() ? a.command().payload().length : a.coded().valueLength())
                        == (b.isComplete() ? b.command().payload().length : b.coded().valueLength());
    }

    private void checkAgreement(int node, Entry entry) {
        Entry before = appliedBySlot.get(node).put(entry.slot(), entry);
        if (before != null && !same(before, entry)) {
            throw new AssertionError("node " + node + " applied two values at slot " + entry.slot());
        }
        for (int other = 0; other < size; other++) {
            Entry theirs = appliedBySlot.get(other).get(entry.slot());
            if (theirs != null && !same(theirs, entry)) {
                throw new AssertionError("slot " + entry.slot() + ": node " + node + " applied " + entry.command()
                        + " but node " + other + " applied " + theirs.command());
            }
        }
    }

    ClientReply lastReply(long clientId) {
        for (int i = replies.size() - 1; i >= 0; i--) {
            if (replies.get(i).clientId() == clientId) {
                return replies.get(i);
            }
        }
        return null;
    }

    long[] readList(int node, String key) {
        KvResult result = KvResult.decode(replicas[node].stateMachine().read(new KvCommand.ReadList(key).encode()));
        return ((KvResult.ListValue) result).elements();
    }

    /**
     * A link to {@code node} that delivers its first {@code chunks} snapshot chunks, then fails both
     * ways (dropping everything) until {@link SnapshotCut#heal()}; chunks delivered are recorded.
     */
    static final class SnapshotCut implements Predicate<Message> {
        final List<Message.InstallSnapshot> delivered = new ArrayList<>();
        private final int node;
        private final int chunks;
        boolean cut;
        private boolean healed;

        SnapshotCut(int node, int chunks) {
            this.node = node;
            this.chunks = chunks;
        }

        void heal() {
            cut = false;
            healed = true;
        }

        @Override
        public boolean test(Message m) {
            if (cut && (m.to() == node || m.from() == node)) {
                return true;
            }
            if (m instanceof Message.InstallSnapshot chunk && chunk.to() == node) {
                if (delivered.size() == chunks && !healed) {
                    cut = true;
                    return true;
                }
                delivered.add(chunk);
            }
            return false;
        }
    }
}
