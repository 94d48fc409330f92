package io.synod.core.paxos;

import io.synod.core.erasure.ValueCoder;
import io.synod.core.util.Check;
import io.synod.core.erasure.ValueShard;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;

/**
 * Phase 2, run by the leader after its phase 1: it appends client commands to the log in its
 * ballot, sends them to every acceptor in bounded Accept batches (pipelined up to
 * {@link ReplicaConfig#maxInFlightSlots()} uncommitted slots), re-sends what is not acknowledged,
 * and commits slots in order.
 *
 * <p>Commit rule (Paxos Made Simple §2.2, and RS-Paxos, Mu et al. 2014, §4 for coded values): a
 * slot is chosen when the {@link QuorumPolicy} says the acceptors that accepted it in this ballot
 * form a write quorum for its entry, every acceptor the {@link LeaseHooks} require is among them,
 * and the lease policy lets it commit now (LeaseGuard's deferred commit). The commit point rides on
 * the next Accept or heartbeat.
 *
 * <p>Coded values (RS-Paxos, Mu et al. 2014, §4): a command the {@link Coding} codes is encoded
 * once, here; acceptor i (this leader included) is sent only shard i with the entry's coding, and
 * the whole value stays in the bounded {@link ValueCache}, from which this leader applies and answers.
 *
 * <p>Coding changes (docs/erasure.md "Coding changes"): slot s commits with the F of the coding in
 * effect at s, i.e. after every coding-change entry at a slot below s. Slots commit in order, so when
 * slot s is checked every slot below it is committed and that coding is known exactly
 * ({@link #committedCoding}). New values are coded with that coding too, and while a change this leader
 * proposed is uncommitted, new values go as full copies (X = 1 suits every coding).
 */
final class Leader {
    private final ReplicaContext ctx;
    private final Acceptor acceptor;
    private final Learner learner;
    private final Clients clients;
    private final CatchUp catchUp;
    private final QuorumPolicy quorum;
    private final LeaseHooks leases;
    /** The lease policy refused to take queued commands ({@link LeaseHooks#mayAcceptProposals}); the tick tries again. */
    private boolean proposalsHeldByLease;

    private long nextSlot;
    private final SlotMap<InFlight> inFlight = new SlotMap<>();
    /** Slots appended since the last Ready; {@link #flushNewProposals()} sends them. */
    private final List<InFlight> newProposals = new ArrayList<>();
    /** Per peer: when an unacknowledged Accept is sent again (adapts to the measured round trip). */
    private final RetransmitTimeout timeouts;
    /** Slot-to-peer sends by {@link #retransmitAccepts()}, for observation. */
    private long acceptRetransmits;
    /** Built on first use: the coder of the coding new values are coded with (rebuilt when X changes). */
    private ValueCoder coder;
    /** The coding in effect at slot commitSlot + 1: the applied coding changed by every change entry committed since. */
    private Coding committedCoding;
    /** The highest slot where this leader appended a coding change (0 if none). */
    private long lastChangeSlot;
    /**
     * The membership in force at slot commitSlot + 1 (docs/membership.md rule M1): the applied one changed by
     * every change entry committed since; slots commit in order, so each is counted with its own configuration.
     */
    private GroupMembership committedMembership;
    /** The newest membership in this leader's log, chosen or not (counted only under the Raft-rule negative control). */
    private GroupMembership appendedMembership;
    /** The highest slot where this leader appended a membership change (0 if none), and its first slot. */
    private long lastMembershipChangeSlot;
    /** The membership changes this leader appended (or re-proposed) by slot; those at or below the commit point are dropped lazily. */
    private final TreeMap<Long, GroupMembership> changesInFlight = new TreeMap<>();
    private long firstSlot;

    /** A slot this leader proposed in its ballot and that is not chosen yet. */
    private static final class InFlight {
        /** The proposal: a plain entry, or a coded one with its whole command and no shard. */
        final Entry entry;
        /** Encoded shard i for acceptor i, or null (plain entry, or a stub re-proposed by a negative control). */
        final byte[][] shards;
        long acceptors;
        /**
         * Acceptors sent the whole value instead of their shard: the quorum-lease holders of its key when it
         * was proposed (a full copy counts as every shard, for the commit rule and for recovery).
         */
        long fullCopies;
        long lastSentNanos;
        /** Sent again at least once: its acknowledgements are not round-trip samples (Karn's rule). */
        boolean resent;
        /** Its client was answered before it applied, or it was found not answerable early. */
        boolean earlyAnswerTried;

