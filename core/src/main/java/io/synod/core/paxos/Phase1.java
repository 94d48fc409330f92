package io.synod.core.paxos;

import io.synod.core.util.Check;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

/**
 * Phase 1, the takeover by a CANDIDATE: Prepare every slot past the commit point in the
 * candidate's ballot, merge the promises, and once a read quorum of durable promises (its own
 * included) arrived, become LEADER and re-propose, in its ballot, the value accepted in the highest
 * ballot of each slot, filling gaps with no-ops, before serving anything (Paxos Made Simple §2.2
 * and §3). A candidate that goes {@link ReplicaConfig#phase1TimeoutNanos()} without progress (no
 * new promise page or snapshot chunk), counted from when its own promise became durable and its
 * Prepares left, gives up and never serves.
 *
 * <p>Every message stays bounded: a promise comes in pages (the candidate asks each acceptor for
 * the next page until it gets the last one, and only a complete promise counts toward the quorum),
 * and if an acceptor compacted past the candidate's commit point, the candidate fetches that
 * acceptor's snapshot in chunks and installs it before leading (everything in a snapshot is chosen).
 *
 * <p>Phase 1 must decode (RS-Paxos, Mu et al. 2014, §4 and its Fig. 2): besides the highest-ballot
 * entry of each slot, {@link #merge} keeps every shard and full copy the promises carry. A coded
 * value is re-proposed only if it can be rebuilt here: from a full copy, the cache, or at least X
 * intact shards of that very value (shards of it accepted in lower ballots count too: they are the
 * same bytes). A value chosen in some ballot was accepted by {@code Q_W(X)} acceptors, and any
 * {@code Q_R} promisers include at least X of them, each still holding its shard of it (an acceptor
 * that re-accepts the same value keeps its shard, see {@link Acceptor#accept(Entry)}); so a
 * highest-ballot value with fewer than X shards among the promises was not chosen, and the slot gets
 * a no-op instead. A value that cannot be rebuilt is never re-proposed or decided.
 *
 * <p>Coding changes (docs/erasure.md "Coding changes"): a slot past the commit point may have been chosen
 * with the quorums of the coding applied here or of any coding a change entry past the applied slot
 * sets, so the read quorum is {@code N - min F} over those: the applied coding, every change entry in
 * this replica's log past its applied slot, every change entry any promise carries (any ballot) and
 * the coding of a snapshot fetched from a promiser. It can only grow while promises arrive. By
 * induction over the chosen changes past the commit point, each was chosen with a write quorum
 * ({@code F + 1}, plain) that the read quorum known before it meets, so it is seen and its F counted
 * before the slots it governs are judged (§4: {@code Q_R + Q_W(X) - N >= X} when {@code Q_R >= N - F}).
 */
final class Phase1 {
    private final ReplicaContext ctx;
    private final Acceptor acceptor;
    private final Learner learner;
    private final Leader leader;
    private final Clients clients;
    private final QuorumPolicy quorum;

    private long fromSlot;
    /** Per peer, where the next promise page starts (the first page starts at {@link #fromSlot}). */
    private final long[] pageFrom;
    /** Peers whose promise is complete (their last page arrived). */
    private long promisers;
    private boolean selfPromised;
    /** When phase 1 started or last made progress (a promise page or a snapshot chunk arrived). */
    private long progressNanos;
    private long lastPrepareNanos;
    private final TreeMap<Long, Entry> highest = new TreeMap<>();
    /** Per slot, every coded entry the promises carried that holds a shard or a full copy (any ballot). */
    private final TreeMap<Long, List<Entry>> codedData = new TreeMap<>();
    /** The promiser whose snapshot (at {@link #snapshotTarget} or later) must be installed first, or -1. */
    private int snapshotSource = -1;
    private long snapshotTarget;
    private final SnapshotReceiver incoming;
    private Snapshot snapshot;
    /** The smallest F of the codings that may have chosen a slot this phase 1 reads (sets its read quorum). */
    private int fewestFailures;
    /**
     * Every membership that may govern a slot this phase 1 reads (docs/membership.md rule M3): the applied one,
     * those of change entries in this replica's log past it, in any promise (any ballot), or in a fetched
     * snapshot. Phase 1 needs a majority of the voters of each.
     */
    private final List<GroupMembership> configurations = new ArrayList<>();

