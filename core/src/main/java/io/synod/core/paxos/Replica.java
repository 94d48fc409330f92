package io.synod.core.paxos;

import io.synod.core.util.Check;
import io.synod.protocol.ElectionEvent;

/**
 * One Multi-Paxos replica of one group, as a pure state machine in the shape of etcd-io/raft:
 * inputs are {@link #step(Message)}, {@link #tick(long)}, {@link #propose(ClientRequest)} and
 * {@link #onElection(ElectionEvent)}; the output is a {@link Ready} (what to persist, then what to
 * send and answer), acknowledged with {@link #advance(Ready)}. It never reads a clock, draws a
 * random number, sleeps or does I/O, so the runtime and the simulator drive the same code.
 *
 * <p>Every replica is an acceptor; the one the election oracle names runs phase 1 with ballot
 * (epoch, self) and, once a read quorum of durable promises arrived, leads. The rules, from
 * Lamport's "Paxos Made Simple" (2001) and its Multi-Paxos section, as adapted by PaxStore (Tan et
 * al., 2014):
 * <ul>
 *   <li>An acceptor persists the highest ballot it promised and rejects Prepare and Accept below it
 *       (§2.2, "P1a"). Replies leave only after the fsync (the {@link Ready} contract).</li>
 *   <li>A new leader prepares every slot past its commit point, and for each slot re-proposes the
 *       value accepted in the highest ballot among the promises, filling gaps with no-ops (§2.2 and
 *       §3, "Implementing a State Machine"), before it serves anything.</li>
 *   <li>A slot is chosen when a write quorum accepted it in one ballot; the commit point rides on
 *       the next Accept or heartbeat. A follower takes a slot as chosen only if its entry there was
 *       accepted in the ballot of the leader that reports the commit point (older-ballot entries
 *       may be values that were never chosen).</li>
 *   <li>Seeing a higher ballot, a leader steps down; a candidate whose phase 1 cannot finish gives
 *       up (resigns) and never serves. The oracle is a hint: it cannot make two leaders commit.</li>
 * </ul>
 * Extension points. Leases plug in through {@link LeaseHooks} (local reads, deferred commit, acceptors
 * that must accept a slot before it commits). Per-slot value coding (RS-Paxos, Mu et al. 2014, §4)
 * is a {@link Coding}: {@link QuorumPolicy#isWriteQuorum} sees the entry, so a slot coded into X
 * shards requires {@code Q_W(X)} acceptances ({@link Coding#quorum()}); Accept messages are built
 * per acceptor in {@link Leader}, acceptor i receiving shard i; {@link Phase1} collects the
 * promised shards and re-proposes only values it can rebuild; {@link Recovery} rebuilds committed
 * values a replica must apply but holds only a shard of. The codec is {@code io.synod.core.erasure}.
 *
 * <p>This class is the coordinator: it checks inputs, dispatches them to the roles ({@link Acceptor},
 * {@link Phase1}, {@link Leader}, {@link Learner}, {@link CatchUp}, {@link Clients}), to the client
 * requests' admission ({@link RequestAdmission}) and to the role transitions (elected, step down, follow a
 * leader: {@link RoleTransitions}), and assembles the {@link Ready}. A runtime drives it with {@link ReadyLoop}.
 *
 * <p>Not thread-safe: one replica is driven by one event loop.
 */
public final class Replica {
    private final ReplicaContext ctx;
    private final Acceptor acceptor;
    private final Learner learner;
    private final CatchUp catchUp;
    private final SnapshotSender snapshots;
    private final Leader leader;
    private final Phase1 phase1;
    private final LeaseHooks leases;
    private final QuorumPolicy quorum;
    private final QuorumContact contact;
    private final Applier applier;
    private final RequestAdmission admission;
    private final RoleTransitions roles;
    private Ready outstanding;

    /**
     * Builds a replica from what its disk holds.
     *
     * @param nowNanos the replica's clock at start (only differences between readings matter)
     */
    public Replica(ReplicaConfig config, DurableState durable, StateMachine stateMachine, QuorumPolicy quorum,
            LeaseHooks leases, long nowNanos) {
        this(config, durable, stateMachine, quorum, leases, Coding.OFF, nowNanos);
    }

    /**
     * Builds a replica of a group whose values are coded by {@code coding} (RS-Paxos); {@code quorum}
     * is normally {@code coding.quorum()}.
     */
    public Replica(ReplicaConfig config, DurableState durable, StateMachine stateMachine, QuorumPolicy quorum,
            LeaseHooks leases, Coding coding, long nowNanos) {
        this(config, durable, stateMachine, quorum, leases, coding, GroupMembership.allVoters(config.clusterSize()), nowNanos);
    }

