package io.synod.server.group;

import io.synod.coordination.ElectionService;
import io.synod.core.paxos.GroupMembership;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.StateMachine;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.RoutedCommand;
import io.synod.engine.DriverInput;
import io.synod.engine.MembershipAdmin;
import io.synod.engine.DriverLog;
import io.synod.engine.DriverMetrics;
import io.synod.engine.DriverOutput;
import io.synod.engine.GroupDriver;
import io.synod.engine.GroupDriverConfig;
import io.synod.engine.KvState;
import io.synod.engine.Responder;
import io.synod.server.log.GroupStorage;
import io.synod.server.log.StorageFailure;
import io.synod.server.state.RocksKvStateMachine;
import io.synod.server.wire.WireFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner state of one group's {@link GroupDriver}, run by a worker of a {@link GroupWorkers} pool: it owns
 * what the driver may not touch, and nothing else: the bounded inboxes, the clock reading, the storage
 * ({@link GroupStorage}, whose writes and fsyncs the pool's {@link LogWriter} does; the state machine's per-pass
 * batch), the network send and the election service. Every input (peer message, client command, election event,
 * clock tick, persist completion) is queued to the group and handled on its worker's thread in {@link #turn}, so
 * the driver, its replica and its storage are never touched concurrently. Peer messages and client-side inputs
 * wait in two separate bounded queues, and each turn drains the peer queue first: a client flood fills only the
 * client queue (its surplus is answered BUSY at once) and never costs a peer message, which the group's progress
 * depends on (a dropped Accept or Promise is only recovered by a retransmission interval later). A turn takes at
 * most {@link #MAX_INPUTS_PER_BATCH} inputs, so one busy group cannot starve the others of its worker, and ends in
 * one pass ({@link GroupDriver#ready}). A pass's Ready goes to the log writer, which appends the Readys of every
 * group queued to it and syncs once per log (group commit across groups); its completion comes back as an input.
 * While a Ready is being persisted the group keeps stepping inputs (core's {@code ReadyLoop} allows it: the next
 * Ready batches them) and the worker keeps serving its other groups: no worker waits for an fsync.
 */
public final class GroupLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupLoop.class);

    /** Inputs one turn takes (bounds the batch, and how long the group holds its worker). */
    static final int MAX_INPUTS_PER_BATCH = 512;

    /** A stopped group waiting for its last log writer job wakes its worker no sooner than this (the writer rings). */
    private static final long RETIRED_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** What a turn left behind, for the worker. */
    enum Turn { IDLE, MORE, GONE }

    private final int group;
    private final GroupDriver driver;
    private final GroupStorage storage;
    private final AutoCloseable stateMachine;
    /** The RocksDB machine whose staged applies are written in one batch after each pass, or null. */
    private final RocksKvStateMachine durableMachine;
    private final Consumer<WireFrame.PeerMessage> network;
    private final ElectionService election;
    private final DriverMetrics metrics;
    private final long tickNanos;
    /** Peer messages: drained first in every turn. */
    private final BlockingQueue<DriverInput> peerInbox;
    /** Client commands, reads, watch polls, coding changes: what a client may flood. */
    private final BlockingQueue<DriverInput> clientInbox;
    private final BlockingQueue<ElectionEvent> control = new ArrayBlockingQueue<>(1024);
    private final GroupWorkers workers;
    /** The pool was made for this group alone (the constructors without one): closing the group closes it. */
    private final boolean ownsWorkers;
    private final GroupWorkers.Worker worker;
    /** The persist completion the log writer handed back, taken by the next turn. */
    private final AtomicReference<Completion> completion = new AtomicReference<>();
    /** Log writer jobs (persists, compactions, repair end) not finished yet: the storage closes only after them. */
    private final AtomicInteger writerJobs = new AtomicInteger();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CountDownLatch handedOver = new CountDownLatch(1);
    private volatile boolean started;
    private volatile boolean running = true;
    private volatile boolean halted;
    private volatile boolean handOverRequested;
    private volatile boolean moveRequested;
    private volatile boolean closed;
    private volatile ClientFrame.GroupStatus status;
    private volatile GroupMembership membership;
    /** This replica's place in the group's election: only while it votes ({@link ElectionStanding}). */
    private final ElectionStanding standing;
    private final AtomicLong droppedInputs = new AtomicLong();
    private final AtomicLong peerMessagesQueued = new AtomicLong();
    private final SentKinds sentKinds = new SentKinds();
    private final AtomicLong clientInputsBusy = new AtomicLong();
    private volatile long refusedMessages;
    private final LongSupplier clock;
    // Worker thread only:
    private final List<DriverInput> batch = new ArrayList<>(MAX_INPUTS_PER_BATCH);
    /** The Ready handed to the log writer and not completed yet, or null. */
    private Ready persisting;
    private long nextTick;
    private boolean retired;

    /** A finished persist: {@code failure} is null when the Ready is durable. */
    private record Completion(Ready ready, RuntimeException failure) {}

    /**
     * A group's runner on a pool of its own (one worker, one log writer): {@code stateMachine} is the replica's
     * state machine ({@code resource} closes it); {@code network} sends peer messages; {@code election} may be
     * null (tests: elections are fed by hand); {@code inboxCapacity} bounds the peer queue and, separately, the
     * client queue.
     */
    public GroupLoop(GroupDriverConfig config, GroupStorage storage, StateMachine stateMachine, AutoCloseable resource,
            Consumer<WireFrame.PeerMessage> network, ElectionService election, long tickNanos, int inboxCapacity) {
        this(config, storage, stateMachine, resource, network, election, tickNanos, inboxCapacity, System::nanoTime);
    }

    /**
     * As above, reading time from {@code clock} (monotonic nanoseconds) instead of {@link System#nanoTime()}:
     * the server passes a skewed or drifting clock only under a test configuration (the clock fault of
     * {@code synod nemesis}).
     */
    public GroupLoop(GroupDriverConfig config, GroupStorage storage, StateMachine stateMachine, AutoCloseable resource,
            Consumer<WireFrame.PeerMessage> network, ElectionService election, long tickNanos, int inboxCapacity,
            LongSupplier clock) {
        this(config, storage, stateMachine, resource, network, election, tickNanos, inboxCapacity,
                GroupWorkers.start(1, clock, null, "synod-group-" + config.group()), true);
    }

    /** A group run by {@code workers} (shared with the node's other groups), on the worker {@code group mod W}. */
    public GroupLoop(GroupDriverConfig config, GroupStorage storage, StateMachine stateMachine, AutoCloseable resource,
            Consumer<WireFrame.PeerMessage> network, ElectionService election, long tickNanos, int inboxCapacity,
            GroupWorkers workers) {
        this(config, storage, stateMachine, resource, network, election, tickNanos, inboxCapacity, workers, false);
    }

    private GroupLoop(GroupDriverConfig config, GroupStorage storage, StateMachine stateMachine, AutoCloseable resource,
            Consumer<WireFrame.PeerMessage> network, ElectionService election, long tickNanos, int inboxCapacity,
            GroupWorkers workers, boolean ownsWorkers) {
        this.workers = workers;
        this.ownsWorkers = ownsWorkers;
        this.clock = workers.clock();
        this.group = config.group();
        this.worker = workers.workerFor(group);
        this.storage = storage;
        this.stateMachine = resource;
        this.network = network;
        this.election = election;
        this.standing = new ElectionStanding(group, election, this::onElection);
        this.metrics = config.metrics();
        this.tickNanos = tickNanos;
        this.peerInbox = new ArrayBlockingQueue<>(inboxCapacity);
        this.clientInbox = new ArrayBlockingQueue<>(inboxCapacity);
        this.durableMachine = stateMachine instanceof RocksKvStateMachine r ? r : null;
        if (durableMachine != null) {
            StartingState.choose(durableMachine, storage, group);
        }
        this.driver = new GroupDriver(config, new GroupDriver.Recovered(storage.durableState(), storage.repairAbove(),
                storage.repairThroughSlot()), stateMachine, durableMachine == null ? null
                : KvState.of(durableMachine::liveSessions, durableMachine.watchLog()),
                new Output(), clock.getAsLong());
        if (durableMachine != null) {
            durableMachine.commitApplied(); // Whatever starting the replica staged (nothing, normally).
        }
        publish();
    }

    public void start() {
        // A repairing replica stays out of elections: it must not lead (nor vote) on a damaged log. Joined
        // before the worker takes the group, so the driver is only ever touched by one thread at a time.
        driver.start();
        nextTick = clock.getAsLong() + tickNanos;
        started = true;
        worker.add(this);
    }

    // ---- inputs (any thread) ----------------------------------------------------------------------

    public void onPeerMessage(Message message) {
        if (peerInbox.offer(new DriverInput.Peer(message))) {
            peerMessagesQueued.incrementAndGet();
            ring();
        } else {
            // Only peer traffic fills this queue (client load has its own): Paxos retransmits what is shed.
            droppedInputs.incrementAndGet();
        }
    }

    public void onClientCommand(ClientFrame.Command command, RoutedCommand routed, Responder responder) {
        offerOrRefuse(new DriverInput.Client(command, routed.readOnly(), responder, clock.getAsLong()), command.requestId(),
                responder, true);
    }

    /** A STALE read: answered on the group's worker from the local state at the applied slot, leader or not. */
    public void onStaleRead(ClientFrame.StaleRead read, RoutedCommand routed, Responder responder) {
        offerOrRefuse(new DriverInput.StaleRead(read, routed.readOnly(), responder), read.requestId(), responder, true);
    }

    /** A watch poll: held on the group's worker until events arrive or its wait ends. */
    public void onWatchPoll(ClientFrame.WatchPoll poll, Responder responder) {
        offerOrRefuse(new DriverInput.WatchPoll(poll, responder), poll.requestId(), responder, durableMachine != null);
    }

    /** An admin coding change: proposed on the group's worker if this replica leads. */
    public void onCodingChange(ClientFrame.CodingChange change, Responder responder) {
        offerOrRefuse(new DriverInput.CodingChange(change, responder), change.requestId(), responder, true);
    }

    /** An admin membership request (add learner, promote, remove, re-join step, status): answered on the group's worker. */
    public void onMembership(MembershipAdmin.Request request, Consumer<MembershipAdmin.Answer> answer) {
        if (status.state() == ClientFrame.GroupStatus.FAILED) {
            answer.accept(MembershipAdmin.Answer.refused("group " + group + " failed"));
        } else if (clientInbox.offer(new DriverInput.Membership(request, answer))) {
            ring();
        } else {
            clientInputsBusy.incrementAndGet();
            answer.accept(MembershipAdmin.Answer.refused("group " + group + " is busy (its input queue is full)"));
        }
    }

    /** Queues a client-side input, or answers at once: no group (failed, or none for this kind) or BUSY (client queue full). */
    private void offerOrRefuse(DriverInput input, long requestId, Responder responder, boolean served) {
        boolean noGroup = status.state() == ClientFrame.GroupStatus.FAILED || !served;
        boolean queued = !noGroup && clientInbox.offer(input);
        if (queued) {
            ring();
        } else {
            if (!noGroup) {
                clientInputsBusy.incrementAndGet();
            }
            responder.respond(new ClientFrame.Response(requestId, group, noGroup
                    ? ClientFrame.STATUS_NO_GROUP : ClientReply.Status.BUSY.ordinal(), 0, -1, new byte[0]));
        }
    }

    public void onElection(ElectionEvent event) {
        if (!control.offer(event)) {
            LOG.error("group {}: election event queue full, dropping {}", group, event);
        }
        ring();
    }

    /** Wakes the group's worker if it waits (a no-op when it is already rung). */
    private void ring() {
        worker.ring();
    }

    private void drainBoth(List<DriverInput> batch) {
        peerInbox.drainTo(batch, MAX_INPUTS_PER_BATCH);
        clientInbox.drainTo(batch, MAX_INPUTS_PER_BATCH - batch.size());
    }

    /** Bytes of the node log's segments on disk (the log size gauge, read at a scrape). */
    long logSizeBytes() {
        return storage.log().sizeBytes();
    }

    /** Inputs waiting in the two inboxes (the worker's queue gauge). */
    int queued() {
        return peerInbox.size() + clientInbox.size();
    }

    public ClientFrame.GroupStatus status() {
        return status;
    }

    /** The membership this replica applied, as of the last pass (null before the first). */
    public GroupMembership membership() {
        return membership;
    }

    public int group() {
        return group;
    }

    // ---- the turn (worker thread) -------------------------------------------------------------------

    /** When this group's next tick is due (the worker sleeps at most until the earliest of its groups'). */
    long nextTick() {
        return nextTick;
    }

    /**
     * One turn on the worker's thread: the persist completion, election events, then at most
     * {@link #MAX_INPUTS_PER_BATCH} inputs (peer queue first), the tick if due, and one pass. A stopped group
     * leaves its worker once the log writer has finished every job of it ({@link Turn#GONE}).
     */
    Turn turn() {
        if (!running && !retired) {
            retire();
        }
        if (retired) {
            return finishRetired();
        }
        try {
            Completion done = completion.getAndSet(null);
            if (done != null) {
                persisting = null;
                if (done.failure() != null) {
                    throw done.failure();
                }
                driver.persistedBeforePass(done.ready(), clock.getAsLong()); // the pass below follows
            }
            boolean elected = false;
            ElectionEvent event;
            while ((event = control.poll()) != null) {
                driver.onElection(event, clock.getAsLong());
                elected = true;
            }
            drainBoth(batch);
            for (DriverInput input : batch) {
                driver.step(input, clock.getAsLong());
            }
            boolean stepped = !batch.isEmpty();
            batch.clear();
            long now = clock.getAsLong();
            boolean tick = now - nextTick >= 0;
            if (tick) {
                driver.tick(now);
                nextTick = now + tickNanos;
            }
            if (moveRequested) {
                moveRequested = false;
                driver.requestMove();
            }
            if (handOverRequested) {
                driver.requestHandOver();
            }
            if (done != null || elected || stepped || tick || handOverRequested) {
                pass(now);
            }
        } catch (StorageFailure e) {
            fail("storage failed, this replica stops (no retry after a failed fsync): " + e.getMessage(), e);
            retire();
            return finishRetired();
        } catch (RuntimeException e) {
            fail("replica failed: " + e, e);
            retire();
            return finishRetired();
        }
        return peerInbox.isEmpty() && clientInbox.isEmpty() && completion.get() == null ? Turn.IDLE : Turn.MORE;
    }

    /** One pass: the driver's Readys; one that must persist goes to the log writer (its completion comes back). */
    private void pass(long now) {
        driver.ready(now);
        Ready ready = driver.persistRequest();
        if (ready != null && persisting == null) {
            persisting = ready;
            writerJobs.incrementAndGet();
            workers.writer().persist(storage, ready, this::persistDone);
        }
        publish();
        if (driver.handOverDone()) {
            handedOver.countDown();
        }
    }

    /** On the log writer's thread: {@code ready} is durable (or its storage failed); the worker takes it next turn. */
    private void persistDone(Ready ready, RuntimeException failure, long nanos) {
        if (failure == null) {
            metrics.recordPersist(nanos, ready.entries().size());
        }
        complete(new Completion(ready, failure));
        writerJobDone();
    }

    /** A storage request of the driver, run by the log writer in order with this group's persists. */
    private void storageJob(Consumer<GroupStorage> job) {
        writerJobs.incrementAndGet();
        workers.writer().run(storage, job, failure -> {
            if (failure != null) {
                complete(new Completion(null, failure));
            }
            writerJobDone();
        });
    }

    /** Hands a completion to the worker; a failure already handed stays (the group fails on it). */
    private void complete(Completion c) {
        completion.accumulateAndGet(c, (old, next) -> old != null && old.failure() != null ? old : next);
    }

    private void writerJobDone() {
        writerJobs.decrementAndGet();
        ring();
    }

    /** The group stops here (halted, closed or failed): no more driver calls; nobody waits for its hand-over. */
    private void retire() {
        retired = true;
        handedOver.countDown();
    }

    private Turn finishRetired() {
        if (writerJobs.get() > 0) {
            nextTick = clock.getAsLong() + RETIRED_WAIT_NANOS; // no tick any more: the writer rings when done
            return Turn.IDLE;
        }
        completion.set(null); // a halted or failed group's completion is dropped: nothing of it leaves
        persisting = null;
        stopped.countDown();
        return Turn.GONE;
    }

    private void publish() {
        status = driver.status();
        refusedMessages = driver.refusedMessages();
        membership = driver.replica().membership().applied();
        standing.follow(driver.replica());
    }

    /** The runner's side of the driver's outputs: the network, the disk and the election service. */
    private final class Output implements DriverOutput {
        @Override
        public void send(Message message) {
            sentKinds.sent(message);
            network.accept(new WireFrame.PeerMessage(group, message));
        }

        @Override
        public void log(DriverLog.Level level, String line) {
            switch (level) {
                case INFO -> LOG.info(line);
                case WARN -> LOG.warn(line);
                case ERROR -> LOG.error(line);
            }
        }

        @Override
        public void compactThrough(long slot) {
            storageJob(s -> s.compactThrough(slot));
        }

        @Override
        public void commitApplied() {
            if (durableMachine != null) {
                durableMachine.commitApplied();
            }
        }

        @Override
        public void finishRepair() {
            // Queued behind this group's persists: a crash before it runs leaves the marker, so the replica
            // repairs again after a restart (conservative), never the other way round.
            storageJob(GroupStorage::finishRepair);
        }

        @Override
        public void joinElection() {
            standing.join(driver.replica());
        }

        @Override
        public void resign() {
            standing.resign();
        }

        @Override
        public void leaveElection() {
            standing.leave();
        }
    }

    private void fail(String reason, Throwable cause) {
        driver.fail(failed -> {
            status = failed;
            LOG.error("group {}: {}", group, reason, cause);
        });
        publish();
    }

    public long droppedInputs() {
        return droppedInputs.get() + refusedMessages;
    }

    /** Peer messages accepted into the peer queue so far. */
    SentKinds sentKinds() {
        return sentKinds;
    }

    public long peerMessagesQueued() {
        return peerMessagesQueued.get();
    }

    /** Client-side inputs answered BUSY because the client queue was full. */
    public long clientInputsBusy() {
        return clientInputsBusy.get();
    }

    /**
     * Stops the group without telling the election (a crash, as far as ZooKeeper can tell): its worker makes no
     * further driver call and drops a persist completion still to come; idempotent.
     */
    public void halt() {
        halted = true;
        running = false;
        ring();
        awaitStopped();
        if (ownsWorkers) {
            workers.close();
        }
    }

    private void awaitStopped() {
        try {
            if (started && !stopped.await(5, TimeUnit.SECONDS)) {
                LOG.warn("group {}: its worker did not stop it within 5 s (a log write still under way?)", group);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A graceful stop's first step, on any thread: a leader under a leader lease appends its end-lease
     * entry and stops serving lease reads (the driver's hand-over); {@link #close()} waits for it, bounded,
     * before leaving the election. Call it on every group first so they hand over in parallel. Not after
     * {@link #halt()}.
     */
    public void beginHandOver() {
        if (!halted && running && started) {
            handOverRequested = true;
            ring();
        }
    }

    /**
     * Leaders spread, on any thread: if this node leads the group, it hands the leadership over (its
     * end-lease entry under a leader lease, so no lease gap opens) and then resigns, so that the election
     * picks another node ({@link GroupDriver#requestMove()}). Ignored when not leading or stopping.
     */
    public void moveLeadership() {
        if (!halted && running && !closed && started) {
            moveRequested = true;
            ring();
        }
    }

    /** Stops the group and leaves the election; a leader under a leader lease hands over first (bounded). */
    @Override
    public void close() throws Exception {
        if (closed) {
            return;
        }
        closed = true;
        beginHandOver();
        if (!halted && started) {
            handedOver.await(GroupDriver.HAND_OVER_BOUND_NANOS + TimeUnit.SECONDS.toNanos(5), TimeUnit.NANOSECONDS);
        }
        running = false;
        ring();
        awaitStopped();
        if (status.state() != ClientFrame.GroupStatus.FAILED && !halted) {
            standing.leaveOnClose();
        }
        if (ownsWorkers) {
            workers.close();
        }
        storage.close();
        if (stateMachine != null) {
            stateMachine.close();
        }
    }
}