        InFlight(Entry entry, byte[][] shards, long sentNanos) {
            this.entry = entry;
            this.shards = shards;
            this.lastSentNanos = sentNanos;
        }

        /**
         * What acceptor {@code peer} is sent: its own shard of a coded value, or the entry itself (plain, or a
         * full copy for a quorum-lease holder of its key).
         */
        Entry forPeer(int peer) {
            // An id at or beyond the code length is in fullCopies (rule M9) but under its negative control.
            return shards == null || (fullCopies & (1L << peer)) != 0 ? entry : entry.stub(shards[peer % shards.length]);
        }
    }

    Leader(ReplicaContext ctx, Acceptor acceptor, Learner learner, Clients clients, CatchUp catchUp, QuorumPolicy quorum,
            LeaseHooks leases) {
        this.ctx = ctx;
        this.acceptor = acceptor;
        this.learner = learner;
        this.clients = clients;
        this.catchUp = catchUp;
        this.quorum = quorum;
        this.leases = leases;
        this.timeouts = new RetransmitTimeout(ctx.clusterSize, ctx.config.retransmitIntervalNanos());
    }

    /** Leadership begins after phase 1: the next free slot follows the commit point. */
    void start() {
        nextSlot = learner.commitSlot() + 1;
        firstSlot = nextSlot;
        lastChangeSlot = 0;
        lastMembershipChangeSlot = 0;
        changesInFlight.clear();
        recomputeCommittedCoding();
        catchUp.reset();
    }

    /** The coding after the applied slot (the applied coding) changed by the change entries committed since. */
    private void recomputeCommittedCoding() {
        committedCoding = ctx.coding;
        committedMembership = ctx.membership;
        appendedMembership = ctx.membership;
        for (Entry entry : acceptor.entriesFrom(learner.appliedSlot() + 1)) {
            if (GroupMembership.isChange(entry.command())) {
                appendedMembership = GroupMembership.of(entry.command());
            }
            if (entry.slot() > learner.commitSlot()) {
                continue;
            }
            if (Coding.isChange(entry.command())) {
                committedCoding = committedCoding.after(entry.command());
            }
            if (GroupMembership.isChange(entry.command())) {
                committedMembership = GroupMembership.of(entry.command());
            }
        }
    }

    /** The membership in effect at the next slot to commit (the base of the next change, rule M5). */
    GroupMembership committedMembership() {
        return committedMembership;
    }

    /** The memberships the changes in this leader's log past its commit point set, in slot order (rule M1). */
    Collection<GroupMembership> membershipsInFlight() {
        changesInFlight.headMap(learner.commitSlot(), true).clear();
        return changesInFlight.values();
    }

    /** Whether a membership change this leader appended is not committed yet (rule M5). */
    boolean membershipChangeInFlight() {
        return lastMembershipChangeSlot > learner.commitSlot();
    }

    /** Whether an entry of this leader's own ballot is chosen (rule M5, the raft-dev 2015 fix). */
    boolean ownBallotEntryChosen() {
        return learner.commitSlot() >= firstSlot && nextSlot > firstSlot;
    }

    /** Whether this leader has appended nothing in its ballot yet. */
    boolean appendedNothing() {
        return nextSlot == firstSlot;
    }

    /** Appends the entry that changes the group's membership to {@code next}; returns its slot. */
    long appendMembershipChange(GroupMembership next) {
        return append(next.changeCommand());
    }

    /**
     * The replicas this leader sends the log to: the members (voters and learners) of the membership at its commit
     * point and of every one a change in its log past that point sets (a quorum-lease holder of any of them may have
     * to accept a slot, rule QL4). A removed replica or a spare hears nothing more from it.
     */
    private long reach() {
        long members = committedMembership.members() | appendedMembership.members();
        for (GroupMembership m : membershipsInFlight()) {
            members |= m.members();
        }
        return members;
    }