    /** Builds a replica whose group starts with {@code membership} (docs/membership.md) instead of every id voting. */
    public Replica(ReplicaConfig config, DurableState durable, StateMachine stateMachine, QuorumPolicy quorum,
            LeaseHooks leases, Coding coding, GroupMembership membership, long nowNanos) {
        Check.argument(membership != null && membership.universe() == config.clusterSize(),
                "the initial membership must name ids 0..%d", config.clusterSize() - 1);
        Check.argument(config != null && durable != null && stateMachine != null && quorum != null && leases != null
                && coding != null, "replica needs a config, durable state, state machine, quorum policy, lease hooks and coding");
        Check.argument(!coding.enabled() || coding.nodes() <= config.clusterSize(), // ids past the code: full copies (M9)
                "coding %s is for %d nodes, the group has ids 0..%d", coding, coding.nodes(), config.clusterSize() - 1);
        this.ctx = new ReplicaContext(config, coding, membership, nowNanos);
        this.leases = leases;
        this.quorum = quorum;
        this.contact = new QuorumContact(ctx);
        ctx.leases = leases;
        ClientSessions sessions = new ClientSessions(config.maxClientSessions());
        this.acceptor = new Acceptor(ctx, durable);
        Clients clients = new Clients(ctx, sessions);
        this.applier = new Applier(ctx, stateMachine, sessions);
        this.learner = new Learner(ctx, acceptor, stateMachine, applier, sessions, clients);
        this.snapshots = new SnapshotSender(ctx, acceptor);
        this.catchUp = new CatchUp(ctx, acceptor, learner, snapshots);
        this.leader = new Leader(ctx, acceptor, learner, clients, catchUp, quorum, leases);
        this.phase1 = new Phase1(ctx, acceptor, learner, leader, clients, quorum);
        this.admission = new RequestAdmission(ctx, clients, learner, applier, leader, leases);
        this.roles = new RoleTransitions(ctx, acceptor, learner, clients, leader, phase1, leases);
        leases.attach(new ReplicaLeaseView(ctx, acceptor, learner, leader, applier, quorum));
    }

    // =====================================================================================
    // Inputs
    // =====================================================================================

    /** Advances this replica's clock; drives heartbeats, retransmissions and the phase 1 timeout. */
    public void tick(long nowNanos) {
        // A clock that steps back is treated as standing still: timers only move forward.
        if (nowNanos > ctx.nowNanos) {
            ctx.nowNanos = nowNanos;
        }
        learner.tick();
        if (ctx.role == Role.CANDIDATE) {
            if (phase1.timedOut()) {
                // No read quorum answered in time: never serve on a phase 1 that did not finish.
                roles.stepDown(ctx.leaderHint);
                ctx.out.resign();
                return;
            }
            phase1.retransmitIfDue();
        } else if (ctx.role == Role.LEADER) {
            GroupMembership voting = leader.committedMembership();
            if (contact.lostQuorum(quorum.phase1Quorum(voting.voterCount()), voting.voters())) {
                // CheckQuorum: cut off from a quorum, this leader cannot commit, and the election
                // service may go on naming it; stepping down and resigning lets someone else lead.
                roles.stepDown(-1);
                ctx.out.resign();
                return;
            }
            leader.tick();
        }
    }

    /**
     * The runtime's clocks, for the lease policy: call before an input (a tick, a message, a client
     * request) whenever a lease policy runs, so a lease is judged by the time the input is handled
     * (a process that was paused must not judge a lease by a reading from before the pause). Changes
     * nothing else: timers run on {@link #tick(long)}.
     */
    public void observeClock(ClockReading reading) {
        Check.argument(reading != null, "clock reading must not be null");
        ctx.clock = reading;
        leases.onClock(reading);
    }

