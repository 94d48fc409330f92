package io.synod.engine;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.ClientRequest;
import io.synod.core.paxos.Coding;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.DurableState;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.QuorumPolicy;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.ReadyLoop;
import io.synod.core.paxos.Replica;
import io.synod.core.paxos.Role;
import io.synod.core.paxos.StateMachine;
import io.synod.leases.ReadGate;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * One group's replica on one server, sans I/O: the runner feeds it inputs ({@link #step}, {@link #tick},
 * {@link #onElection}) with the time passed in, then asks for a pass ({@link #ready}); the pass drives the
 * core {@link Replica} through core's {@link ReadyLoop} (the same loop the simulator drives) and yields
 * outputs: peer messages, storage and election requests ({@link DriverOutput}), answers to clients (each to
 * its request's {@link Responder}), and at most one Ready to persist ({@link #persistRequest()}), whose
 * completion comes back through {@link #persisted}. The Ready contract holds: nothing that depends on an
 * entry leaves before the fsync that covers it; only the leader's Accepts leave before its own fsync.
 *
 * <p>The concerns beside the replica are handlers, each in its own file: {@link Waiters}, the lease's
 * {@link ReadGate}, {@link HolderReadWait}, {@link StaleReads}, {@link WatchHub}, {@link Repair},
 * {@link CodingChanges}, {@link SessionExpiryDriver} and {@link HandOver}. Not thread-safe: one caller at a
 * time (the runner's thread); no clock, thread, lock, network or disk is touched here (a forbiddenapis
 * build check holds the package to that).
 */
public final class GroupDriver {
    /** How long a stopping leader's hand-over may take ({@link HandOver}); the runner waits at most this long. */
    public static final long HAND_OVER_BOUND_NANOS = HandOver.BOUND_NANOS;

    /** What the runner read from disk before the driver starts: the log's state, and whether it needs repair. */
    public record Recovered(DurableState state, Ballot repairAbove, long repairThroughSlot) {}

    private final int group;
    private final GroupDriverConfig config;
    private final Replica replica;
    private final ReadyLoop readyLoop;
    private final StateMachine localState;
    private final DriverOutput out;
    private final DriverMetrics metrics;
    private final ReadGate leaseGate;
    private final Waiters waiters;
    /** Quorum-lease reads this replica holds but could not answer yet, waiting up to two heartbeats. */
    private final HolderReadWait<DriverInput.Client> holderWait;
    private final StaleReads staleReads;
    /** The leader's session expiry timer (key-value machines only), or null. */
    private final SessionExpiryDriver expiry;
    /** Watch delivery from the key-value machine's event log, or null. */
    private final WatchHub watches;
    private final CodingChanges codingChanges;
    private final MembershipAdmin membershipAdmin;
    private final HandOver handOver;
    /** A hand-over asked for by {@link #requestMove()}: it ends in a resignation, then is forgotten. */
    private boolean moving;
    private final Repair repair;
    /** The time passed in with the call being handled. */
    private long now;
    private Ready persistRequest;
    /** A completion released after-work that the pass following it in the same turn runs ({@link #persistedBeforePass}). */
    private boolean afterPassDue;
    private int state;
    private boolean joinedElection;
    private Role lastRole = Role.FOLLOWER;
    private long refusedMessages;
    /** The replica's divergence count last reported (each divergent slot is logged once). */
    private long divergences;

    /**
     * A driver for the replica incarnation that starts from {@code recovered}; {@code kv} is null for a state
     * machine that is not a key-value one (no watches, no session expiry).
     */
    public GroupDriver(GroupDriverConfig config, Recovered recovered, StateMachine stateMachine, KvState kv,
            DriverOutput out, long nowNanos) {
        this.group = config.group();
        this.config = config;
        this.out = out;
        this.metrics = config.metrics();
        this.localState = stateMachine;
        this.now = nowNanos;
        this.leaseGate = config.lease().newGate();
        this.holderWait = new HolderReadWait<>(2 * config.replica().heartbeatIntervalNanos());
        this.waiters = new Waiters(group, config.maxWaiters(), metrics);
        QuorumPolicy quorum = config.controls().quorum() != null ? config.controls().quorum()
                : config.coding().enabled() ? config.coding().quorum() : QuorumPolicy.MAJORITY;
        this.replica = new Replica(config.replica(), recovered.state(), stateMachine, quorum, leaseGate, config.coding(),
                config.membership(), nowNanos);
        // The replica hands committed entries out in its Readys; the loop applies them with the application side
        // (the Applier: key-value semantics and the at-most-once table), whose answers reach the Waiters.
        this.readyLoop = new ReadyLoop(replica, replica.applier(), new Sink());
        this.staleReads = new StaleReads(group, replica, stateMachine, metrics);
        out.log(DriverLog.Level.INFO, "group " + group + ": starting at applied slot " + replica.appliedSlot()
                + " (snapshot at " + replica.snapshotSlot() + ")");
        this.repair = new Repair(group, recovered.repairAbove(), recovered.repairThroughSlot(),
                config.replica().maxInFlightSlots(), out);
        this.expiry = kv == null ? null : new SessionExpiryDriver(replica.nodeId(), kv::liveSessions);
        this.watches = kv == null ? null : new WatchHub(group, kv.watchLog(),
                config.controls().bug() == DriverControls.Bug.WATCH_OUT_OF_ORDER);
        this.codingChanges = new CodingChanges(group);
        this.membershipAdmin = new MembershipAdmin(group);
        this.handOver = new HandOver(group, config.replica().nodeId(), config.replica().clusterSize(),
                config.replica().heartbeatIntervalNanos(), out);
        this.state = repair.repairing() ? ClientFrame.GroupStatus.REPAIRING : ClientFrame.GroupStatus.SERVING;
    }

    /** The runner started: a serving replica stands for election; a repairing one stays out until repaired. */
    public void start() {
        if (state == ClientFrame.GroupStatus.SERVING) {
            joinElection();
        }
    }

    private void joinElection() {
        if (!joinedElection) {
            joinedElection = true;
            out.joinElection();
        }
    }

    // ---- inputs ------------------------------------------------------------------------------------

    /** One input, handled at {@code nowNanos}; its outputs leave with the next {@link #ready}. */
    public void step(DriverInput input, long nowNanos) {
        if (input instanceof DriverInput.Election e) {
            onElection(e.event(), nowNanos);
            return;
        }
        now = nowNanos;
        observeClock();
        if (input instanceof DriverInput.Peer p) {
            onPeerMessage(p.message());
        } else if (input instanceof DriverInput.Client c) {
            propose(c);
        } else if (input instanceof DriverInput.StaleRead r) {
            staleReads.read(r.read(), r.readOnly(), r.responder(), now);
        } else if (input instanceof DriverInput.WatchPoll w) {
            if (watches == null) {
                w.responder().respond(new ClientFrame.Response(w.poll().requestId(), group,
                        ClientFrame.STATUS_NO_GROUP, 0, -1, new byte[0]));
            } else {
                watches.poll(w.poll(), w.responder(), replica, serving(), now);
            }
        } else if (input instanceof DriverInput.CodingChange c) {
            codingChanges.propose(c.change(), c.responder(), replica, serving());
        } else if (input instanceof DriverInput.Membership m) {
            membershipAdmin.handle(m.request(), m.answer(), replica, serving());
        }
    }

    /**
     * An election event (the coordination service's view of who leads), handled at {@code nowNanos}. The one
     * place election events reach the replica.
     */
    public void onElection(ElectionEvent event, long nowNanos) {
        now = nowNanos;
        observeClock();
        replica.onElection(event);
    }

    /** The tick timer fired at {@code nowNanos}: the replica's timers, then the leader's session expiry. */
    public void tick(long nowNanos) {
        now = nowNanos;
        observeClock();
        replica.tick(nowNanos);
        if (expiry != null) {
            for (ClientRequest request : expiry.afterTick(replica, serving(), nowNanos)) {
                replica.propose(request);
            }
        }
    }

    /**
     * Leaders spread: hand this group's leadership over (the end-lease entry, as a graceful stop does, so
     * that no lease gap opens), then resign so that the election picks another node. Ignored while a
     * hand-over is already under way. Once moved, the hand-over is forgotten: the node may lead again.
     */
    public void requestMove() {
        if (!handOver.requested() && replica.role() == Role.LEADER) {
            handOver.request();
            moving = true;
        }
    }

    /**
     * Appends the end-lease entry now, at {@code nowNanos}, without waiting for it or resigning (the simulator's
     * planned hand-over fault, which then cuts the old leader off or elects a successor itself): its slot, or -1
     * when this replica does not lead or its lease has no end-lease entry. Its outputs leave with the next pass.
     */
    public long handOverNow(long nowNanos) {
        now = nowNanos;
        observeClock();
        return replica.handOver();
    }

    /** A graceful stop asks the leader to hand over its lease first ({@link HandOver}); idempotent. */
    public void requestHandOver() {
        moving = false; // a stop ends in leaving the election, not in resigning
        handOver.request();
    }

    private void onPeerMessage(Message m) {
        repair.onPeerMessage(m);
        handOver.onPeerMessage(m);
        try {
            replica.step(m);
        } catch (IllegalArgumentException e) {
            // The replica refuses a message it cannot take (wrong receiver, unknown sender) before
            // changing any state: drop it. An invariant failure (IllegalStateException) still stops the group.
            refusedMessages++;
            out.log(DriverLog.Level.WARN, "group " + group + ": dropping a message the replica refused: " + e.getMessage());
        }
    }

    /**
     * Hands the replica the lease's clocks before an input, so its lease is judged by the time the input
     * is handled (a paused process must not judge its lease by a reading from before the pause).
     */
    private void observeClock() {
        if (config.lease().enabled()) {
            replica.observeClock(config.leaseClock().read(now));
        }
    }

    private void propose(DriverInput.Client c) {
        ClientFrame.Command cmd = c.command();
        Command command;
        try {
            command = new Command(cmd.clientId(), cmd.sequence(), cmd.payload());
            if (command.isNoop()) {
                throw new IllegalArgumentException("client id 0 is reserved");
            }
        } catch (IllegalArgumentException e) {
            c.responder().respond(new ClientFrame.Response(cmd.requestId(), group, ClientReply.Status.REJECTED.ordinal(),
                    0, replica.leaderHint(), String.valueOf(e.getMessage()).getBytes(StandardCharsets.UTF_8)));
            return;
        }
        if (waiters.full()) {
            c.responder().respond(new ClientFrame.Response(cmd.requestId(), group, ClientReply.Status.BUSY.ordinal(), 0,
                    replica.leaderHint(), new byte[0]));
            return;
        }
        // The answer comes in a later Ready, so the waiter is registered after proposing, knowing the path.
        leaseGate.begin((cmd.flags() & ClientFrame.FLAG_THROUGH_LOG) != 0);
        replica.propose(new ClientRequest(command));
        boolean byLease = leaseGate.servedLocally();
        boolean read = byLease || (config.lease().enabled() && c.readOnly());
        boolean follower = replica.role() != Role.LEADER;
        long holders = read && !byLease && follower && config.lease().followerReads() ? leaseGate.holders(cmd.payload())
                : -1;
        waiters.add(cmd.clientId(), cmd.sequence(), new Waiters.Waiter(cmd.requestId(), c.responder(), c.receivedNanos(),
                byLease ? ClientFrame.SERVED_LEASE : ClientFrame.SERVED_LOG, read,
                byLease && follower, holders, holders >= 0 ? c : null));
    }

    // ---- the pass ----------------------------------------------------------------------------------

    /**
     * One pass at {@code nowNanos}, after a batch of inputs: the hand-over's step, the waiting holder reads
     * asked again, then Readys until the replica has none or one must be persisted first
     * ({@link #persistRequest()}). The pass's after-work (apply batch, parked reads, watches, repair, status)
     * runs once no persistence is outstanding.
     */
    public void ready(long nowNanos) {
        now = nowNanos;
        handOver.step(replica, nowNanos);
        if (moving && handOver.done()) {
            moving = false;
            handOver.reset();
            if (joinedElection && replica.role() == Role.LEADER) {
                out.resign();
            }
        }
        if (!holderWait.isEmpty()) {
            for (DriverInput.Client c : holderWait.takeAll()) {
                observeClock();
                if (config.controls().bug() == DriverControls.Bug.HOLDER_READ_EARLY) {
                    answerFromLocalState(c);
                } else {
                    propose(c);
                }
            }
        }
        if (afterPassDue && replica.hasReady()) {
            // What the completion released is committed before this pass takes a Ready that may need its own fsync
            // (the after-work runs only while no persistence is outstanding, as it would have in persisted()).
            afterPass();
        }
        readyLoop.drive();
        if (persistRequest == null) {
            afterPass();
        }
    }

    /**
     * The negative control {@link DriverControls.Bug#HOLDER_READ_EARLY}: a waiting holder read is answered from the
     * local state without asking the lease again, although the write it waited for may not have applied here.
     */
    private void answerFromLocalState(DriverInput.Client c) {
        ClientFrame.Command cmd = c.command();
        c.responder().respond(new ClientFrame.Response(cmd.requestId(), group, ClientReply.Status.OK.ordinal(),
                replica.appliedSlot(), replica.leaderHint(), localState.read(cmd.payload()), ClientFrame.SERVED_LEASE));
    }

    /** The Ready the runner must make durable (write + fsync) before this pass goes on, or null. */
    public Ready persistRequest() {
        return persistRequest;
    }

    /** The runner made {@code ready} durable at {@code nowNanos}: its messages and replies leave, the pass goes on. */
    public void persisted(Ready ready, long nowNanos) {
        persisted(ready, nowNanos, false);
    }

    /**
     * As {@link #persisted(Ready, long)}, for a runner that calls {@link #ready} next in the same turn: the
     * after-work this completion releases then runs once, in that pass, instead of once here and once more there
     * (a turn that only completes a persist otherwise ran it twice, 4 times per write with 4 groups on a worker).
     */
    public void persistedBeforePass(Ready ready, long nowNanos) {
        persisted(ready, nowNanos, true);
    }

    private void persisted(Ready ready, long nowNanos, boolean passFollows) {
        if (ready != persistRequest) {
            throw new IllegalArgumentException("group " + group + ": persisted() must be given the requested Ready");
        }
        now = nowNanos;
        observeClock(); // what the completed Ready releases is judged by the time its fsync ended
        persistRequest = null;
        readyLoop.persisted(ready);
        if (persistRequest == null) {
            if (passFollows) {
                afterPassDue = true;
            } else {
                afterPass();
            }
        }
    }

    private void afterPass() {
        afterPassDue = false;
        // One batch per pass: the data changes, applied slot and session records of every command this
        // pass applied (all of them, or after a crash none).
        out.commitApplied();
        staleReads.retryParked(now);
        if (watches != null) {
            watches.afterPass(replica, serving(), now);
        }
        Role role = replica.role();
        if (role == Role.LEADER && lastRole != Role.LEADER) {
            metrics.leaderChange();
            out.log(DriverLog.Level.INFO, "group " + group + ": leading with ballot " + replica.ownBallot() + " from slot "
                    + replica.commitSlot());
        }
        lastRole = role;
        if (repair.finishedAfter(replica)) {
            out.finishRepair();
            state = ClientFrame.GroupStatus.SERVING;
            joinElection();
        }
        if (replica.defence().divergences() != divergences) { // defence in depth: log each divergent slot once
            out.log(DriverLog.Level.ERROR, "group " + group + ": " + replica.defence().lastDivergence());
            divergences = replica.defence().divergences();
        }
        metrics.afterPass(Math.max(0, replica.lastSlot() - replica.appliedSlot()), replica.commitSlot(), replica.role(),
                replica.acceptRetransmits(), divergences, replica.defence().refusedBallots());
    }

    /** The runtime's side of core's {@link ReadyLoop}: persistence is a request the runner completes. */
    private final class Sink implements ReadyLoop.Sink {
        /** The negative control {@link DriverControls.Bug#SEND_BEFORE_FSYNC}: the Ready whose output already left. */
        private Ready sentEarly;

        @Override
        public void taken(Ready ready) {
            out.readyTaken(ready);
            if (!ready.committedEntries().isEmpty()) {
                metrics.applied(ready.committedEntries().size());
            }
            codingChanges.applied(ready.committedEntries(), replica.appliedSlot());
        }

        @Override
        public boolean persist(Ready ready) {
            DriverControls.Bug bug = config.controls().bug();
            if (bug == DriverControls.Bug.SEND_BEFORE_FSYNC) {
                deliver(ready);
                sentEarly = ready;
            } else if (bug == DriverControls.Bug.REPLY_BEFORE_FSYNC && replica.role() == Role.LEADER) {
                waiters.answerWritten(ready.entries(), replica.nodeId(), now);
            }
            persistRequest = ready;
            return false;
        }

        @Override
        public void deliver(Ready ready) {
            if (ready == sentEarly) {
                sentEarly = null;
                return;
            }
            ReadyLoop.Sink.super.deliver(ready);
        }

        @Override
        public void compactThrough(long slot) {
            out.compactThrough(slot);
        }

        @Override
        public void send(Message message) {
            if (repair.suppresses(message)) {
                return; // A damaged log must not vote in phase 1.
            }
            if (message instanceof Message.ShardRequest) {
                metrics.recoveryRequest();
            }
            out.send(message);
        }

        @Override
        public void reply(ClientReply reply) {
            waiters.reply(reply, holderWait, replica.nodeId(), replica.role(), now);
        }

        @Override
        public void resign() {
            if (joinedElection) {
                out.resign();
            }
        }
    }

    // ---- failure and status ------------------------------------------------------------------------

    /**
     * The group failed (storage or an invariant): its FAILED status goes to {@code publish} first (so a client
     * told there is no group here finds the group failed), then the election is left and every waiting request
     * is answered.
     */
    public void fail(Consumer<ClientFrame.GroupStatus> publish) {
        state = ClientFrame.GroupStatus.FAILED;
        publish.accept(status());
        if (joinedElection) {
            out.leaveElection();
        }
        waiters.failAll();
        for (DriverInput.Client c : holderWait.takeAll()) {
            c.responder().respond(new ClientFrame.Response(c.command().requestId(), group,
                    ClientFrame.STATUS_NO_GROUP, 0, -1, new byte[0]));
        }
        if (watches != null) {
            watches.failAll();
        }
        codingChanges.failAll();
    }

    private boolean serving() {
        return state == ClientFrame.GroupStatus.SERVING;
    }

    /**
     * The group's state now (role, epoch, leader, slots, serving/repairing/failed), with the lease mode it runs and
     * the coding in force at its applied slot (a coding change moves it; the spec in ZooKeeper keeps the first).
     */
    public ClientFrame.GroupStatus status() {
        Ballot b = replica.promised();
        Coding coding = replica.coding();
        String lease = config.lease().name();
        return new ClientFrame.GroupStatus(group, replica.role().ordinal(), b.epoch(),
                replica.role() == Role.LEADER ? replica.nodeId() : replica.leaderHint(), replica.commitSlot(),
                replica.appliedSlot(), replica.snapshotSlot(), state, lease, coding.enabled()
                        ? new ClientFrame.CodingStatus(coding.nodes(), coding.failures(), coding.dataShards(),
                                coding.thresholdBytes())
                        : ClientFrame.CodingStatus.OFF);
    }

    public int group() {
        return group;
    }

    /** Whether the election was joined (and not left by a failure's request). */
    public boolean joinedElection() {
        return joinedElection;
    }

    /** Whether the hand-over a graceful stop asked for is over (done, not needed, or timed out). */
    public boolean handOverDone() {
        return handOver.done();
    }

    /** Peer messages the replica refused (wrong receiver, unknown sender) and the driver dropped. */
    public long refusedMessages() {
        return refusedMessages;
    }

    /**
     * The replica, for reading its state (tests, the runner's views, the simulator's checks and faults); its inputs
     * go through this driver.
     */
    public Replica replica() {
        return replica;
    }

    /** Session expiries this incarnation's leader timer proposed (0 for a state machine that is not a key-value one). */
    public long expiriesProposed() {
        return expiry == null ? 0 : expiry.proposed();
    }

    int waiting() {
        return waiters.count();
    }
}