    /** The coding in effect at the next slot to commit (for the simulator's checks and tests). */
    Coding committedCoding() {
        return committedCoding;
    }

    /** Leadership ended: nothing is in flight any more. */
    void clear() {
        inFlight.clear();
        newProposals.clear();
    }

    boolean hasNewProposals() {
        return !newProposals.isEmpty();
    }

    boolean windowHasRoom() {
        return inFlight.size() < ctx.config.maxInFlightSlots();
    }

    void propose(Command command) {
        clients.await(command);
        append(command);
    }

    /**
     * Appends {@code command} at the next slot, in this leader's ballot, coded if the {@link Coding}
     * says so (encoded once; the whole value goes to the cache); returns that slot.
     */
    long append(Command command) {
        return append(command, null);
    }

    /**
     * Appends {@code command} with {@code stamp}: a re-proposal keeps the stamp of the entry phase 1
     * recovered; a new entry (null) gets one from the lease policy.
     */
    long append(Command command, LeaseStamp stamp) {
        Coding coding = committedCoding;
        // X follows the voters at the commit point; while a coding or membership change is uncommitted, new
        // values go as full copies, which every coding and membership in flight accepts (docs/membership.md).
        int dataShards = coding.dataShardsFor(committedMembership.voterCount());
        boolean coded = coding.codes(command) && dataShards > 1 && lastChangeSlot <= learner.commitSlot()
                && !membershipChangeInFlight();
        return append(command, stamp, coded ? dataShards : 1);
    }

    /**
     * Appends {@code command} coded into {@code dataShards} data shards (1: plain). Phase 1 re-proposes a
     * value in the form it was accepted in (plain, or coded with its own X, §4.6), whatever the coding is
     * now: shards of one value in different codings could not be combined, and an acceptor that accepts the
     * same value again keeps its shard only if it is the same coded value.
     */
    long append(Command command, LeaseStamp stamp, int dataShards) {
        long slot = nextSlot;
        if (stamp == null) {
            stamp = leases.stamp(slot, command);
        }
        if (dataShards == 1) {
            return register(new InFlight(new Entry(slot, ctx.ownBallot, command, null, stamp), null, ctx.nowNanos));
        }
        int n = ctx.coding.nodes(); // The code length: shard i for replica i < n, the whole value beyond (rule M9).
        Check.argument(dataShards > 1 && dataShards < n, "cannot code into %d of %d shards", dataShards, n);
        if (coder == null || coder.dataShardCount() != dataShards) {
            coder = new ValueCoder(dataShards, n - dataShards);
        }
        // Coded straight into the shard encodings the acceptors get: one array per shard, no payload copies.
        byte[][] encoded = coder.encodeToBytes(command.payload());
        // Deferred rebuild: the uncoded header lets followers apply the value without rebuilding it. It is a
        // function of the payload, so a re-proposal of the same value (phase 1) carries the same header.
        byte[] header = ctx.coding.defersRebuild() ? learner.appliedState().deferralHeader(command.payload()) : null;
        CodedValue coded = new CodedValue(dataShards, n, command.payload().length,
                ValueShard.valueChecksumOf(encoded[0]), null, header != null && header.length < command.payload().length ? header : null);
        ctx.cache.put(slot, command, coded);
        return register(new InFlight(new Entry(slot, ctx.ownBallot, command, coded, stamp), encoded, ctx.nowNanos));
    }

    /** Appends the entry that changes the group's coding to {@code next} (N unchanged). */
    long appendCodingChange(Coding next) {
        Check.argument(next.nodes() == ctx.coding.nodes(), "coding change for %d nodes, the code has %d", next.nodes(), ctx.coding.nodes());
        lastChangeSlot = append(next.changeCommand());
        return lastChangeSlot;
    }

    /**
     * Negative control only ({@code Phase1} with {@link Coding#reproposesUnrebuildable()}): re-proposes a
     * coded value this leader could not rebuild, as a stub without shards. Never used by the real protocol.
     */
    long appendStub(Entry stub) {
        return register(new InFlight(new Entry(nextSlot, ctx.ownBallot, stub.command(), stub.coded().withShard(null)),
                null, ctx.nowNanos));
    }