    /** Handles a message from another replica. */
    public void step(Message message) {
        Check.argument(message != null, "message must not be null");
        Check.argument(message.to() == ctx.self, "message for node %d delivered to node %d", message.to(), ctx.self);
        Check.argument(message.from() >= 0 && message.from() < ctx.clusterSize && message.from() != ctx.self,
                "message from unknown node %d (cluster of %d)", message.from(), ctx.clusterSize);
        if (!ctx.guard.admits(message.ballot(), acceptor.promised())) {
            return; // A ballot too far beyond the epochs seen in ZooKeeper (ReplicaGuard): changes nothing.
        }
        leases.onMessage(message);
        contact.onMessage(message);
        if (message instanceof Message.Prepare m) {
            roles.onPrepare(m);
        } else if (message instanceof Message.Promise m) {
            phase1.onPromise(m);
        } else if (message instanceof Message.Nack m) {
            roles.onNack(m);
        } else if (message instanceof Message.Accept m) {
            roles.onAccept(m);
        } else if (message instanceof Message.Accepted m) {
            leader.onAccepted(m);
        } else if (message instanceof Message.Heartbeat m) {
            roles.onHeartbeat(m);
        } else if (message instanceof Message.HeartbeatReply m) {
            catchUp.onPeerApplied(m.from(), m.ballot(), m.appliedSlot());
        } else if (message instanceof Message.InstallSnapshot m) {
            if (learner.onRecoverySnapshotChunk(m)) {
                return; // A snapshot a recovery read fetched from a peer that compacted the slot.
            }
            if (m.ballot().nodeId() != m.from()) {
                phase1.onSnapshotChunk(m); // A promiser answering this candidate's request.
            } else if (roles.admitLeaderMessage(m)) {
                catchUp.onSnapshotChunk(m);
            }
        } else if (message instanceof Message.SnapshotRequest m) {
            // Served for the ballot we promised: a follower of ours, or the candidate we promised.
            if (m.ballot().equals(acceptor.promised())) {
                long slot = snapshots.send(m.from(), m.ballot(), m.lastIncludedSlot(), m.offset());
                catchUp.onSnapshotChunkSent(m.from(), m.ballot(), slot);
            }
        } else if (message instanceof Message.ShardRequest m) {
            learner.onShardRequest(m);
        } else if (message instanceof Message.ShardReply m) {
            learner.onShardReply(m);
        }
    }

    /** Handles what the election service says. */
    public void onElection(ElectionEvent event) {
        Check.argument(event != null, "election event must not be null");
        if (event instanceof ElectionEvent.EpochSeen e) {
            ctx.guard.onEpochSeen(e.epoch());
        } else if (event instanceof ElectionEvent.Elected e) {
            ctx.guard.onEpochSeen(e.epoch());
            roles.onElected(e.epoch());
        } else if (event instanceof ElectionEvent.LeaderIs e) {
            if (e.leaderId() != ctx.self && ctx.role != Role.FOLLOWER) {
                // The oracle says someone else leads (for example our ZooKeeper session was
                // lost): stop at once. Safety does not need this, liveness and clients do.
                roles.stepDown(e.leaderId());
            } else if (ctx.role == Role.FOLLOWER) {
                ctx.leaderHint = e.leaderId();
            }
        }
    }

    /**
     * A planned hand-over: a leader appends its lease policy's end-lease entry
     * ({@link LeaseHooks#endLeaseCommand()}) and returns its slot; once that slot is committed the
     * runtime may give up leadership (its successor finds the entry and need not wait for the lease).
     * Returns -1 if this replica does not lead or its policy has no such entry.
     */
    public long handOver() {
        Command end = ctx.role == Role.LEADER ? leases.endLeaseCommand() : null;
        if (end == null) {
            return -1;
        }
        Check.state(end.isNoop(), "an end-lease entry must be a no-op, got %s", end);
        return leader.append(end);
    }

    /** Handles a client request; the answer comes in a later {@link Ready#replies()}. */
    public void propose(ClientRequest request) {
        Check.argument(request != null, "request must not be null");
        admission.admit(request);
    }

    /**
     * Proposes changing the group's coding to F = {@code failures}, X = {@code dataShards} and
     * {@code thresholdBytes} (N stays: membership is static), as an entry in the log
     * (docs/erasure.md "Coding changes"): slots after it commit with the new coding's quorums once it is
     * chosen, and the leader codes new values with it once it has committed. Only a leader proposes;
     * returns false on any other replica (ask the leader).
     *
     * @throws IllegalArgumentException naming the RS-Paxos rule the values break ({@link Coding#rsPaxos})
     * @throws IllegalStateException if this group runs without coding
     */
    public boolean proposeCodingChange(int failures, int dataShards, int thresholdBytes) {
        return proposeCodingChangeAt(failures, dataShards, thresholdBytes) >= 0;
    }

    /**
     * {@link #proposeCodingChange} returning the slot of the change entry (in this leader's
     * {@link #ownBallot()}), or -1 on a replica that does not lead. The change is in force once the
     * entry applied at that slot is a coding change in that ballot (a runtime answers its admin request then).
     */
    public long proposeCodingChangeAt(int failures, int dataShards, int thresholdBytes) {
        Coding next = ctx.coding.withChange(failures, dataShards, thresholdBytes);
        if (ctx.role != Role.LEADER) {
            return -1;
        }
        return leader.appendCodingChange(next);
    }

    /** GroupMembership changes through this replica (it proposes them while it leads) and its applied membership. */
    public MembershipChanges membership() {
        return new MembershipChanges(ctx, leader, learner, catchUp, contact);
    }

    /** The coding this replica has applied (the constructor's, changed by every coding change applied since). */
    public Coding coding() {
        return ctx.coding;
    }

