package io.synod.core.paxos;

import io.synod.core.erasure.ValueCoder;
import io.synod.core.util.Check;
import io.synod.core.erasure.ValueShard;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

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
 * ({@link LeaderConfigurations}). New values are coded with that coding too, and while a change this leader
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
    private final SlotMap<InFlightProposal> inFlight = new SlotMap<>();
    /** Slots appended since the last Ready; {@link #flushNewProposals()} sends them. */
    private final List<InFlightProposal> newProposals = new ArrayList<>();
    private final AcceptResends resends;
    /** Built on first use: the coder of the coding new values are coded with (rebuilt when X changes). */
    private ValueCoder coder;
    /** The coding and membership at the commit point and in this leader's log past it. */
    private final LeaderConfigurations configurations;
    private long firstSlot;

    Leader(ReplicaContext ctx, Acceptor acceptor, Learner learner, Clients clients, CatchUp catchUp, QuorumPolicy quorum,
            LeaseHooks leases) {
        this.ctx = ctx;
        this.acceptor = acceptor;
        this.learner = learner;
        this.clients = clients;
        this.catchUp = catchUp;
        this.quorum = quorum;
        this.leases = leases;
        this.resends = new AcceptResends(ctx);
        this.configurations = new LeaderConfigurations(ctx, acceptor, learner);
    }

    /** Leadership begins after phase 1: the next free slot follows the commit point. */
    void start() {
        nextSlot = learner.commitSlot() + 1;
        firstSlot = nextSlot;
        configurations.start();
        catchUp.reset();
    }

    /** The membership in effect at the next slot to commit (the base of the next change, rule M5). */
    GroupMembership committedMembership() {
        return configurations.committedMembership();
    }

    /** The memberships the changes in this leader's log past its commit point set, in slot order (rule M1). */
    Collection<GroupMembership> membershipsInFlight() {
        return configurations.membershipsInFlight();
    }

    /** Whether a membership change this leader appended is not committed yet (rule M5). */
    boolean membershipChangeInFlight() {
        return configurations.membershipChangeInFlight();
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

    /** The coding in effect at the next slot to commit (for the simulator's checks and tests). */
    Coding committedCoding() {
        return configurations.committedCoding();
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
        Coding coding = configurations.committedCoding();
        // X follows the voters at the commit point; while a coding or membership change is uncommitted, new
        // values go as full copies, which every coding and membership in flight accepts (docs/membership.md).
        int dataShards = coding.dataShardsFor(configurations.committedMembership().voterCount());
        boolean coded = coding.codes(command) && dataShards > 1 && !configurations.changeInFlight();
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
            return register(new InFlightProposal(new Entry(slot, ctx.ownBallot, command, null, stamp), null, ctx.nowNanos));
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
        return register(new InFlightProposal(new Entry(slot, ctx.ownBallot, command, coded, stamp), encoded, ctx.nowNanos));
    }

    /** Appends the entry that changes the group's coding to {@code next} (N unchanged). */
    long appendCodingChange(Coding next) {
        Check.argument(next.nodes() == ctx.coding.nodes(), "coding change for %d nodes, the code has %d", next.nodes(), ctx.coding.nodes());
        long slot = append(next.changeCommand());
        configurations.codingChangeAppended(slot);
        return slot;
    }

    /**
     * Negative control only ({@code Phase1} with {@link Coding#reproposesUnrebuildable()}): re-proposes a
     * coded value this leader could not rebuild, as a stub without shards. Never used by the real protocol.
     */
    long appendStub(Entry stub) {
        return register(new InFlightProposal(new Entry(nextSlot, ctx.ownBallot, stub.command(), stub.coded().withShard(null)),
                null, ctx.nowNanos));
    }

    private long register(InFlightProposal proposal) {
        if (proposal.shards != null) {
            // Quorum-lease holders of the key get the whole value, so they apply and serve it locally without
            // rebuilding it (Moraru et al., "Paxos Quorum Leases", SoCC 2014, §3); so do the ids at or beyond the
            // code length, which have no shard of their own (docs/membership.md, rule M9).
            long beyondCode = ctx.membershipGuards.fullCopiesBeyondCode ? -1L << ctx.coding.nodes() : 0;
            proposal.fullCopies = (leases.requiredAcceptors(proposal.entry) | beyondCode) & ((1L << ctx.clusterSize) - 1);
        }
        nextSlot++;
        configurations.appended(proposal.entry); // New or re-proposed by phase 1: a change is in flight either way.
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
            long reach = configurations.reach();
            for (int peer = 0; peer < ctx.clusterSize; peer++) {
                if (peer != ctx.self && (reach & (1L << peer)) != 0) {
                    sendEntries(peer, newProposals);
                }
            }
        }
        newProposals.clear();
    }

    private void sendEntries(int peer, List<InFlightProposal> proposals) {
        EntryBatch batch = new EntryBatch(ctx.config);
        for (InFlightProposal proposal : proposals) {
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

    /** Re-sends the slots due again to the acceptors they are due for ({@link AcceptResends}). */
    private void retransmitAccepts() {
        List<List<InFlightProposal>> perPeer = resends.due(inFlight.values(), configurations.reach());
        if (perPeer == null) {
            return;
        }
        for (int peer = 0; peer < ctx.clusterSize; peer++) {
            if (!perPeer.get(peer).isEmpty()) {
                sendEntries(peer, perPeer.get(peer));
            }
        }
    }

    long acceptRetransmits() {
        return resends.acceptRetransmits();
    }

    /** The current retransmission timeout of Accepts to {@code peer}. */
    long retransmitTimeoutNanos(int peer) {
        return resends.retransmitTimeoutNanos(peer);
    }

    private void sendHeartbeats() {
        for (int peer = 0; peer < ctx.clusterSize; peer++) {
            if (peer != ctx.self && (configurations.reach() & (1L << peer)) != 0 && catchUp.isQuiet(peer)) {
                ctx.out.send(new Message.Heartbeat(ctx.self, peer, ctx.ownBallot, learner.commitSlot()));
                catchUp.sentTo(peer);
            }
        }
    }

    void onAccepted(Message.Accepted m) {
        if (ctx.role != Role.LEADER || !m.ballot().equals(ctx.ownBallot)) {
            return;
        }
        resends.acknowledged(m.from(), m.slots(), inFlight);
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
            InFlightProposal slot = inFlight.get(entry.slot());
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
            configurations.recompute(); // The snapshot recorded the coding after its slot.
        }
        Check.state(nextSlot > learner.commitSlot(), "leader's next slot %d is not past the commit point %d", nextSlot,
                learner.commitSlot());
        while (true) {
            // The first slot in flight, if it is the next to commit: none is at or below the commit point.
            InFlightProposal slot = inFlight.get(learner.commitSlot() + 1);
            if (slot == null || !mayCommitNow(slot)) {
                break;
            }
            inFlight.pollFirst();
            learner.commitNext();
            configurations.committed(slot.entry.command()); // In effect from the next slot on (M1).
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
    private boolean hasWriteQuorum(InFlightProposal slot) {
        Coding committedCoding = configurations.committedCoding();
        int failures = committedCoding.failures();
        GroupMembership m = ctx.membershipGuards.oneChosenChangeAtATime ? configurations.committedMembership()
                : configurations.appendedMembership();
        long counted = ctx.membershipGuards.learnersNeverCounted ? m.voters() : m.members();
        return quorum.isWriteQuorum(slot.entry, failures, Long.bitCount(slot.acceptors & counted), m.voterCount())
                || (committedCoding.enabled() && Long.bitCount(slot.acceptors & slot.fullCopies & counted) >= failures + 1);
    }

    /** The commit rule for one slot: a write quorum, the acceptors the lease requires, and the lease's consent. */
    private boolean mayCommitNow(InFlightProposal slot) {
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
        for (InFlightProposal slot : inFlight.values()) {
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