    private long register(InFlight proposal) {
        if (proposal.shards != null) {
            // Quorum-lease holders of the key get the whole value, so they apply and serve it locally without
            // rebuilding it (Moraru et al., "Paxos Quorum Leases", SoCC 2014, §3); so do the ids at or beyond the
            // code length, which have no shard of their own (docs/membership.md, rule M9).
            long beyondCode = ctx.membershipGuards.fullCopiesBeyondCode ? -1L << ctx.coding.nodes() : 0;
            proposal.fullCopies = (leases.requiredAcceptors(proposal.entry) | beyondCode) & ((1L << ctx.clusterSize) - 1);
        }
        nextSlot++;
        if (GroupMembership.isChange(proposal.entry.command())) {
            // New or re-proposed by phase 1: either way a change is in flight until it commits (rule M5).
            lastMembershipChangeSlot = proposal.entry.slot();
            appendedMembership = GroupMembership.of(proposal.entry.command());
            changesInFlight.put(proposal.entry.slot(), appendedMembership);
        }
        acceptor.accept(proposal.forPeer(ctx.self));
        inFlight.put(proposal.entry.slot(), proposal);
        newProposals.add(proposal);
        return proposal.entry.slot();
    }

    void drainPendingProposals() {
        proposalsHeldByLease = false;
        while (ctx.role == Role.LEADER && !clients.pending.isEmpty() && windowHasRoom()) {
            if (!leases.mayAcceptProposals(ctx.nowNanos)) {
                proposalsHeldByLease = true; // The lease policy holds them: the tick retries (log-lease baseline).
                return;
            }
            Command command = clients.pending.poll().command();
            if (!clients.isDuplicate(command)) {
                propose(command);
            }
        }
    }

    /** Sends this step's new proposals to every acceptor, batched within the configured bounds. */
    void flushNewProposals() {
        if (newProposals.isEmpty()) {
            return;
        }
        if (ctx.role == Role.LEADER) {
            long reach = reach();
            for (int peer = 0; peer < ctx.clusterSize; peer++) {
                if (peer != ctx.self && (reach & (1L << peer)) != 0) {
                    sendEntries(peer, newProposals);
                }
            }
        }
        newProposals.clear();
    }

    private void sendEntries(int peer, List<InFlight> proposals) {
        EntryBatch batch = new EntryBatch(ctx.config);
        for (InFlight proposal : proposals) {
            Entry entry = proposal.forPeer(peer);
            catchUp.proposalSent(entry.slot(), peer);
            if (!batch.tryAdd(entry)) {
                sendAccept(peer, batch.take());
                batch.tryAdd(entry);
            }
        }
        if (!batch.isEmpty()) {
            sendAccept(peer, batch.take());
        }
        catchUp.sentTo(peer);
    }

    private void sendAccept(int peer, List<Entry> entries) {
        ctx.out.send(new Message.Accept(ctx.self, peer, ctx.ownBallot, entries, learner.commitSlot()));
        catchUp.carried(peer, learner.commitSlot());
    }

    /** Leader tick: re-send what is due, commit what may commit now, keep quiet peers informed. */
    void tick() {
        if (proposalsHeldByLease) {
            drainPendingProposals();
        }
        retransmitAccepts();
        tryCommit();
        if (inFlight.isEmpty() && clients.pending.isEmpty() && leases.wantsNoop()) {
            append(Command.NOOP); // Keeps the lease of an idle leader alive (LeaseGuard §3).
        }
        if (windowHasRoom()) {
            Command proposal = leases.leaderProposal(nextSlot);
            if (proposal != null) {
                append(proposal); // The policy's own entry (a lease configuration), awaited by no client.
            }
        }
        sendHeartbeats();
    }