    Phase1(ReplicaContext ctx, Acceptor acceptor, Learner learner, Leader leader, Clients clients, QuorumPolicy quorum) {
        this.ctx = ctx;
        this.acceptor = acceptor;
        this.learner = learner;
        this.leader = leader;
        this.clients = clients;
        this.quorum = quorum;
        this.pageFrom = new long[ctx.clusterSize];
        this.incoming = new SnapshotReceiver(learner.appliedState());
    }

    /** Starts phase 1 for {@code ctx.ownBallot}, which the acceptor has just promised. */
    void start() {
        fromSlot = learner.commitSlot() + 1;
        Arrays.fill(pageFrom, fromSlot);
        promisers = 0;
        selfPromised = false;
        clear();
        fewestFailures = ctx.coding.failures();
        configurations.clear();
        configurations.add(ctx.membership);
        for (Entry entry : acceptor.entriesFrom(learner.appliedSlot() + 1)) {
            noteCoding(entry);
        }
        progressNanos = ctx.nowNanos;
        sendPrepares();
    }

    /** Forgets what the promises carried (phase 1 finished or was abandoned). */
    void clear() {
        highest.clear();
        codedData.clear();
        snapshotSource = -1;
        snapshotTarget = 0;
        incoming.reset();
        snapshot = null;
    }

    /**
     * Whether phase 1 went {@link ReplicaConfig#phase1TimeoutNanos()} without progress since its Prepares
     * left. Never before the candidate's own promise is durable: until then the Prepares sit in the Ready
     * behind that fsync (the Ready contract sends after persisting), so no peer could have answered, and
     * giving up could not be announced earlier either (the resignation rides on a later Ready). Counting
     * the candidate's own disk time as its peers' silence made a candidate whose fsync outlasts the
     * timeout resign the moment its Prepares finally left, ignoring the promises they brought back; with
     * every disk that slow, no candidate could ever lead.
     */
    boolean timedOut() {
        return selfPromised && ctx.nowNanos - progressNanos >= ctx.config.phase1TimeoutNanos();
    }

    /** Re-sends unanswered Prepares; not before they first left with the own promise (earlier, copies would queue behind the same fsync). */
    void retransmitIfDue() {
        if (selfPromised && ctx.nowNanos - lastPrepareNanos >= ctx.config.retransmitIntervalNanos()) {
            sendPrepares();
        }
    }

    private void sendPrepares() {
        lastPrepareNanos = ctx.nowNanos;
        for (int peer = 0; peer < ctx.clusterSize; peer++) {
            if (peer != ctx.self && (promisers & (1L << peer)) == 0) {
                ctx.out.send(new Message.Prepare(ctx.self, peer, ctx.ownBallot, pageFrom[peer]));
            }
        }
        if (snapshotSource >= 0 && snapshot == null) {
            requestSnapshot();
        }
    }

    private void requestSnapshot() {
        long slot = incoming.slot() >= 0 ? incoming.slot() : snapshotTarget;
        ctx.out.send(new Message.SnapshotRequest(ctx.self, snapshotSource, ctx.ownBallot, slot, incoming.nextOffset()));
    }

    void onPromise(Message.Promise m) {
        long bit = 1L << m.from();
        if (ctx.role != Role.CANDIDATE || !m.ballot().equals(ctx.ownBallot) || (promisers & bit) != 0
                || m.fromSlot() != pageFrom[m.from()] || (!m.isLastPage() && m.nextSlot() <= m.fromSlot())) {
            return; // A late or duplicated answer (to an earlier phase 1 or page), or a malformed one.
        }
        progressNanos = ctx.nowNanos;
        // Behind the applied point, not only the commit point: with coded values a replica may have
        // learned commits it could not apply yet, and peers that compacted those slots hold no shards.
        if (m.snapshotSlot() > Math.max(learner.appliedSlot(), snapshotTarget)
                && (snapshot == null || m.snapshotSlot() > snapshot.lastIncludedSlot())) {
            snapshotSource = m.from();
            snapshotTarget = m.snapshotSlot();
            snapshot = null;
            incoming.reset();
            requestSnapshot();
        }
        for (Entry entry : m.accepted()) {
            Check.state(entry.ballot().isBelow(ctx.ownBallot),
                    "promise for %s from node %d carries entry of ballot %s", ctx.ownBallot, m.from(), entry.ballot());
            merge(entry);
        }
        if (m.isLastPage()) {
            promisers |= bit;
            maybeFinish();
        } else {
            pageFrom[m.from()] = m.nextSlot();
            ctx.out.send(new Message.Prepare(ctx.self, m.from(), ctx.ownBallot, m.nextSlot()));
        }
    }

