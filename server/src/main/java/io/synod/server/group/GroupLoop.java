package io.synod.server.group;

import io.synod.coordination.ElectionService;
import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.ClientReply;
import io.synod.core.paxos.ClientRequest;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.ElectionEvent;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.QuorumPolicy;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.ReadyLoop;
import io.synod.core.paxos.Replica;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.core.paxos.Role;
import io.synod.server.lease.GroupLease;
import io.synod.server.lease.ReadGate;
import io.synod.server.log.GroupStorage;
import io.synod.server.log.StorageFailure;
import io.synod.server.state.RocksKvStateMachine;
import io.synod.server.wire.WireFrame;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One group's replica on one server, driven by exactly one thread: every input (peer message,
 * client command, election event, clock tick) is queued to that thread, so the replica, its
 * storage and its state machine are never touched concurrently and no state is shared with other
 * groups. Inputs are drained in bounded batches; each batch ends in one Ready pass,
 * which gives group commit (one fsync for every entry accepted in the batch). The Ready contract is
 * core's {@link ReadyLoop}, the same loop the simulator drives.
 */
public final class GroupLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupLoop.class);

    /** Inputs drained before the loop drives the replica (bounds the batch, and so the fsync). */
    static final int MAX_INPUTS_PER_BATCH = 512;

    /** Something that receives the answer to one client command (a connection). */
    public interface Responder {
        void respond(WireFrame.ClientResponse response);
    }

    private sealed interface Input {}

    private record PeerInput(Message message) implements Input {}

    private record ClientInput(WireFrame.ClientCommand command, Responder responder, long receivedNanos) implements Input {}

    private record ElectionInput(ElectionEvent event) implements Input {}

    private record StaleReadInput(WireFrame.StaleRead read, Responder responder) implements Input {}

    private record Wake() implements Input {}

    private record WatchInput(WireFrame.WatchPoll poll, Responder responder) implements Input {}

    private record CodingInput(WireFrame.CodingChange change, Responder responder) implements Input {}

    /**
     * {@code served}: the response's path ({@code WireFrame.ClientResponse.SERVED_*}); {@code read}: a read-only
     * command; {@code follower}: answered under the lease by this replica as a follower (a quorum-lease holder);
     * {@code holders}: for a read a quorum-lease follower refused, its key's lease holders (the NOT_LEADER
     * answer's result, so the client learns where the key can be read), else -1; {@code input}: for such a
     * read, the request, asked again if it waits ({@link HolderReadWait}), else null.
     */
    private record Waiter(long requestId, Responder responder, long receivedNanos, int served, boolean read,
            boolean follower, long holders, ClientInput input) {}

    private final int group;
    private final Replica replica;
    private final ReadyLoop readyLoop;
    private final GroupStorage storage;
    private final AutoCloseable stateMachine;
    /** The RocksDB machine whose staged applies are written in one batch after each pass, or null. */
    private final RocksKvStateMachine durableMachine;
    /** Read only by this loop's thread, for STALE reads of local state. */
    private final io.synod.core.paxos.StateMachine localState;
    private final Consumer<WireFrame.PeerMessage> network;
    private final ElectionService election;
    private final GroupMetrics metrics;
    private final long tickNanos;
    private final int maxWaiters;
    private final BlockingQueue<Input> inbox;
    private final BlockingQueue<ElectionEvent> control = new ArrayBlockingQueue<>(1024);
    private final Map<Long, Map<Long, List<Waiter>>> waiters = new HashMap<>();
    private int waiterCount;
    private final Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile boolean halted;
    private boolean closed;
    private volatile int state;
    private volatile WireFrame.GroupStatus status;
    private final java.util.concurrent.atomic.AtomicLong droppedInputs = new java.util.concurrent.atomic.AtomicLong();
    private Role lastRole = Role.FOLLOWER;
    private boolean joinedElection;
    private Ballot repairAbove;
    /** While repairing: the applied slot after which every entry this replica may have lost is re-learned. */
    private long repairTarget = -1;
    private final int pipelineWindow;
    /** The group's read lease: the policy the replica runs (behind a gate) and the clocks it is fed. */
    private final GroupLease lease;
    private final ReadGate leaseGate;
    /** Quorum-lease reads this replica holds but could not answer yet, waiting up to two heartbeats. */
    private final HolderReadWait<ClientInput> holderWait;
    /** STALE reads: answered from the local state, or parked until a deferred value they read is rebuilt. */
    private final StaleReads staleReads;
    /** The leader's session expiry timer (RocksDB machines only), or null. */
    private final SessionExpiryDriver expiry;
    /** Watch delivery from the RocksDB machine's event log, or null. */
    private final WatchHub watches;
    /** Admin coding changes this replica proposed, answered when their slots apply. */
    private final CodingChanges codingChanges;
    /** A graceful stop's end-lease entry (leader leases), or nothing: see {@link HandOver}. */
    private final HandOver handOver;

    public GroupLoop(int group, ReplicaConfig config, GroupStorage storage, io.synod.core.paxos.StateMachine stateMachine,
            AutoCloseable stateMachineResource, Consumer<WireFrame.PeerMessage> network, ElectionService election,
            GroupMetrics metrics, long tickNanos, int inboxCapacity, int maxWaiters) {
        this(group, config, storage, stateMachine, stateMachineResource, network, election, metrics, tickNanos,
                inboxCapacity, maxWaiters, io.synod.core.paxos.Coding.OFF);
    }

    /** A group whose values are coded by {@code coding} (RS-Paxos; {@code Coding.OFF} for majorities and full copies). */
    public GroupLoop(int group, ReplicaConfig config, GroupStorage storage, io.synod.core.paxos.StateMachine stateMachine,
            AutoCloseable stateMachineResource, Consumer<WireFrame.PeerMessage> network, ElectionService election,
            GroupMetrics metrics, long tickNanos, int inboxCapacity, int maxWaiters, io.synod.core.paxos.Coding coding) {
        this(group, config, storage, stateMachine, stateMachineResource, network, election, metrics, tickNanos,
                inboxCapacity, maxWaiters, coding, GroupLease.NONE);
    }

    /** A coded group (or {@code Coding.OFF}) whose linearizable reads may be served under {@code lease}. */
    public GroupLoop(int group, ReplicaConfig config, GroupStorage storage, io.synod.core.paxos.StateMachine stateMachine,
            AutoCloseable stateMachineResource, Consumer<WireFrame.PeerMessage> network, ElectionService election,
            GroupMetrics metrics, long tickNanos, int inboxCapacity, int maxWaiters, io.synod.core.paxos.Coding coding,
            GroupLease lease) {
        this.group = group;
        this.lease = lease;
        this.leaseGate = lease.newHooks();
        this.holderWait = new HolderReadWait<>(2 * config.heartbeatIntervalNanos());
        this.storage = storage;
        this.stateMachine = stateMachineResource;
        this.localState = stateMachine;
        this.network = network;
        this.election = election;
        this.metrics = metrics;
        this.tickNanos = tickNanos;
        this.maxWaiters = maxWaiters;
        this.inbox = new ArrayBlockingQueue<>(inboxCapacity);
        this.durableMachine = stateMachine instanceof RocksKvStateMachine r ? r : null;
        if (durableMachine != null && storage.repairAbove() != null) {
            // The damaged log may not hold the applied values between the snapshot and RocksDB's
            // slot: start from the snapshot instead (the replica restores it into RocksDB).
            durableMachine.ignoreDurableState();
        } else if (durableMachine != null && durableMachine.unresolvedKeys() > 0) {
            Map<Long, io.synod.core.paxos.CodedValue> coded = new HashMap<>();
            for (io.synod.core.paxos.Entry e : storage.durableState().entries()) {
                if (e.coded() != null) {
                    coded.put(e.slot(), e.coded());
                }
            }
            if (!durableMachine.unresolvedHeldBy(coded::get)) {
                // Deferred rebuild: RocksDB holds a key applied from a log entry this log no longer has (written
                // before that pass's fsync, then a crash). Its bytes cannot be rebuilt from here: start from the
                // snapshot (full values) and re-learn the rest, as a repair does.
                LOG.warn("group {}: an unresolved key's coded entry is missing from the log; starting from the snapshot",
                        group);
                durableMachine.ignoreDurableState();
            }
        }
        this.replica = new Replica(config, storage.durableState(), stateMachine,
                coding.enabled() ? coding.quorum() : QuorumPolicy.MAJORITY, leaseGate, coding, System.nanoTime());
        this.readyLoop = new ReadyLoop(replica, new Sink());
        this.staleReads = new StaleReads(group, replica, stateMachine, metrics);
        if (durableMachine != null) {
            durableMachine.commitApplied(); // Whatever starting the replica staged (nothing, normally).
        }
        LOG.info("group {}: starting at applied slot {} (snapshot at {})", group, replica.appliedSlot(),
                replica.snapshotSlot());
        this.repairAbove = storage.repairAbove();
        this.pipelineWindow = config.maxInFlightSlots();
        this.expiry = durableMachine == null ? null : new SessionExpiryDriver(replica.nodeId(), durableMachine);
        this.watches = durableMachine == null ? null : new WatchHub(group, durableMachine.watchLog());
        this.codingChanges = new CodingChanges(group);
        this.handOver = new HandOver(group, config.nodeId(), config.clusterSize(), config.heartbeatIntervalNanos());
        this.state = repairAbove == null ? WireFrame.GroupStatus.SERVING : WireFrame.GroupStatus.REPAIRING;
        publishStatus();
        this.thread = new Thread(this::run, "synod-group-" + group);
    }

    public void start() {
        thread.start();
        // A repairing replica stays out of elections: it must not lead (nor vote) on a damaged log.
        if (state == WireFrame.GroupStatus.SERVING) {
            joinElection();
        }
    }

    private void joinElection() {
        if (!joinedElection && election != null) {
            joinedElection = true;
            election.join(group, (g, event) -> onElection(event));
        }
    }

    // ---- inputs (any thread) ----------------------------------------------------------------------

    public void onPeerMessage(Message message) {
        if (!inbox.offer(new PeerInput(message))) {
            droppedInputs.incrementAndGet(); // Paxos retransmits; an overloaded loop sheds peer traffic.
        }
    }

    public void onClientCommand(WireFrame.ClientCommand command, Responder responder) {
        if (state == WireFrame.GroupStatus.FAILED || !inbox.offer(new ClientInput(command, responder, System.nanoTime()))) {
            responder.respond(new WireFrame.ClientResponse(command.requestId(), group,
                    state == WireFrame.GroupStatus.FAILED ? WireFrame.ClientResponse.STATUS_NO_GROUP
                            : ClientReply.Status.BUSY.ordinal(), 0, -1, new byte[0]));
        }
    }

    /** A STALE read: answered on this loop's thread from the local state at the applied slot, leader or not. */
    public void onStaleRead(WireFrame.StaleRead read, Responder responder) {
        if (state == WireFrame.GroupStatus.FAILED || !inbox.offer(new StaleReadInput(read, responder))) {
            responder.respond(new WireFrame.ClientResponse(read.requestId(), group,
                    state == WireFrame.GroupStatus.FAILED ? WireFrame.ClientResponse.STATUS_NO_GROUP
                            : ClientReply.Status.BUSY.ordinal(), 0, -1, new byte[0]));
        }
    }

    /** A watch poll: held on this loop's thread until events arrive or its wait ends ({@link WatchHub}). */
    public void onWatchPoll(WireFrame.WatchPoll poll, Responder responder) {
        if (state == WireFrame.GroupStatus.FAILED || watches == null || !inbox.offer(new WatchInput(poll, responder))) {
            responder.respond(new WireFrame.ClientResponse(poll.requestId(), group,
                    state == WireFrame.GroupStatus.FAILED || watches == null ? WireFrame.ClientResponse.STATUS_NO_GROUP
                            : ClientReply.Status.BUSY.ordinal(), 0, -1, new byte[0]));
        }
    }

    /** An admin coding change: proposed on this loop's thread if this replica leads ({@link CodingChanges}). */
    public void onCodingChange(WireFrame.CodingChange change, Responder responder) {
        if (state == WireFrame.GroupStatus.FAILED || !inbox.offer(new CodingInput(change, responder))) {
            responder.respond(new WireFrame.ClientResponse(change.requestId(), group, state == WireFrame.GroupStatus.FAILED
                    ? WireFrame.ClientResponse.STATUS_NO_GROUP : ClientReply.Status.BUSY.ordinal(), 0, -1, new byte[0]));
        }
    }

    public void onElection(ElectionEvent event) {
        if (!control.offer(event)) {
            LOG.error("group {}: election event queue full, dropping {}", group, event);
        }
        inbox.offer(new Wake());
    }

    public WireFrame.GroupStatus status() {
        return status;
    }

    public int group() {
        return group;
    }

    public GroupMetrics metrics() {
        return metrics;
    }

    // ---- the loop -----------------------------------------------------------------------------------

    private void run() {
        long nextTick = System.nanoTime() + tickNanos;
        List<Input> batch = new ArrayList<>(MAX_INPUTS_PER_BATCH);
        try {
            while (running) {
                long wait = nextTick - System.nanoTime();
                Input first = wait > 0 ? inbox.poll(wait, TimeUnit.NANOSECONDS) : inbox.poll();
                if (first != null) {
                    batch.add(first);
                    inbox.drainTo(batch, MAX_INPUTS_PER_BATCH - 1);
                }
                ElectionEvent event;
                while ((event = control.poll()) != null) {
                    observeClock();
                    replica.onElection(event);
                }
                for (Input input : batch) {
                    handle(input);
                }
                batch.clear();
                long now = System.nanoTime();
                if (now - nextTick >= 0) {
                    observeClock();
                    replica.tick(now);
                    nextTick = now + tickNanos;
                    if (expiry != null) {
                        for (ClientRequest request : expiry.afterTick(replica, state == WireFrame.GroupStatus.SERVING, now)) {
                            replica.propose(request);
                        }
                    }
                }
                handOver.step(replica, now);
                drive();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (StorageFailure e) {
            fail("storage failed, this replica stops (no retry after a failed fsync): " + e.getMessage(), e);
        } catch (RuntimeException e) {
            fail("replica failed: " + e, e);
        } finally {
            handOver.abandon();
            stopped.countDown();
        }
    }

    /**
     * Hands the replica the clocks before an input, so its lease is judged by the time the input is
     * handled (a paused process must not judge its lease by a reading from before the pause).
     */
    private void observeClock() {
        if (lease.enabled()) {
            replica.observeClock(lease.read());
        }
    }

    private void handle(Input input) {
        observeClock();
        if (input instanceof PeerInput p) {
            Message m = p.message();
            if (repairAbove != null) {
                noteLeaderDuringRepair(m);
            }
            handOver.onPeerMessage(m);
            try {
                replica.step(m);
            } catch (IllegalArgumentException e) {
                // The replica refuses a message it cannot take (wrong receiver, unknown sender) before
                // changing any state: drop it. An invariant failure (IllegalStateException) still stops the group.
                droppedInputs.incrementAndGet();
                LOG.warn("group {}: dropping a message the replica refused: {}", group, e.getMessage());
            }
        } else if (input instanceof ClientInput c) {
            propose(c);
        } else if (input instanceof StaleReadInput r) {
            staleReads.read(r.read(), r.responder());
        } else if (input instanceof WatchInput w) {
            watches.poll(w.poll(), w.responder(), replica, state == WireFrame.GroupStatus.SERVING, System.nanoTime());
        } else if (input instanceof CodingInput c) {
            codingChanges.propose(c.change(), c.responder(), replica, state == WireFrame.GroupStatus.SERVING);
        }
    }

    /**
     * Repair after mid-log corruption (see {@link GroupStorage}). The entries this replica lost were
     * accepted in ballots up to {@code repairAbove}. Two ways to know they no longer matter:
     * <ul>
     *   <li>a leader of a <em>higher</em> ballot finished phase 1 without this replica's promise
     *       (Promises are suppressed while repairing), so by quorum intersection it learned every
     *       chosen value from others and re-proposed it in its ballot; once this replica has applied
     *       up to that leader's commit point as first heard, it holds those values again;</li>
     *   <li>the leader is the one of {@code repairAbove} itself (it ran phase 1 with this replica's
     *       intact promise before the damage): every slot it could have proposed before the damage is
     *       at most its commit point plus its pipeline window, so once this replica has applied past
     *       that (and past every slot it saw on disk), it holds the chosen value of each.</li>
     * </ul>
     */
    private void noteLeaderDuringRepair(Message m) {
        long commit;
        if (m instanceof Message.Heartbeat h) {
            commit = h.leaderCommit();
        } else if (m instanceof Message.Accept a) {
            commit = a.leaderCommit();
        } else if (m instanceof Message.InstallSnapshot s) {
            commit = s.lastIncludedSlot();
        } else {
            return;
        }
        if (repairTarget >= 0 || m.ballot().nodeId() != m.from() || m.ballot().isBelow(repairAbove)) {
            return;
        }
        if (m.ballot().isAbove(repairAbove)) {
            repairTarget = commit;
        } else {
            repairTarget = Math.max(storage.repairThroughSlot(), commit + pipelineWindow);
        }
        LOG.warn("group {}: repairing; leader {} (ballot {}) found, voting again once slot {} is applied", group, m.from(),
                m.ballot(), repairTarget);
    }

    private void propose(ClientInput c) {
        WireFrame.ClientCommand cmd = c.command();
        Command command;
        try {
            command = new Command(cmd.clientId(), cmd.sequence(), cmd.payload());
            if (command.isNoop()) {
                throw new IllegalArgumentException("client id 0 is reserved");
            }
        } catch (IllegalArgumentException e) {
            c.responder().respond(new WireFrame.ClientResponse(cmd.requestId(), group, ClientReply.Status.REJECTED.ordinal(),
                    0, replica.leaderHint(), String.valueOf(e.getMessage()).getBytes(StandardCharsets.UTF_8)));
            return;
        }
        if (waiterCount >= maxWaiters) {
            c.responder().respond(new WireFrame.ClientResponse(cmd.requestId(), group, ClientReply.Status.BUSY.ordinal(), 0,
                    replica.leaderHint(), new byte[0]));
            return;
        }
        // The answer comes in a later Ready, so the waiter is registered after proposing, knowing the path.
        leaseGate.begin((cmd.flags() & WireFrame.ClientCommand.FLAG_THROUGH_LOG) != 0);
        replica.propose(new ClientRequest(command));
        boolean byLease = leaseGate.servedLocally();
        boolean read = byLease || (lease.enabled() && localState.isReadOnly(cmd.payload()));
        boolean follower = replica.role() != Role.LEADER;
        long holders = read && !byLease && follower && lease.followerReads() ? leaseGate.holders(cmd.payload()) : -1;
        waiters.computeIfAbsent(cmd.clientId(), k -> new HashMap<>())
                .computeIfAbsent(cmd.sequence(), k -> new ArrayList<>(1))
                .add(new Waiter(cmd.requestId(), c.responder(), c.receivedNanos(),
                        byLease ? WireFrame.ClientResponse.SERVED_LEASE : WireFrame.ClientResponse.SERVED_LOG, read,
                        byLease && follower, holders, holders >= 0 ? c : null));
        waiterCount++;
    }

    /** The runtime's side of core's shared {@link ReadyLoop}: persistence is synchronous (one fsync per Ready). */
    private final class Sink implements ReadyLoop.Sink {
        @Override
        public void taken(Ready ready) {
            if (!ready.applied().isEmpty()) {
                metrics.appliedEntries.increment(ready.applied().size());
            }
            codingChanges.applied(ready.applied(), replica.appliedSlot());
        }

        @Override
        public boolean persist(Ready ready) {
            long start = System.nanoTime();
            storage.persist(ready);
            metrics.recordFsync(System.nanoTime() - start);
            metrics.batchEntries.record(ready.entries().size());
            return true;
        }

        @Override
        public void compactThrough(long slot) {
            storage.compactThrough(slot);
        }

        @Override
        public void send(Message message) {
            if (repairAbove != null && message instanceof Message.Promise) {
                return; // A damaged log must not vote in phase 1 (see GroupStorage).
            }
            if (message instanceof Message.ShardRequest) {
                metrics.recoveryRequests.increment();
            }
            network.accept(new WireFrame.PeerMessage(group, message));
        }

        @Override
        public void reply(ClientReply reply) {
            Map<Long, List<Waiter>> byClient = waiters.get(reply.clientId());
            List<Waiter> list = byClient == null ? null : byClient.remove(reply.sequence());
            if (list == null) {
                return;
            }
            if (byClient.isEmpty()) {
                waiters.remove(reply.clientId());
            }
            long now = System.nanoTime();
            for (Waiter w : list) {
                waiterCount--;
                if (reply.status() == ClientReply.Status.NOT_LEADER && w.input() != null && holderWait.park(w.input(),
                        w.holders(), replica.nodeId(), replica.role(), w.receivedNanos(), now)) {
                    metrics.holderReadWaits.increment();
                    continue; // Asked again after this pass (its pending write may commit meanwhile).
                }
                if (reply.status() == ClientReply.Status.OK) {
                    metrics.commitLatency.record(now - w.receivedNanos(), TimeUnit.NANOSECONDS);
                    if (w.read()) {
                        (w.served() != WireFrame.ClientResponse.SERVED_LEASE ? metrics.logReads
                                : w.follower() ? metrics.followerLeaseReads : metrics.leaseReads).increment();
                    }
                }
                byte[] result = reply.result();
                if (reply.status() == ClientReply.Status.NOT_LEADER && w.holders() >= 0 && result.length == 0) {
                    result = java.nio.ByteBuffer.allocate(Long.BYTES).putLong(w.holders()).array();
                }
                w.responder().respond(new WireFrame.ClientResponse(w.requestId(), group, reply.status().ordinal(),
                        reply.slot(), reply.leaderHint(), result, w.served()));
            }
        }

        @Override
        public void resign() {
            if (election != null && joinedElection) {
                election.resign(group);
            }
        }
    }

    private void drive() {
        if (!holderWait.isEmpty()) {
            for (ClientInput c : holderWait.takeAll()) {
                observeClock();
                propose(c);
            }
        }
        readyLoop.drive();
        if (durableMachine != null) {
            // One WriteBatch per pass: the data changes, applied slot and session records of every
            // command this pass applied (all of them, or after a crash none).
            durableMachine.commitApplied();
        }
        staleReads.retryParked();
        if (watches != null) {
            watches.afterPass(replica, state == WireFrame.GroupStatus.SERVING, System.nanoTime());
        }
        Role role = replica.role();
        if (role == Role.LEADER && lastRole != Role.LEADER) {
            metrics.leaderChanges.increment();
            LOG.info("group {}: leading with ballot {} from slot {}", group, replica.ownBallot(), replica.commitSlot());
        }
        lastRole = role;
        if (repairAbove != null && repairTarget >= 0 && replica.role() == Role.FOLLOWER
                && replica.appliedSlot() >= repairTarget) {
            storage.finishRepair();
            repairAbove = null;
            state = WireFrame.GroupStatus.SERVING;
            LOG.warn("group {}: repaired from peers up to slot {}; voting and standing for election again", group,
                    replica.appliedSlot());
            joinElection();
        }
        metrics.logBytes = storage.log().sizeBytes();
        metrics.applyLagSlots = Math.max(0, replica.lastSlot() - replica.appliedSlot());
        metrics.commitSlot = replica.commitSlot();
        metrics.role = replica.role().ordinal();
        metrics.acceptRetransmits = replica.acceptRetransmits();
        if (replica.defence().divergences() != metrics.divergences) { // defence in depth: log each divergent slot once
            LOG.error("group {}: {}", group, replica.defence().lastDivergence());
            metrics.divergences = replica.defence().divergences();
        }
        metrics.refusedBallots = replica.defence().refusedBallots();
        publishStatus();
    }

    private void publishStatus() {
        Ballot b = replica.promised();
        status = new WireFrame.GroupStatus(group, replica.role().ordinal(), b.epoch(),
                replica.role() == Role.LEADER ? replica.nodeId() : replica.leaderHint(), replica.commitSlot(),
                replica.appliedSlot(), replica.snapshotSlot(), state);
    }

    private void fail(String reason, Throwable cause) {
        state = WireFrame.GroupStatus.FAILED;
        publishStatus();
        LOG.error("group {}: {}", group, reason, cause);
        if (election != null && joinedElection) {
            try {
                election.leave(group);
            } catch (RuntimeException e) {
                LOG.warn("group {}: leaving the election failed: {}", group, e.toString());
            }
        }
        for (Map<Long, List<Waiter>> byClient : waiters.values()) {
            for (List<Waiter> list : byClient.values()) {
                for (Waiter w : list) {
                    w.responder().respond(new WireFrame.ClientResponse(w.requestId(), group,
                            WireFrame.ClientResponse.STATUS_NO_GROUP, 0, -1, new byte[0]));
                }
            }
        }
        waiters.clear();
        for (ClientInput c : holderWait.takeAll()) {
            c.responder().respond(new WireFrame.ClientResponse(c.command().requestId(), group,
                    WireFrame.ClientResponse.STATUS_NO_GROUP, 0, -1, new byte[0]));
        }
        if (watches != null) {
            watches.failAll();
        }
        codingChanges.failAll();
    }

    public long droppedInputs() {
        return droppedInputs.get();
    }

    /** Stops the loop without telling the election (a crash, as far as ZooKeeper can tell); idempotent. */
    public void halt() {
        halted = true;
        running = false;
        inbox.offer(new Wake());
        try {
            if (thread.getState() != Thread.State.NEW && !stopped.await(5, TimeUnit.SECONDS)) {
                thread.interrupt();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A graceful stop's first step, on any thread: a leader under a leader lease appends its end-lease
     * entry and stops serving lease reads ({@link HandOver}); {@link #close()} waits for it, bounded, before
     * leaving the election. Call it on every group first so they hand over in parallel. Not after {@link #halt()}.
     */
    public void beginHandOver() {
        if (!halted && running && thread.getState() != Thread.State.NEW) {
            handOver.request();
            inbox.offer(new Wake());
        }
    }

    /** Stops the loop and leaves the election; a leader under a leader lease hands over first (bounded). */
    @Override
    public void close() throws Exception {
        if (closed) {
            return;
        }
        closed = true;
        beginHandOver();
        if (!halted && thread.getState() != Thread.State.NEW) {
            handOver.await(HandOver.BOUND_NANOS + TimeUnit.SECONDS.toNanos(5));
        }
        running = false;
        inbox.offer(new Wake());
        if (thread.getState() != Thread.State.NEW && !stopped.await(5, TimeUnit.SECONDS)) {
            thread.interrupt();
            stopped.await(5, TimeUnit.SECONDS);
        }
        if (election != null && joinedElection && state != WireFrame.GroupStatus.FAILED && !halted) {
            try {
                election.leave(group);
            } catch (RuntimeException e) {
                LOG.debug("group {}: leave on close: {}", group, e.toString());
            }
        }
        storage.close();
        if (stateMachine != null) {
            stateMachine.close();
        }
    }
}