    // =====================================================================================
    // Output
    // =====================================================================================

    /** Whether {@link #ready()} has something, and no earlier Ready awaits {@link #advance}. */
    public boolean hasReady() {
        return outstanding == null && (!ctx.out.isEmpty() || leader.hasNewProposals() || catchUp.owesCommitPoints());
    }

    /**
     * Takes everything gathered since the last Ready. Persist it, then send its messages and
     * replies, then call {@link #advance(Ready)}; inputs may be stepped in between.
     */
    public Ready ready() {
        Check.state(outstanding == null, "ready() called again before advance() of the previous Ready");
        leader.flushNewProposals();
        catchUp.sendOwedCommitPoints();
        outstanding = ctx.out.take();
        return outstanding;
    }

    /** The application applied {@code ready}'s {@link Ready#committed()} entries, before any other input (once per Ready). */
    public void applied(Ready ready) {
        Check.argument(ready != null && ready == outstanding, "applied() must be given the outstanding Ready");
        learner.applied(ready.committed());
    }

    /** The application side that applies what the Readys hand out (one per replica incarnation). */
    public Applier applier() {
        return applier;
    }

    /** Acknowledges that {@code ready} was persisted and sent. */
    public void advance(Ready ready) {
        Check.argument(ready != null && ready == outstanding, "advance() must be given the outstanding Ready");
        outstanding = null;
        if (ctx.role == Role.CANDIDATE && ready.promised() != null && ready.promised().equals(ctx.ownBallot)) {
            phase1.onOwnPromiseDurable();
        }
        if (ctx.role == Role.LEADER) {
            leader.onOwnEntriesDurable(ready.entries());
        }
    }

    // =====================================================================================
    // Observation (for the runtime's metrics and the simulator's invariant checks)
    // =====================================================================================

    public int nodeId() {
        return ctx.self;
    }

    public Role role() {
        return ctx.role;
    }

    public Ballot promised() {
        return acceptor.promised();
    }

    /** This replica's ballot while it is CANDIDATE or LEADER, else null. */
    public Ballot ownBallot() {
        return ctx.role == Role.FOLLOWER ? null : ctx.ownBallot;
    }

    public int leaderHint() {
        return ctx.leaderHint;
    }

    public long commitSlot() {
        return learner.commitSlot();
    }

    public long appliedSlot() {
        return learner.appliedSlot();
    }

    /** Highest slot holding an accepted entry (0 if none above the snapshot). */
    public long lastSlot() {
        return acceptor.lastSlot();
    }

    public long snapshotSlot() {
        return acceptor.snapshot().lastIncludedSlot();
    }

    /** The application this replica's {@link Applier} applies to (for observation: the simulator compares states). */
    public StateMachine stateMachine() {
        return applier.stateMachine();
    }

    public long nowNanos() {
        return ctx.nowNanos;
    }

    /** Deferred rebuild: starts rebuilding every key applied without its bytes (the simulator, before comparing states). */
    public void resolveDeferred() {
        learner.resolveAll();
    }

    /**
     * Deferred rebuild: whether the keys {@code payload} reads are all resolved here, so a read of the local state
     * (a server's STALE read) may be answered now; if not, their rebuild starts (recovery reads) and the caller
     * asks again after later inputs.
     */
    public boolean resolvedForRead(byte[] payload) {
        return learner.resolvedForRead(payload);
    }

    /** Deferred rebuild: how many slots hold values of keys this replica has not rebuilt yet. */
    public int unresolvedSlots() {
        return learner.appliedState().unresolvedSlots().length;
    }

    /** Reads this replica answered from its own state because its lease policy allowed it. */
    public long localReadsServed() {
        return admission.localReadsServed();
    }

    /** The defence-in-depth counters (refused ballots, divergences) and its switches for negative controls. */
    public ReplicaDefence defence() {
        return new ReplicaDefence(ctx.guard);
    }

    /** Accepts re-sent as leader for want of an acknowledgement in time (per slot and peer; catch-up not counted). */
    public long acceptRetransmits() {
        return leader.acceptRetransmits();
    }

    /** How long an Accept to {@code peer} may go unacknowledged before it is re-sent ({@link RetransmitTimeout}). */
    public long acceptRetransmitTimeoutNanos(int peer) {
        Check.argument(peer >= 0 && peer < ctx.clusterSize, "no node %d in a cluster of %d", peer, ctx.clusterSize);
        return leader.retransmitTimeoutNanos(peer);
    }

    @Override
    public String toString() {
        return "Replica{node=" + ctx.self + ", role=" + ctx.role + ", promised=" + promised() + ", commit=" + commitSlot()
                + ", applied=" + appliedSlot() + ", last=" + lastSlot() + "}";
    }
}