    /** A chunk of the snapshot this candidate asked a promiser for. */
    void onSnapshotChunk(Message.InstallSnapshot m) {
        if (ctx.role != Role.CANDIDATE || !m.ballot().equals(ctx.ownBallot) || m.from() != snapshotSource
                || snapshot != null) {
            return;
        }
        long before = incoming.nextOffset();
        Snapshot complete = incoming.offer(m);
        if (complete != null || incoming.nextOffset() > before) {
            progressNanos = ctx.nowNanos;
        }
        if (complete == null) {
            requestSnapshot();
        } else if (complete.lastIncludedSlot() >= snapshotTarget) {
            snapshot = complete;
            fewestFailures = Math.min(fewestFailures, learner.codingOf(complete).failures());
            noteMembership(learner.membershipOf(complete));
            maybeFinish();
        } else {
            requestSnapshot(); // Older than the promise said: ask for the current one.
        }
    }

    /** Our own promise is durable now: it counts toward the read quorum like any other. */
    void onOwnPromiseDurable() {
        selfPromised = true;
        // The Prepares left with this Ready: the peers' time to answer starts now.
        progressNanos = ctx.nowNanos;
        lastPrepareNanos = ctx.nowNanos;
        for (Entry entry : acceptor.entriesFrom(fromSlot)) {
            merge(entry);
        }
        maybeFinish();
    }

    /** Counts the F that the coding-change {@code entry} (of any ballot) would set. */
    private void noteCoding(Entry entry) {
        if (Coding.isChange(entry.command())) {
            fewestFailures = Math.min(fewestFailures, Coding.failuresAfter(entry.command()));
        }
        if (GroupMembership.isChange(entry.command())) {
            noteMembership(GroupMembership.of(entry.command()));
        }
    }

    private void noteMembership(GroupMembership membership) {
        if (!configurations.contains(membership)) {
            configurations.add(membership);
        }
    }

    /**
     * Whether the promisers (this candidate included) hold a read quorum of every configuration that may govern
     * a slot past the commit point (rule M3), or, under a negative control, of the applied one only (or the newest
     * in its log, Raft's rule).
     */
    private boolean hasReadQuorums(int fewest) {
        long promised = promisers | (1L << ctx.self);
        MembershipGuards guards = ctx.membershipGuards;
        if (!guards.phase1ReadsEveryConfiguration || !guards.oneChosenChangeAtATime) {
            GroupMembership only = guards.oneChosenChangeAtATime ? ctx.membership : newestInOwnLog();
            return hasReadQuorum(only, promised, fewest);
        }
        for (GroupMembership membership : configurations) {
            if (!hasReadQuorum(membership, promised, fewest)) {
                return false;
            }
        }
        return true;
    }

    private boolean hasReadQuorum(GroupMembership membership, long promised, int fewest) {
        long counted = ctx.membershipGuards.learnersNeverCounted ? membership.voters() : membership.members();
        int voters = membership.voterCount();
        int needed = ctx.membershipGuards.codedReadQuorum ? quorum.phase1Quorum(voters, fewest) : voters / 2 + 1;
        return Long.bitCount(promised & counted) >= needed;
    }

    /** The newest membership in this replica's own log (the Raft-rule negative control's view). */
    private GroupMembership newestInOwnLog() {
        GroupMembership newest = ctx.membership;
        for (Entry entry : acceptor.entriesFrom(learner.appliedSlot() + 1)) {
            if (GroupMembership.isChange(entry.command())) {
                newest = GroupMembership.of(entry.command());
            }
        }
        return newest;
    }