    /**
     * Runs on every leader tick, so it allocates only when some slot is due for a resend. A slot is
     * due for an acceptor that has not acknowledged it once that acceptor's {@link RetransmitTimeout}
     * has passed since the slot was last sent; it is re-sent to the acceptors it is due for.
     */
    private void retransmitAccepts() {
        List<List<InFlight>> perPeer = null;
        long backedOff = 0;
        int budget = ctx.config.maxBatchEntries();
        for (InFlight slot : inFlight.values()) {
            if (budget == 0) {
                break;
            }
            long waited = ctx.nowNanos - slot.lastSentNanos;
            if (waited < ctx.config.retransmitIntervalNanos()) {
                continue; // Below every peer's timeout (the configured interval is the floor).
            }
            long due = 0;
            for (int peer = 0; peer < ctx.clusterSize; peer++) {
                if (peer != ctx.self && ((slot.acceptors | ~reach()) & (1L << peer)) == 0 && waited >= timeouts.timeoutNanos(peer)) {
                    due |= 1L << peer;
                }
            }
            if (due == 0) {
                continue;
            }
            slot.lastSentNanos = ctx.nowNanos;
            slot.resent = true;
            budget--;
            for (int peer = 0; peer < ctx.clusterSize; peer++) {
                if ((due & (1L << peer)) != 0) {
                    backedOff |= 1L << peer;
                    if (perPeer == null) {
                        perPeer = new ArrayList<>(ctx.clusterSize);
                        for (int i = 0; i < ctx.clusterSize; i++) {
                            perPeer.add(new ArrayList<>());
                        }
                    }
                    perPeer.get(peer).add(slot);
                    acceptRetransmits++;
                }
            }
        }
        if (perPeer == null) {
            return;
        }
        for (int peer = 0; peer < ctx.clusterSize; peer++) {
            if ((backedOff & (1L << peer)) != 0) {
                timeouts.backOff(peer); // Once per tick, however many slots were due.
            }
            if (!perPeer.get(peer).isEmpty()) {
                sendEntries(peer, perPeer.get(peer));
            }
        }
    }

    long acceptRetransmits() {
        return acceptRetransmits;
    }

    /** The current retransmission timeout of Accepts to {@code peer}. */
    long retransmitTimeoutNanos(int peer) {
        return timeouts.timeoutNanos(peer);
    }

    private void sendHeartbeats() {
        for (int peer = 0; peer < ctx.clusterSize; peer++) {
            if (peer != ctx.self && (reach() & (1L << peer)) != 0 && catchUp.isQuiet(peer)) {
                ctx.out.send(new Message.Heartbeat(ctx.self, peer, ctx.ownBallot, learner.commitSlot()));
                catchUp.sentTo(peer);
            }
        }
    }

    void onAccepted(Message.Accepted m) {
        if (ctx.role != Role.LEADER || !m.ballot().equals(ctx.ownBallot)) {
            return;
        }
        long bit = 1L << m.from();
        long sample = -1;
        for (long slot : m.slots()) {
            InFlight pending = inFlight.get(slot);
            if (pending != null) {
                // Karn's rule: only a slot sent once times the round trip (a re-send makes the ack ambiguous).
                if (!pending.resent && (pending.acceptors & bit) == 0) {
                    sample = Math.max(sample, ctx.nowNanos - pending.lastSentNanos);
                }
                pending.acceptors |= bit;
            }
        }
        if (sample >= 0) {
            timeouts.sample(m.from(), sample);
        }
        leases.onAcknowledged(m.from(), m.slots());
        tryCommit();
        catchUp.onPeerAccepted(m.from(), m.slots(), m.appliedSlot());
        catchUp.onPeerApplied(m.from(), m.ballot(), m.appliedSlot());
        long highest = -1;
        for (long slot : m.slots()) {
            highest = Math.max(highest, slot);
        }
        if (highest >= 0 && highest <= learner.commitSlot() && m.appliedSlot() < highest) {
            // It accepted slots already chosen but cannot learn them from the Accept that wrote them (ReplicaGuard):
            // the commit point goes with this step, not when the peer is next quiet, or an idle group leaves it behind.
            catchUp.oweCommitPoint(m.from());
        }
    }

    /** The entries of a Ready are durable here: this replica counts as one of their acceptors. */
    void onOwnEntriesDurable(List<Entry> entries) {
        for (Entry entry : entries) {
            InFlight slot = inFlight.get(entry.slot());
            if (slot != null && slot.entry.ballot().equals(entry.ballot()) && slot.entry.sameValue(entry)) {
                slot.acceptors |= 1L << ctx.self;
            }
        }
        tryCommit();
    }

