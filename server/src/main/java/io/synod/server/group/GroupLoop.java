package io.synod.server.group;

import io.synod.coordination.ElectionService;
import io.synod.core.paxos.CodedValue;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.StateMachine;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.RoutedCommand;
import io.synod.engine.DriverInput;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner of one group's {@link GroupDriver}: it owns what the driver may not touch, and nothing else:
 * the thread, the bounded inboxes, the real clock, the storage ({@link GroupStorage}, fsync; the state
 * machine's per-pass batch), the network send and the election service. Every input (peer message, client
 * command, election event, clock tick) is queued to the thread, so the driver, its replica and its storage
 * are never touched concurrently and no state is shared with other groups. Peer messages and client-side
 * inputs wait in two separate bounded queues, and each batch drains the peer queue first: a client flood
 * fills only the client queue (its surplus is answered BUSY at once) and never costs a peer message, which
 * the group's progress depends on (a dropped Accept or Promise is only recovered by a retransmission
 * interval later). Inputs are drained in bounded batches; each batch ends in one pass
 * ({@link GroupDriver#ready}), which gives group commit (one fsync for every entry accepted in the batch).
 * The interface to the driver is narrow: {@code step}, {@code tick}, {@code ready}, the persist request and
 * its completion.
 */
public final class GroupLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupLoop.class);

    /** Inputs drained before the loop drives the replica (bounds the batch, and so the fsync). */
    static final int MAX_INPUTS_PER_BATCH = 512;

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
    /** Peer messages: drained first in every batch. */
    private final BlockingQueue<DriverInput> peerInbox;
    /** Client commands, reads, watch polls, coding changes: what a client may flood. */
    private final BlockingQueue<DriverInput> clientInbox;
    /** Rung after every enqueue (capacity 1): the loop waits on it when both inboxes are empty. */
    private final BlockingQueue<Boolean> doorbell = new ArrayBlockingQueue<>(1);
    private final BlockingQueue<ElectionEvent> control = new ArrayBlockingQueue<>(1024);
    private final Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CountDownLatch handedOver = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile boolean halted;
    private volatile boolean handOverRequested;
    private volatile boolean moveRequested;
    private volatile boolean closed;
    private volatile ClientFrame.GroupStatus status;
    private final AtomicLong droppedInputs = new AtomicLong();
    private final AtomicLong peerMessagesQueued = new AtomicLong();
    private final AtomicLong clientInputsBusy = new AtomicLong();
    private volatile long refusedMessages;
    private final LongSupplier clock;

    /**
     * A group's runner: {@code stateMachine} is the replica's state machine ({@code resource} closes it);
     * {@code network} sends peer messages; {@code election} may be null (tests: elections are fed by hand);
     * {@code inboxCapacity} bounds the peer queue and, separately, the client queue.
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
        this.clock = clock;
        this.group = config.group();
        this.storage = storage;
        this.stateMachine = resource;
        this.network = network;
        this.election = election;
        this.metrics = config.metrics();
        this.tickNanos = tickNanos;
        this.peerInbox = new ArrayBlockingQueue<>(inboxCapacity);
        this.clientInbox = new ArrayBlockingQueue<>(inboxCapacity);
        this.durableMachine = stateMachine instanceof RocksKvStateMachine r ? r : null;
        if (durableMachine != null) {
            chooseStartingState(durableMachine, storage, group);
        }
        this.driver = new GroupDriver(config, new GroupDriver.Recovered(storage.durableState(), storage.repairAbove(),
                storage.repairThroughSlot()), stateMachine, durableMachine == null ? null
                : KvState.of(durableMachine::liveSessions, durableMachine.watchLog()),
                new Output(), clock.getAsLong());
        if (durableMachine != null) {
            durableMachine.commitApplied(); // Whatever starting the replica staged (nothing, normally).
        }
        publish();
        this.thread = new Thread(this::run, "synod-group-" + group);
    }

    /**
     * Whether RocksDB's applied state may be started from, or the snapshot must be (the replica then restores it).
     * Storage work before the driver starts.
     */
    private static void chooseStartingState(RocksKvStateMachine machine, GroupStorage storage, int group) {
        if (storage.repairAbove() != null) {
            // The damaged log may not hold the applied values between the snapshot and RocksDB's
            // slot: start from the snapshot instead (the replica restores it into RocksDB).
            machine.ignoreDurableState();
        } else if (machine.unresolvedKeys() > 0) {
            Map<Long, CodedValue> coded = new HashMap<>();
            for (Entry e : storage.durableState().entries()) {
                if (e.coded() != null) {
                    coded.put(e.slot(), e.coded());
                }
            }
            if (!machine.unresolvedHeldBy(coded::get)) {
                // Deferred rebuild: RocksDB holds a key applied from a log entry this log no longer has (written
                // before that pass's fsync, then a crash). Its bytes cannot be rebuilt from here: start from the
                // snapshot (full values) and re-learn the rest, as a repair does.
                LOG.warn("group {}: an unresolved key's coded entry is missing from the log; starting from the snapshot",
                        group);
                machine.ignoreDurableState();
            }
        }
    }

    public void start() {
        // A repairing replica stays out of elections: it must not lead (nor vote) on a damaged log. Joined
        // before the thread starts, so the driver is only ever touched by one thread at a time.
        driver.start();
        thread.start();
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

    /** A STALE read: answered on this loop's thread from the local state at the applied slot, leader or not. */
    public void onStaleRead(ClientFrame.StaleRead read, RoutedCommand routed, Responder responder) {
        offerOrRefuse(new DriverInput.StaleRead(read, routed.readOnly(), responder), read.requestId(), responder, true);
    }

    /** A watch poll: held on this loop's thread until events arrive or its wait ends. */
    public void onWatchPoll(ClientFrame.WatchPoll poll, Responder responder) {
        offerOrRefuse(new DriverInput.WatchPoll(poll, responder), poll.requestId(), responder, durableMachine != null);
    }

    /** An admin coding change: proposed on this loop's thread if this replica leads. */
    public void onCodingChange(ClientFrame.CodingChange change, Responder responder) {
        offerOrRefuse(new DriverInput.CodingChange(change, responder), change.requestId(), responder, true);
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

    /** Wakes the loop if it waits (a no-op when it is already rung). */
    private void ring() {
        doorbell.offer(Boolean.TRUE);
    }

    /**
     * The next batch: peer messages first, then client inputs in the room left; waits for the doorbell
     * (at most {@code waitNanos}) only when both queues are empty.
     */
    private void takeBatch(List<DriverInput> batch, long waitNanos) throws InterruptedException {
        // Cleared before draining: an input queued before the clear is drained now, and one queued after
        // it rings again, so the wait below never sleeps on a queued input (nor wakes for a drained one).
        doorbell.clear();
        drainBoth(batch);
        if (batch.isEmpty() && waitNanos > 0 && doorbell.poll(waitNanos, TimeUnit.NANOSECONDS) != null) {
            drainBoth(batch);
        }
    }

    private void drainBoth(List<DriverInput> batch) {
        peerInbox.drainTo(batch, MAX_INPUTS_PER_BATCH);
        clientInbox.drainTo(batch, MAX_INPUTS_PER_BATCH - batch.size());
    }

    public ClientFrame.GroupStatus status() {
        return status;
    }

    public int group() {
        return group;
    }

    // ---- the loop -----------------------------------------------------------------------------------

    private void run() {
        long nextTick = clock.getAsLong() + tickNanos;
        List<DriverInput> batch = new ArrayList<>(MAX_INPUTS_PER_BATCH);
        try {
            while (running) {
                takeBatch(batch, nextTick - clock.getAsLong());
                ElectionEvent event;
                while ((event = control.poll()) != null) {
                    driver.onElection(event, clock.getAsLong());
                }
                for (DriverInput input : batch) {
                    driver.step(input, clock.getAsLong());
                }
                batch.clear();
                long now = clock.getAsLong();
                if (now - nextTick >= 0) {
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
                pass(now);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (StorageFailure e) {
            fail("storage failed, this replica stops (no retry after a failed fsync): " + e.getMessage(), e);
        } catch (RuntimeException e) {
            fail("replica failed: " + e, e);
        } finally {
            handedOver.countDown(); // Nobody may wait for a hand-over of a stopped loop.
            stopped.countDown();
        }
    }

    /** One pass: the driver's Readys, each persisted (write + fsync) here before the pass goes on. */
    private void pass(long now) {
        driver.ready(now);
        Ready ready;
        while ((ready = driver.persistRequest()) != null) {
            long start = clock.getAsLong();
            storage.persist(ready);
            long end = clock.getAsLong();
            metrics.recordPersist(end - start, ready.entries().size());
            driver.persisted(ready, end);
        }
        metrics.logBytes(storage.log().sizeBytes());
        publish();
        if (driver.handOverDone()) {
            handedOver.countDown();
        }
    }

    private void publish() {
        status = driver.status();
        refusedMessages = driver.refusedMessages();
    }

    /** The runner's side of the driver's outputs: the network, the disk and the election service. */
    private final class Output implements DriverOutput {
        @Override
        public void send(Message message) {
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
            storage.compactThrough(slot);
        }

        @Override
        public void commitApplied() {
            if (durableMachine != null) {
                durableMachine.commitApplied();
            }
        }

        @Override
        public void finishRepair() {
            storage.finishRepair();
        }

        @Override
        public void joinElection() {
            if (election != null) {
                election.join(group, (g, event) -> onElection(event));
            }
        }

        @Override
        public void resign() {
            if (election != null) {
                election.resign(group);
            }
        }

        @Override
        public void leaveElection() {
            if (election == null) {
                return;
            }
            try {
                election.leave(group);
            } catch (RuntimeException e) {
                LOG.warn("group {}: leaving the election failed: {}", group, e.toString());
            }
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
    public long peerMessagesQueued() {
        return peerMessagesQueued.get();
    }

    /** Client-side inputs answered BUSY because the client queue was full. */
    public long clientInputsBusy() {
        return clientInputsBusy.get();
    }

    /** Stops the loop without telling the election (a crash, as far as ZooKeeper can tell); idempotent. */
    public void halt() {
        halted = true;
        running = false;
        ring();
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
     * entry and stops serving lease reads (the driver's hand-over); {@link #close()} waits for it, bounded,
     * before leaving the election. Call it on every group first so they hand over in parallel. Not after
     * {@link #halt()}.
     */
    public void beginHandOver() {
        if (!halted && running && thread.getState() != Thread.State.NEW) {
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
        if (!halted && running && !closed && thread.getState() != Thread.State.NEW) {
            moveRequested = true;
            ring();
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
            handedOver.await(GroupDriver.HAND_OVER_BOUND_NANOS + TimeUnit.SECONDS.toNanos(5), TimeUnit.NANOSECONDS);
        }
        running = false;
        ring();
        if (thread.getState() != Thread.State.NEW && !stopped.await(5, TimeUnit.SECONDS)) {
            thread.interrupt();
            stopped.await(5, TimeUnit.SECONDS);
        }
        if (driver.joinedElection() && election != null && status.state() != ClientFrame.GroupStatus.FAILED && !halted) {
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