    /** Keeps, per slot, the entry accepted in the highest ballot (Paxos Made Simple, §2.2). */
    private void merge(Entry entry) {
        if (entry.slot() < fromSlot) {
            return;
        }
        noteCoding(entry);
        if (entry.coded() != null && (entry.isComplete() || entry.coded().shard() != null)) {
            codedData.computeIfAbsent(entry.slot(), s -> new ArrayList<>()).add(entry);
        }
        Entry known = highest.get(entry.slot());
        if (known == null || entry.ballot().isAbove(known.ballot())) {
            highest.put(entry.slot(), entry);
        } else if (entry.ballot().equals(known.ballot())) {
            // One ballot proposes one value per slot; two different values would mean the
            // ballot was used by two proposers.
            Check.state(entry.sameValue(known), "two values accepted in ballot %s for slot %d", entry.ballot(),
                    entry.slot());
        }
    }

    /**
     * The whole command of the coded value {@code entry}, rebuilt from a full copy, the cache or at
     * least X intact shards of it among the promises; null if it cannot be rebuilt here.
     */
    private Command rebuild(Entry entry) {
        Command cached = ctx.cache.get(entry);
        if (cached != null) {
            return cached;
        }
        List<byte[]> shards = new ArrayList<>();
        for (Entry data : codedData.getOrDefault(entry.slot(), List.of())) {
            if (!data.sameValue(entry)) {
                continue;
            }
            if (data.isComplete()) {
                return data.command();
            }
            shards.add(data.coded().shard());
        }
        byte[] value = ctx.coding.decoder().rebuild(entry.coded(), shards);
        return value == null ? null : new Command(entry.command().clientId(), entry.command().sequence(), value);
    }

    private void maybeFinish() {
        if (ctx.role != Role.CANDIDATE || !selfPromised) {
            return;
        }
        int fewest = ctx.coding.stalePhase1Quorum() ? ctx.coding.failures() : fewestFailures;
        if (!hasReadQuorums(fewest) || (snapshotSource >= 0 && snapshot == null)) {
            return;
        }
        if (snapshot != null && snapshot.lastIncludedSlot() > learner.appliedSlot()) {
            learner.installSnapshot(snapshot);
        }
        long commitSlot = learner.commitSlot();
        long maxSlot = highest.isEmpty() ? commitSlot : Math.max(commitSlot, highest.lastKey());
        ctx.role = Role.LEADER;
        ctx.leaderHint = ctx.self;
        leader.start();
        // Re-propose, in our ballot, the highest-ballot value of every slot past the commit
        // point that any promiser accepted; fill the gaps with no-ops.
        for (long slot = commitSlot + 1; slot <= maxSlot; slot++) {
            Entry chosenCandidate = highest.get(slot);
            Command command = chosenCandidate == null ? Command.NOOP : chosenCandidate.command();
            long appended;
            if (chosenCandidate != null && !chosenCandidate.isComplete()) {
                command = rebuild(chosenCandidate);
                if (command == null && ctx.coding.reproposesUnrebuildable()) {
                    appended = leader.appendStub(chosenCandidate); // The negative control's bug.
                    Check.state(appended == slot, "leader re-proposes slot %d but appended %d", slot, appended);
                    continue;
                }
                if (command == null) {
                    command = Command.NOOP; // Fewer than X shards: not chosen, may be replaced (§4).
                }
            }
            if (chosenCandidate == null || command.isNoop()) {
                appended = leader.append(command, chosenCandidate == null ? null : chosenCandidate.stamp(), 1);
            } else {
                // Re-proposed in the form it was accepted in: plain, or coded with its own X (§4.6).
                appended = leader.append(command, chosenCandidate.stamp(),
                        chosenCandidate.coded() == null ? 1 : chosenCandidate.coded().dataShards());
            }
            Check.state(appended == slot, "leader re-proposes slot %d but appended %d", slot, appended);
            if (!command.isNoop() && !Coding.isChange(command) && !GroupMembership.isChange(command)) {
                clients.awaitIfPending(command);
            }
        }
        clear();
        ctx.leases.onLeading(commitSlot, maxSlot);
        leader.drainPendingProposals();
    }
}