    private void tryCommit() {
        boolean progressed = false;
        // A recovery read may have installed a peer's snapshot past slots still in flight here (their
        // values are the chosen ones, which the snapshot holds): they are done.
        while (!inFlight.isEmpty() && inFlight.firstSlot() <= learner.commitSlot()) {
            inFlight.pollFirst();
            progressed = true;
        }
        if (progressed) {
            recomputeCommittedCoding(); // The snapshot recorded the coding after its slot.
        }
        Check.state(nextSlot > learner.commitSlot(), "leader's next slot %d is not past the commit point %d", nextSlot,
                learner.commitSlot());
        while (true) {
            // The first slot in flight, if it is the next to commit: none is at or below the commit point.
            InFlight slot = inFlight.get(learner.commitSlot() + 1);
            if (slot == null || !mayCommitNow(slot)) {
                break;
            }
            inFlight.pollFirst();
            learner.commitNext();
            if (Coding.isChange(slot.entry.command())) {
                committedCoding = committedCoding.after(slot.entry.command()); // In effect from the next slot on.
            }
            if (GroupMembership.isChange(slot.entry.command())) {
                committedMembership = GroupMembership.of(slot.entry.command()); // In effect from the next slot on (M1).
            }
            progressed = true;
        }
        if (progressed) {
            learner.applyCommitted();
        }
        if (leases.answersWritesBeforeApply()) {
            answerWritesBeforeApply();
        }
        if (progressed) {
            drainPendingProposals();
        }
    }

    /**
     * Whether the acceptors of {@code slot} in this ballot choose it under the coding in effect at the slot:
     * {@code Q_W = F + X} acceptances, or F + 1 full copies (a full copy counts as every shard: any read
     * quorum, which misses at most F acceptors, then holds one; with fewer, a read quorum may miss them all
     * and must find X shards among the rest, which F + X acceptances guarantee).
     */
    private boolean hasWriteQuorum(InFlight slot) {
        int failures = committedCoding.failures();
        GroupMembership m = ctx.membershipGuards.oneChosenChangeAtATime ? committedMembership : appendedMembership;
        long counted = ctx.membershipGuards.learnersNeverCounted ? m.voters() : m.members();
        return quorum.isWriteQuorum(slot.entry, failures, Long.bitCount(slot.acceptors & counted), m.voterCount())
                || (committedCoding.enabled() && Long.bitCount(slot.acceptors & slot.fullCopies & counted) >= failures + 1);
    }

    /** The commit rule for one slot: a write quorum, the acceptors the lease requires, and the lease's consent. */
    private boolean mayCommitNow(InFlight slot) {
        long required = leases.requiredAcceptors(slot.entry);
        return hasWriteQuorum(slot) && (slot.acceptors & required) == required && leases.mayCommit(slot.entry, ctx.nowNanos);
    }

    /**
     * Quorum leases (Moraru §3, {@link LeaseHooks#answersWritesBeforeApply}): answers each awaited write
     * whose own slot may commit, though slots ahead of it still wait (for the holders of other keys).
     * Only while every slot ahead of it has a write quorum in this ballot: then their values are the
     * chosen ones and the state machine can tell the result from them. The slot stays in flight and
     * commits in order as before. Work per call: the in-flight window, each slot predicted once.
     */
    private void answerWritesBeforeApply() {
        List<Command> before = null;
        long expected = learner.commitSlot() + 1;
        for (InFlight slot : inFlight.values()) {
            if (slot.entry.slot() != expected || !hasWriteQuorum(slot)) {
                return;
            }
            expected++;
            Command command = slot.entry.command();
            if (Coding.isChange(command) || GroupMembership.isChange(command)) {
                return; // Slots after it commit with the new configuration's quorums: wait for it to commit.
            }
            if (command.isNoop()) {
                continue;
            }
            if (!slot.earlyAnswerTried && clients.isAwaited(command) && mayCommitNow(slot)) {
                slot.earlyAnswerTried = true;
                byte[] result = learner.resultBeforeApply(command, before == null ? List.of() : before);
                if (result != null) {
                    clients.answerEarly(command, slot.entry.slot(), result);
                }
            }
            if (before == null) {
                before = new ArrayList<>();
            }
            before.add(command);
        }
    }
}
