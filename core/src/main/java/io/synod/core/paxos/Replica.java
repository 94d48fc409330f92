package io.synod.core.paxos;

import io.synod.core.util.Check;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

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
 * plugs in at three seams: {@link QuorumPolicy#isWriteQuorum} sees the entry, so a slot coded into X
 * shards can require {@code Q_W(X)} acceptances; Accept messages are built per acceptor (in
 * {@code sendEntries}), where acceptor i would receive shard i instead of the full command; and phase 1
 * merges promised entries per slot (in {@code mergePhase1}), where shards of the highest ballot would
 * be collected and decoded once X of them arrived. The codec itself is {@code io.synod.core.erasure}.
 *
 * <p>Not thread-safe: one replica is driven by one event loop.
 */
public final class Replica {
    private final ReplicaConfig config;
    private final int self;
    private final int clusterSize;
    private final StateMachine stateMachine;
    private final QuorumPolicy quorum;
    private final LeaseHooks leases;
    private final ClientSessions sessions;

    private long nowNanos;

    // ---- acceptor state (durable: promised, log, snapshot) ----
    private Ballot promised;
    /** Accepted entries, including a retained tail at or below the snapshot for catch-up. */
    private final TreeMap<Long, Entry> log = new TreeMap<>();
    private Snapshot latestSnapshot;

    // ---- learner state (volatile: rebuilt from the snapshot and the leader after a restart) ----
    private long commitSlot;
    private long appliedSlot;

    // ---- role ----
    private Role role = Role.FOLLOWER;
    /** This replica's ballot while CANDIDATE or LEADER. */
    private Ballot ownBallot;
    private int leaderHint = -1;

    // ---- phase 1 (CANDIDATE) ----
    private long phase1FromSlot;
    private long phase1Promisers;
    private boolean phase1SelfPromised;
    private long phase1StartedNanos;
    private long phase1LastPrepareNanos;
    private final TreeMap<Long, Entry> phase1Highest = new TreeMap<>();
    private Snapshot phase1Snapshot;

    // ---- phase 2 (LEADER) ----
    private long nextSlot;
    private final TreeMap<Long, InFlight> inFlight = new TreeMap<>();
    private final ArrayDeque<ClientRequest> pendingProposals = new ArrayDeque<>();
    /** Clients waiting for an answer from this replica: client id -> sequence. */
    private final LinkedHashMap<Long, Long> awaiting = new LinkedHashMap<>();
    private final long[] peerAppliedSlot;
    private final long[] peerLastSentNanos;
    private final long[] peerCatchUpSentThrough;
    private final long[] peerCatchUpDeadlineNanos;

    // ---- output being gathered for the next Ready ----
    private boolean promisedDirty;
    private final LinkedHashMap<Long, Entry> entriesToPersist = new LinkedHashMap<>();
    private Snapshot snapshotToPersist;
    private long compactThroughSlot;
    private final List<Message> messages = new ArrayList<>();
    private final List<Entry> applied = new ArrayList<>();
    private final List<ClientReply> replies = new ArrayList<>();
    private final List<Entry> newProposals = new ArrayList<>();
    private boolean resign;
    private Ready outstanding;

    /** A slot this leader proposed in its ballot and that is not chosen yet. */
    private static final class InFlight {
        final Entry entry;
        long acceptors;
        long lastSentNanos;

        InFlight(Entry entry, long sentNanos) {
            this.entry = entry;
            this.lastSentNanos = sentNanos;
        }
    }

    /**
     * Builds a replica from what its disk holds.
     *
     * @param nowNanos the replica's clock at start (only differences between readings matter)
     */
    public Replica(ReplicaConfig config, DurableState durable, StateMachine stateMachine, QuorumPolicy quorum,
            LeaseHooks leases, long nowNanos) {
        Check.argument(config != null && durable != null && stateMachine != null && quorum != null && leases != null,
                "replica needs a config, durable state, state machine, quorum policy and lease hooks");
        this.config = config;
        this.self = config.nodeId();
        this.clusterSize = config.clusterSize();
        this.stateMachine = stateMachine;
        this.quorum = quorum;
        this.leases = leases;
        this.sessions = new ClientSessions(config.maxClientSessions());
        this.nowNanos = nowNanos;
        this.peerAppliedSlot = new long[clusterSize];
        this.peerLastSentNanos = new long[clusterSize];
        this.peerCatchUpSentThrough = new long[clusterSize];
        this.peerCatchUpDeadlineNanos = new long[clusterSize];

        Ballot durablePromise = durable.promised();
        this.latestSnapshot = durable.snapshot();
        Snapshot snapshot = durable.snapshot();
        stateMachine.restore(snapshot.stateMachine());
        sessions.restore(snapshot.sessions());
        this.commitSlot = snapshot.lastIncludedSlot();
        this.appliedSlot = snapshot.lastIncludedSlot();
        for (Entry entry : durable.entries()) {
            // Accepting in a ballot implies promising it (Paxos Made Simple, §2.2), so a durable
            // entry above the durable promise (the promise write was torn off) raises the promise.
            if (entry.ballot().isAbove(durablePromise)) {
                durablePromise = entry.ballot();
            }
            if (entry.slot() <= snapshot.lastIncludedSlot()) {
                continue; // Chosen and covered by the snapshot.
            }
            Entry previous = log.put(entry.slot(), entry);
            Check.argument(previous == null, "durable state holds two entries for slot %d", entry.slot());
        }
        this.promised = durablePromise;
        this.nextSlot = Math.max(lastSlot(), commitSlot) + 1;
    }

    // =====================================================================================
    // Inputs
    // =====================================================================================

    /** Advances this replica's clock; drives heartbeats, retransmissions and the phase 1 timeout. */
    public void tick(long nowNanos) {
        // A clock that steps back is treated as standing still: timers only move forward.
        if (nowNanos > this.nowNanos) {
            this.nowNanos = nowNanos;
        }
        if (role == Role.CANDIDATE) {
            if (this.nowNanos - phase1StartedNanos >= config.phase1TimeoutNanos()) {
                // No read quorum answered in time: never serve on a phase 1 that did not finish.
                stepDown(leaderHint);
                resign = true;
                return;
            }
            if (this.nowNanos - phase1LastPrepareNanos >= config.retransmitIntervalNanos()) {
                sendPrepares();
            }
        } else if (role == Role.LEADER) {
            retransmitAccepts();
            tryCommit();
            sendHeartbeats();
        }
    }

    /** Handles a message from another replica. */
    public void step(Message message) {
        Check.argument(message != null, "message must not be null");
        Check.argument(message.to() == self, "message for node %d delivered to node %d", message.to(), self);
        Check.argument(message.from() >= 0 && message.from() < clusterSize && message.from() != self,
                "message from unknown node %d (cluster of %d)", message.from(), clusterSize);
        if (message instanceof Message.Prepare m) {
            onPrepare(m);
        } else if (message instanceof Message.Promise m) {
            onPromise(m);
        } else if (message instanceof Message.Nack m) {
            onNack(m);
        } else if (message instanceof Message.Accept m) {
            onAccept(m);
        } else if (message instanceof Message.Accepted m) {
            onAccepted(m);
        } else if (message instanceof Message.Heartbeat m) {
            onHeartbeat(m);
        } else if (message instanceof Message.HeartbeatReply m) {
            onPeerApplied(m.from(), m.ballot(), m.appliedSlot());
        } else if (message instanceof Message.InstallSnapshot m) {
            onInstallSnapshot(m);
        }
    }

    /** Handles what the election service says. */
    public void onElection(ElectionEvent event) {
        Check.argument(event != null, "election event must not be null");
        if (event instanceof ElectionEvent.Elected e) {
            onElected(e.epoch());
        } else if (event instanceof ElectionEvent.LeaderIs e) {
            if (e.leaderId() != self && role != Role.FOLLOWER) {
                // The oracle says someone else leads (for example our ZooKeeper session was
                // lost): stop at once. Safety does not need this, liveness and clients do.
                stepDown(e.leaderId());
            } else if (role == Role.FOLLOWER) {
                leaderHint = e.leaderId();
            }
        }
    }

    /** Handles a client request; the answer comes in a later {@link Ready#replies()}. */
    public void propose(ClientRequest request) {
        Check.argument(request != null, "request must not be null");
        Command command = request.command();
        if (command.payload().length > config.maxCommandBytes()) {
            reply(command, ClientReply.Status.REJECTED, 0, ("command of " + command.payload().length
                    + " bytes exceeds the limit of " + config.maxCommandBytes()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return;
        }
        try {
            stateMachine.validate(command.payload());
        } catch (IllegalArgumentException e) {
            reply(command, ClientReply.Status.REJECTED, 0,
                    String.valueOf(e.getMessage()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return;
        }
        if (role == Role.FOLLOWER) {
            reply(command, ClientReply.Status.NOT_LEADER, 0, new byte[0]);
            return;
        }
        ClientSessions.Session session = sessions.get(command.clientId());
        if (session != null && command.sequence() < session.lastSequence()) {
            reply(command, ClientReply.Status.STALE_SEQUENCE, 0, new byte[0]);
            return;
        }
        if (session != null && command.sequence() == session.lastSequence()) {
            // A retry of something already applied: answer from the session table.
            reply(command, ClientReply.Status.OK, session.lastSlot(), session.lastResult());
            return;
        }
        Long awaited = awaiting.get(command.clientId());
        if (awaited != null && awaited == command.sequence()) {
            return; // A retry of a command already in flight here: it will be answered once.
        }
        if (role == Role.LEADER && stateMachine.isReadOnly(command.payload())
                && leases.mayServeLocalRead(role, command, nowNanos)) {
            Check.state(appliedSlot == commitSlot, "local read with applied %d behind commit %d", appliedSlot, commitSlot);
            reply(command, ClientReply.Status.OK, appliedSlot, stateMachine.read(command.payload()));
            return;
        }
        if (role == Role.LEADER && pendingProposals.isEmpty() && inFlight.size() < config.maxInFlightSlots()) {
            proposeNew(command);
            return;
        }
        if (pendingProposals.size() >= config.maxPendingProposals()) {
            reply(command, ClientReply.Status.BUSY, 0, new byte[0]);
            return;
        }
        pendingProposals.add(request);
    }

    // =====================================================================================
    // Output
    // =====================================================================================

    /** Whether {@link #ready()} has something, and no earlier Ready awaits {@link #advance}. */
    public boolean hasReady() {
        return outstanding == null && (promisedDirty || !entriesToPersist.isEmpty() || snapshotToPersist != null
                || compactThroughSlot != 0 || !messages.isEmpty() || !applied.isEmpty() || !replies.isEmpty()
                || !newProposals.isEmpty() || resign);
    }

    /**
     * Takes everything gathered since the last Ready. Persist it, then send its messages and
     * replies, then call {@link #advance(Ready)}; inputs may be stepped in between.
     */
    public Ready ready() {
        Check.state(outstanding == null, "ready() called again before advance() of the previous Ready");
        flushNewProposals();
        Ready ready = new Ready(promisedDirty ? promised : null, new ArrayList<>(entriesToPersist.values()),
                snapshotToPersist, compactThroughSlot, messages, applied, replies, resign);
        promisedDirty = false;
        entriesToPersist.clear();
        snapshotToPersist = null;
        compactThroughSlot = 0;
        messages.clear();
        applied.clear();
        replies.clear();
        resign = false;
        outstanding = ready;
        return ready;
    }

    /** Acknowledges that {@code ready} was persisted and sent. */
    public void advance(Ready ready) {
        Check.argument(ready != null && ready == outstanding, "advance() must be given the outstanding Ready");
        outstanding = null;
        if (role == Role.CANDIDATE && ready.promised() != null && ready.promised().equals(ownBallot)) {
            // Our own promise is durable now: it counts toward the read quorum like any other.
            phase1SelfPromised = true;
            for (Entry entry : log.tailMap(phase1FromSlot, true).values()) {
                mergePhase1(entry);
            }
            maybeFinishPhase1();
        }
        if (role == Role.LEADER) {
            for (Entry entry : ready.entries()) {
                InFlight slot = inFlight.get(entry.slot());
                if (slot != null && slot.entry.equals(entry)) {
                    slot.acceptors |= 1L << self;
                }
            }
            tryCommit();
        }
    }

    // =====================================================================================
    // Observation (for the runtime's metrics and the simulator's invariant checks)
    // =====================================================================================

    public int nodeId() {
        return self;
    }

    public Role role() {
        return role;
    }

    public Ballot promised() {
        return promised;
    }

    /** This replica's ballot while it is CANDIDATE or LEADER, else null. */
    public Ballot ownBallot() {
        return role == Role.FOLLOWER ? null : ownBallot;
    }

    public int leaderHint() {
        return leaderHint;
    }

    public long commitSlot() {
        return commitSlot;
    }

    public long appliedSlot() {
        return appliedSlot;
    }

    /** Highest slot holding an accepted entry (0 if none above the snapshot). */
    public long lastSlot() {
        return log.isEmpty() ? latestSnapshot.lastIncludedSlot() : Math.max(log.lastKey(), latestSnapshot.lastIncludedSlot());
    }

    public long snapshotSlot() {
        return latestSnapshot.lastIncludedSlot();
    }

    public StateMachine stateMachine() {
        return stateMachine;
    }

    public long nowNanos() {
        return nowNanos;
    }

    @Override
    public String toString() {
        return "Replica{node=" + self + ", role=" + role + ", promised=" + promised + ", commit=" + commitSlot
                + ", applied=" + appliedSlot + ", last=" + lastSlot() + "}";
    }

    // =====================================================================================
    // Election and phase 1
    // =====================================================================================

    private void onElected(long epoch) {
        Ballot ballot = new Ballot(epoch, self);
        if (role != Role.FOLLOWER && ballot.equals(ownBallot)) {
            return; // The oracle repeats itself.
        }
        if (!ballot.isAbove(promised)) {
            // The epoch is stale (we promised it or something higher already): using it could
            // collide with a ballot we once used. Ask the oracle for a fresh one instead.
            if (role == Role.FOLLOWER) {
                resign = true;
            }
            return;
        }
        if (role != Role.FOLLOWER) {
            stepDown(self);
        }
        role = Role.CANDIDATE;
        ownBallot = ballot;
        leaderHint = self;
        setPromised(ballot);
        phase1FromSlot = commitSlot + 1;
        phase1Promisers = 0;
        phase1SelfPromised = false;
        phase1Highest.clear();
        phase1Snapshot = null;
        phase1StartedNanos = nowNanos;
        sendPrepares();
    }

    private void sendPrepares() {
        phase1LastPrepareNanos = nowNanos;
        for (int peer = 0; peer < clusterSize; peer++) {
            if (peer != self && (phase1Promisers & (1L << peer)) == 0) {
                messages.add(new Message.Prepare(self, peer, ownBallot, phase1FromSlot));
            }
        }
    }

    private void onPrepare(Message.Prepare m) {
        if (m.ballot().nodeId() != m.from()) {
            return; // A ballot belongs to the node that runs it; anything else is corrupt.
        }
        if (m.ballot().isBelow(promised)) {
            messages.add(new Message.Nack(self, m.from(), promised, m.ballot()));
            return;
        }
        if (m.ballot().isAbove(promised)) {
            if (role != Role.FOLLOWER) {
                stepDown(m.from());
            }
            setPromised(m.ballot());
        }
        leaderHint = m.from();
        long fromSlot = Math.max(1, m.fromSlot());
        // Slots we compacted are chosen; the snapshot stands for them.
        Snapshot snapshot = fromSlot <= latestSnapshot.lastIncludedSlot() ? latestSnapshot : null;
        List<Entry> accepted = new ArrayList<>(log.tailMap(fromSlot, true).values());
        messages.add(new Message.Promise(self, m.from(), m.ballot(), fromSlot, accepted, snapshot));
    }

    private void onPromise(Message.Promise m) {
        if (role != Role.CANDIDATE || !m.ballot().equals(ownBallot) || m.fromSlot() != phase1FromSlot) {
            return; // A late or duplicated answer to an earlier phase 1.
        }
        long bit = 1L << m.from();
        if ((phase1Promisers & bit) != 0) {
            return;
        }
        phase1Promisers |= bit;
        if (m.snapshot() != null && m.snapshot().lastIncludedSlot() > commitSlot
                && (phase1Snapshot == null || m.snapshot().lastIncludedSlot() > phase1Snapshot.lastIncludedSlot())) {
            phase1Snapshot = m.snapshot();
        }
        for (Entry entry : m.accepted()) {
            Check.state(entry.ballot().isBelow(ownBallot),
                    "promise for %s from node %d carries entry of ballot %s", ownBallot, m.from(), entry.ballot());
            mergePhase1(entry);
        }
        maybeFinishPhase1();
    }

    /** Keeps, per slot, the entry accepted in the highest ballot (Paxos Made Simple, §2.2). */
    private void mergePhase1(Entry entry) {
        if (entry.slot() < phase1FromSlot) {
            return;
        }
        Entry known = phase1Highest.get(entry.slot());
        if (known == null || entry.ballot().isAbove(known.ballot())) {
            phase1Highest.put(entry.slot(), entry);
        } else if (entry.ballot().equals(known.ballot())) {
            // One ballot proposes one value per slot; two different values would mean the
            // ballot was used by two proposers.
            Check.state(entry.command().equals(known.command()),
                    "two values accepted in ballot %s for slot %d", entry.ballot(), entry.slot());
        }
    }

    private void maybeFinishPhase1() {
        if (role != Role.CANDIDATE || !phase1SelfPromised) {
            return;
        }
        int promisers = Long.bitCount(phase1Promisers) + 1;
        if (promisers < quorum.phase1Quorum(clusterSize)) {
            return;
        }
        if (phase1Snapshot != null && phase1Snapshot.lastIncludedSlot() > commitSlot) {
            installSnapshot(phase1Snapshot);
        }
        long maxSlot = phase1Highest.isEmpty() ? commitSlot : Math.max(commitSlot, phase1Highest.lastKey());
        role = Role.LEADER;
        leaderHint = self;
        nextSlot = commitSlot + 1;
        Arrays.fill(peerAppliedSlot, 0);
        Arrays.fill(peerCatchUpSentThrough, 0);
        Arrays.fill(peerCatchUpDeadlineNanos, 0);
        // Re-propose, in our ballot, the highest-ballot value of every slot past the commit
        // point that any promiser accepted; fill the gaps with no-ops.
        for (long slot = commitSlot + 1; slot <= maxSlot; slot++) {
            Entry highest = phase1Highest.get(slot);
            Command command = highest == null ? Command.NOOP : highest.command();
            appendOwn(new Entry(slot, ownBallot, command));
            if (!command.isNoop()) {
                awaitIfPending(command);
            }
        }
        phase1Highest.clear();
        phase1Snapshot = null;
        drainPendingProposals();
    }

    /** A client whose queued request was recovered by phase 1 gets its answer when it applies. */
    private void awaitIfPending(Command command) {
        Iterator<ClientRequest> pending = pendingProposals.iterator();
        while (pending.hasNext()) {
            Command queued = pending.next().command();
            if (queued.clientId() == command.clientId() && queued.sequence() == command.sequence()) {
                pending.remove();
                awaiting.put(command.clientId(), command.sequence());
            }
        }
    }

    // =====================================================================================
    // Phase 2
    // =====================================================================================

    private void proposeNew(Command command) {
        awaiting.put(command.clientId(), command.sequence());
        appendOwn(new Entry(nextSlot, ownBallot, command));
    }

    private void appendOwn(Entry entry) {
        Check.state(entry.slot() == nextSlot, "leader appends slot %d but next is %d", entry.slot(), nextSlot);
        nextSlot++;
        log.put(entry.slot(), entry);
        entriesToPersist.put(entry.slot(), entry);
        inFlight.put(entry.slot(), new InFlight(entry, nowNanos));
        newProposals.add(entry);
    }

    private void drainPendingProposals() {
        while (role == Role.LEADER && !pendingProposals.isEmpty() && inFlight.size() < config.maxInFlightSlots()) {
            Command command = pendingProposals.poll().command();
            ClientSessions.Session session = sessions.get(command.clientId());
            Long awaited = awaiting.get(command.clientId());
            if (session != null && command.sequence() <= session.lastSequence()) {
                reply(command, command.sequence() == session.lastSequence() ? ClientReply.Status.OK
                        : ClientReply.Status.STALE_SEQUENCE, session.lastSlot(),
                        command.sequence() == session.lastSequence() ? session.lastResult() : new byte[0]);
            } else if (awaited == null || awaited != command.sequence()) {
                proposeNew(command);
            }
        }
    }

    /** Sends this step's new proposals to every acceptor, batched within the configured bounds. */
    private void flushNewProposals() {
        if (newProposals.isEmpty()) {
            return;
        }
        if (role == Role.LEADER) {
            for (int peer = 0; peer < clusterSize; peer++) {
                if (peer != self) {
                    sendEntries(peer, newProposals);
                }
            }
        }
        newProposals.clear();
    }

    private void sendEntries(int peer, List<Entry> entries) {
        List<Entry> batch = new ArrayList<>();
        int batchBytes = 0;
        for (Entry entry : entries) {
            if (!batch.isEmpty() && (batch.size() >= config.maxBatchEntries()
                    || batchBytes + entry.sizeBytes() > config.maxBatchBytes())) {
                messages.add(new Message.Accept(self, peer, ownBallot, batch, commitSlot));
                batch = new ArrayList<>();
                batchBytes = 0;
            }
            batch.add(entry);
            batchBytes += entry.sizeBytes();
        }
        if (!batch.isEmpty()) {
            messages.add(new Message.Accept(self, peer, ownBallot, batch, commitSlot));
        }
        peerLastSentNanos[peer] = nowNanos;
    }

    /** Runs on every leader tick, so it allocates only when some slot is due for a resend. */
    private void retransmitAccepts() {
        List<List<Entry>> perPeer = null;
        int budget = config.maxBatchEntries();
        for (InFlight slot : inFlight.values()) {
            if (budget == 0) {
                break;
            }
            if (nowNanos - slot.lastSentNanos < config.retransmitIntervalNanos()) {
                continue;
            }
            slot.lastSentNanos = nowNanos;
            budget--;
            for (int peer = 0; peer < clusterSize; peer++) {
                if (peer != self && (slot.acceptors & (1L << peer)) == 0) {
                    if (perPeer == null) {
                        perPeer = new ArrayList<>(clusterSize);
                        for (int i = 0; i < clusterSize; i++) {
                            perPeer.add(new ArrayList<>());
                        }
                    }
                    perPeer.get(peer).add(slot.entry);
                }
            }
        }
        if (perPeer == null) {
            return;
        }
        for (int peer = 0; peer < clusterSize; peer++) {
            if (!perPeer.get(peer).isEmpty()) {
                sendEntries(peer, perPeer.get(peer));
            }
        }
    }

    private void sendHeartbeats() {
        for (int peer = 0; peer < clusterSize; peer++) {
            if (peer != self && nowNanos - peerLastSentNanos[peer] >= config.heartbeatIntervalNanos()) {
                messages.add(new Message.Heartbeat(self, peer, ownBallot, commitSlot));
                peerLastSentNanos[peer] = nowNanos;
            }
        }
    }

    private void onAccept(Message.Accept m) {
        if (!admitLeaderMessage(m)) {
            return;
        }
        long[] slots = new long[m.entries().size()];
        int count = 0;
        for (Entry entry : m.entries()) {
            if (!entry.ballot().equals(m.ballot())) {
                continue; // Malformed: an Accept proposes in its own ballot only.
            }
            if (entry.slot() > commitSlot) {
                log.put(entry.slot(), entry);
                entriesToPersist.put(entry.slot(), entry);
            }
            // A slot at or below our commit point is chosen: the leader can only be sending the
            // same value, so acknowledging it without rewriting is safe.
            slots[count++] = entry.slot();
        }
        learnCommit(m.ballot(), m.leaderCommit());
        messages.add(new Message.Accepted(self, m.from(), m.ballot(), Arrays.copyOf(slots, count), appliedSlot));
    }

    private void onAccepted(Message.Accepted m) {
        if (role != Role.LEADER || !m.ballot().equals(ownBallot)) {
            return;
        }
        long bit = 1L << m.from();
        for (long slot : m.slots()) {
            InFlight pending = inFlight.get(slot);
            if (pending != null) {
                pending.acceptors |= bit;
            }
        }
        tryCommit();
        onPeerApplied(m.from(), m.ballot(), m.appliedSlot());
    }

    private void onNack(Message.Nack m) {
        if (role == Role.FOLLOWER || ownBallot == null || !m.rejected().equals(ownBallot)) {
            return;
        }
        if (m.ballot().isAbove(ownBallot)) {
            // Someone promised a higher ballot: our epoch is over. Step down and let the oracle
            // pick again (maybe us, with a fresh epoch).
            stepDown(m.ballot().nodeId());
            resign = true;
        }
    }

    private void onHeartbeat(Message.Heartbeat m) {
        if (!admitLeaderMessage(m)) {
            return;
        }
        learnCommit(m.ballot(), m.leaderCommit());
        messages.add(new Message.HeartbeatReply(self, m.from(), m.ballot(), appliedSlot));
    }

    private void onInstallSnapshot(Message.InstallSnapshot m) {
        if (!admitLeaderMessage(m)) {
            return;
        }
        if (m.snapshot().lastIncludedSlot() > appliedSlot) {
            installSnapshot(m.snapshot());
        }
        messages.add(new Message.HeartbeatReply(self, m.from(), m.ballot(), appliedSlot));
    }

    /**
     * The gate for Accept, Heartbeat and InstallSnapshot: a message from a leader of a ballot below
     * our promise is refused with a Nack (so a deposed leader learns it, Paxos Made Simple §2.2
     * P1a); otherwise we follow its sender. A ballot names the node that runs it; a message whose
     * sender is not that node is corrupt and dropped.
     */
    private boolean admitLeaderMessage(Message m) {
        if (m.ballot().nodeId() != m.from()) {
            return false;
        }
        if (m.ballot().isBelow(promised)) {
            messages.add(new Message.Nack(self, m.from(), promised, m.ballot()));
            return false;
        }
        followLeader(m.from(), m.ballot());
        return true;
    }

    /** A message from a leader whose ballot is at least our promise: follow it. */
    private void followLeader(int leader, Ballot ballot) {
        if (ballot.isAbove(promised)) {
            setPromised(ballot);
        }
        if (role != Role.FOLLOWER && !ballot.equals(ownBallot)) {
            stepDown(leader);
        }
        leaderHint = leader;
    }

    /**
     * Advances the commit point from a leader's report: a slot counts as chosen only if the entry
     * we hold there was accepted in that leader's ballot, because only then is it the leader's value.
     */
    private void learnCommit(Ballot leaderBallot, long leaderCommit) {
        if (role != Role.FOLLOWER) {
            return;
        }
        long slot = commitSlot + 1;
        while (slot <= leaderCommit) {
            Entry entry = log.get(slot);
            if (entry == null || !entry.ballot().equals(leaderBallot)) {
                break;
            }
            commitSlot = slot;
            slot++;
        }
        applyCommitted();
    }

    private void tryCommit() {
        boolean progressed = false;
        while (true) {
            Map.Entry<Long, InFlight> first = inFlight.firstEntry();
            if (first == null || first.getKey() != commitSlot + 1) {
                break;
            }
            InFlight slot = first.getValue();
            long required = leases.requiredAcceptors(slot.entry);
            if (!quorum.isWriteQuorum(slot.entry, Long.bitCount(slot.acceptors), clusterSize)
                    || (slot.acceptors & required) != required || !leases.mayCommit(slot.entry, nowNanos)) {
                break;
            }
            inFlight.pollFirstEntry();
            commitSlot++;
            progressed = true;
        }
        if (progressed) {
            applyCommitted();
            drainPendingProposals();
        }
    }

    private void applyCommitted() {
        while (appliedSlot < commitSlot) {
            long slot = appliedSlot + 1;
            Entry entry = log.get(slot);
            Check.state(entry != null, "node %d: committed slot %d missing from the log", self, slot);
            apply(entry);
            appliedSlot = slot;
        }
        if (appliedSlot - latestSnapshot.lastIncludedSlot() >= config.snapshotEverySlots()) {
            takeSnapshot();
        }
    }

    private void apply(Entry entry) {
        applied.add(entry);
        Command command = entry.command();
        if (command.isNoop()) {
            return;
        }
        ClientSessions.Session session = sessions.get(command.clientId());
        long slot = entry.slot();
        byte[] result;
        if (session != null && command.sequence() <= session.lastSequence()) {
            // A retried command that was already applied in an earlier slot: at most once.
            if (command.sequence() < session.lastSequence()) {
                answerAwaiting(command, ClientReply.Status.STALE_SEQUENCE, 0, new byte[0]);
                return;
            }
            slot = session.lastSlot();
            result = session.lastResult();
        } else {
            result = stateMachine.apply(slot, command.payload());
            sessions.recordApplied(command.clientId(), command.sequence(), slot, result);
        }
        answerAwaiting(command, ClientReply.Status.OK, slot, result);
    }

    private void answerAwaiting(Command command, ClientReply.Status status, long slot, byte[] result) {
        Long awaited = awaiting.get(command.clientId());
        if (awaited != null && awaited == command.sequence()) {
            awaiting.remove(command.clientId());
            reply(command, status, slot, result);
        }
    }

    // =====================================================================================
    // Catch-up, snapshots, compaction
    // =====================================================================================

    private void onPeerApplied(int peer, Ballot ballot, long peerApplied) {
        if (role != Role.LEADER || !ballot.equals(ownBallot)) {
            return;
        }
        peerAppliedSlot[peer] = Math.max(peerAppliedSlot[peer], peerApplied);
        long from = peerAppliedSlot[peer] + 1;
        if (from > commitSlot) {
            return;
        }
        boolean previousBatchLearned = peerAppliedSlot[peer] >= peerCatchUpSentThrough[peer];
        if (!previousBatchLearned && nowNanos < peerCatchUpDeadlineNanos[peer]) {
            return; // A catch-up batch is on its way; don't flood a slow follower.
        }
        peerCatchUpDeadlineNanos[peer] = nowNanos + config.retransmitIntervalNanos();
        Entry first = log.get(from);
        if (first == null) {
            Check.state(from <= latestSnapshot.lastIncludedSlot(),
                    "node %d: slot %d is neither in the log nor in the snapshot", self, from);
            messages.add(new Message.InstallSnapshot(self, peer, ownBallot, latestSnapshot));
            peerCatchUpSentThrough[peer] = latestSnapshot.lastIncludedSlot();
            peerLastSentNanos[peer] = nowNanos;
            return;
        }
        // Chosen values re-sent in our ballot: safe, because a chosen value is the only one any
        // later phase 1 can pick for its slot.
        List<Entry> batch = new ArrayList<>();
        int bytes = 0;
        for (long slot = from; slot <= commitSlot && batch.size() < config.maxBatchEntries(); slot++) {
            Entry entry = log.get(slot);
            if (entry == null || bytes + entry.sizeBytes() > config.maxBatchBytes() && !batch.isEmpty()) {
                break;
            }
            batch.add(entry.withBallot(ownBallot));
            bytes += entry.sizeBytes();
        }
        peerCatchUpSentThrough[peer] = batch.get(batch.size() - 1).slot();
        messages.add(new Message.Accept(self, peer, ownBallot, batch, commitSlot));
        peerLastSentNanos[peer] = nowNanos;
    }

    private void takeSnapshot() {
        Snapshot snapshot = new Snapshot(appliedSlot, stateMachine.snapshot(), sessions.encode());
        latestSnapshot = snapshot;
        snapshotToPersist = snapshot;
        long compactThrough = appliedSlot - config.logRetainSlots();
        if (compactThrough > 0) {
            compactLogThrough(compactThrough);
        }
    }

    private void installSnapshot(Snapshot snapshot) {
        Check.state(snapshot.lastIncludedSlot() > appliedSlot, "snapshot at %d does not move applied %d forward",
                snapshot.lastIncludedSlot(), appliedSlot);
        stateMachine.restore(snapshot.stateMachine());
        sessions.restore(snapshot.sessions());
        latestSnapshot = snapshot;
        snapshotToPersist = snapshot;
        commitSlot = snapshot.lastIncludedSlot();
        appliedSlot = snapshot.lastIncludedSlot();
        // Everything at or below the snapshot is chosen and applied; older entries there may be
        // values that were never chosen, so they must not be served in catch-up.
        compactLogThrough(snapshot.lastIncludedSlot());
        nextSlot = Math.max(nextSlot, commitSlot + 1);
    }

    private void compactLogThrough(long slot) {
        NavigableMap<Long, Entry> dropped = log.headMap(slot, true);
        dropped.clear();
        entriesToPersist.keySet().removeIf(s -> s <= slot);
        compactThroughSlot = Math.max(compactThroughSlot, slot);
    }

    // =====================================================================================
    // Helpers
    // =====================================================================================

    private void setPromised(Ballot ballot) {
        Check.state(ballot.isAbove(promised), "promise must only grow: %s after %s", ballot, promised);
        promised = ballot;
        promisedDirty = true;
    }

    /**
     * Leaves CANDIDATE or LEADER. Queued requests were never logged (NOT_LEADER: safe to retry
     * anywhere); requests in our log but not applied may still be chosen by the next leader
     * (UNKNOWN: retry with the same sequence, applied at most once).
     */
    private void stepDown(int newLeaderHint) {
        if (role == Role.FOLLOWER) {
            leaderHint = newLeaderHint;
            return;
        }
        for (ClientRequest request : pendingProposals) {
            reply(request.command(), ClientReply.Status.NOT_LEADER, 0, new byte[0]);
        }
        pendingProposals.clear();
        for (Map.Entry<Long, Long> waiting : awaiting.entrySet()) {
            replies.add(new ClientReply(waiting.getKey(), waiting.getValue(), ClientReply.Status.UNKNOWN, 0, new byte[0],
                    newLeaderHint));
        }
        awaiting.clear();
        inFlight.clear();
        newProposals.clear();
        phase1Highest.clear();
        phase1Snapshot = null;
        role = Role.FOLLOWER;
        ownBallot = null;
        leaderHint = newLeaderHint;
    }

    private void reply(Command command, ClientReply.Status status, long slot, byte[] result) {
        replies.add(new ClientReply(command.clientId(), command.sequence(), status, slot, result,
                role == Role.LEADER ? self : leaderHint));
    }
}
