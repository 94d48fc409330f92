package io.synod.server.group;

import io.synod.coordination.ElectionService;
import io.synod.core.paxos.GroupMembership;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Replica;
import io.synod.core.paxos.StateMachine;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.RoutedCommand;
import io.synod.engine.DriverInput;
import io.synod.engine.MembershipAdmin;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner state of one group's {@link GroupDriver}, run by a worker of a {@link GroupWorkers} pool: it owns
 * what the driver may not touch, and nothing else: the bounded inboxes ({@link GroupInboxes}), the clock reading,
 * the storage ({@link GroupStorage}, whose writes and fsyncs the pool's {@link LogWriter} does for the group's
 * {@link WriterJobs}; the state machine's per-pass batch), the network send and the election service
 * ({@link GroupOutput}). Every input (peer message, client command, election event, clock tick, persist completion)
 * is queued to the group and handled on its worker's thread in {@link #turn}, so the driver, its replica and its
 * storage are never touched concurrently. Each turn drains the peer queue before the client queue, so a client
 * flood (its surplus answered BUSY at once) never costs a peer message. A turn takes at
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
    private final long tickNanos;
    private final GroupInboxes inboxes;
    private final GroupWorkers workers;
    /** The pool was made for this group alone (the constructors without one): closing the group closes it. */
    private final boolean ownsWorkers;
    private final GroupWorkers.Worker worker;
    private final WriterJobs writerJobs;
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
    private final SentKinds sentKinds = new SentKinds();
    private volatile long refusedMessages;
    private final LongSupplier clock;
    // Worker thread only:
    private final List<DriverInput> batch = new ArrayList<>(MAX_INPUTS_PER_BATCH);
    private long nextTick;
    private boolean retired;

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
        this.standing = new ElectionStanding(group, election, this::onElection);
        this.tickNanos = tickNanos;
        this.inboxes = new GroupInboxes(inboxCapacity);
        this.writerJobs = new WriterJobs(storage, workers.writer(), config.metrics(), this::ring);
        this.durableMachine = stateMachine instanceof RocksKvStateMachine r ? r : null;
        if (durableMachine != null) {
            StartingState.choose(durableMachine, storage, group);
        }
        this.driver = new GroupDriver(config, new GroupDriver.Recovered(storage.durableState(), storage.repairAbove(),
                storage.repairThroughSlot()), stateMachine, durableMachine == null ? null
                : KvState.of(durableMachine::liveSessions, durableMachine.watchLog()),
                new GroupOutput(group, network, sentKinds, writerJobs, durableMachine, standing, this::replica),
                clock.getAsLong());
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
        // Only peer traffic fills this queue (client load has its own): Paxos retransmits what is shed.
        if (inboxes.offerPeer(message)) {
            ring();
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
        } else if (inboxes.offerClient(new DriverInput.Membership(request, answer))) {
            ring();
        } else {
            answer.accept(MembershipAdmin.Answer.refused("group " + group + " is busy (its input queue is full)"));
        }
    }

    /** Queues a client-side input, or answers at once: no group (failed, or none for this kind) or BUSY (client queue full). */
    private void offerOrRefuse(DriverInput input, long requestId, Responder responder, boolean served) {
        boolean noGroup = status.state() == ClientFrame.GroupStatus.FAILED || !served;
        boolean queued = !noGroup && inboxes.offerClient(input); // counts a BUSY refusal
        if (queued) {
            ring();
        } else {
            responder.respond(new ClientFrame.Response(requestId, group, noGroup
                    ? ClientFrame.STATUS_NO_GROUP : ClientReply.Status.BUSY.ordinal(), 0, -1, new byte[0]));
        }
    }

    public void onElection(ElectionEvent event) {
        if (!inboxes.offerElection(event)) {
            LOG.error("group {}: election event queue full, dropping {}", group, event);
        }
        ring();
    }

    /** Wakes the group's worker if it waits (a no-op when it is already rung). */
    private void ring() {
        worker.ring();
    }

    /** Bytes of the node log's segments on disk (the log size gauge, read at a scrape). */
    long logSizeBytes() {
        return storage.log().sizeBytes();
    }

    /** Inputs waiting in the two inboxes (the worker's queue gauge). */
    int queued() {
        return inboxes.queued();
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
            WriterJobs.Completion done = writerJobs.takeCompletion();
            if (done != null) {
                if (done.failure() != null) {
                    throw done.failure();
                }
                driver.persistedBeforePass(done.ready(), clock.getAsLong()); // the pass below follows
            }
            boolean elected = false;
            ElectionEvent event;
            while ((event = inboxes.pollElection()) != null) {
                driver.onElection(event, clock.getAsLong());
                elected = true;
            }
            inboxes.drainTo(batch, MAX_INPUTS_PER_BATCH);
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
        return inboxes.isEmpty() && !writerJobs.hasCompletion() ? Turn.IDLE : Turn.MORE;
    }

    /** One pass: the driver's Readys; one that must persist goes to the log writer (its completion comes back). */
    private void pass(long now) {
        driver.ready(now);
        writerJobs.persist(driver.persistRequest());
        publish();
        if (driver.handOverDone()) {
            handedOver.countDown();
        }
    }

    /** The group stops here (halted, closed or failed): no more driver calls; nobody waits for its hand-over. */
    private void retire() {
        retired = true;
        handedOver.countDown();
    }

    private Turn finishRetired() {
        if (writerJobs.unfinished()) {
            nextTick = clock.getAsLong() + RETIRED_WAIT_NANOS; // no tick any more: the writer rings when done
            return Turn.IDLE;
        }
        writerJobs.dropCompletion(); // a halted or failed group's completion is dropped: nothing of it leaves
        stopped.countDown();
        return Turn.GONE;
    }

    private Replica replica() {
        return driver.replica();
    }

    private void publish() {
        status = driver.status();
        refusedMessages = driver.refusedMessages();
        membership = driver.replica().membership().applied();
        standing.follow(driver.replica());
    }

    private void fail(String reason, Throwable cause) {
        driver.fail(failed -> {
            status = failed;
            LOG.error("group {}: {}", group, reason, cause);
        });
        publish();
    }

    public long droppedInputs() {
        return inboxes.droppedPeerMessages() + refusedMessages;
    }

    /** Peer messages accepted into the peer queue so far. */
    SentKinds sentKinds() {
        return sentKinds;
    }

    public long peerMessagesQueued() {
        return inboxes.peerMessagesQueued();
    }

    /** Client-side inputs answered BUSY because the client queue was full. */
    public long clientInputsBusy() {
        return inboxes.clientInputsBusy();
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
