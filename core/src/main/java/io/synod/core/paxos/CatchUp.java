package io.synod.core.paxos;

import io.synod.core.util.Check;
import java.util.Arrays;
import java.util.List;

/**
 * Catch-up, run by the leader: it tracks how far each peer has applied (from Accepted and
 * heartbeat replies) and sends a peer that lags the committed entries it misses, in bounded
 * batches re-proposed in the leader's ballot, or its snapshot in bounded chunks when those entries
 * were compacted (a window of chunks in flight, {@link SnapshotSender}). After the retransmission
 * interval without progress a batch is sent again, and a snapshot transfer resumes at the offset the
 * follower last asked for.
 *
 * <p>Re-sending a chosen value in a new ballot is safe: a chosen value is the only one any later
 * phase 1 can pick for its slot (Paxos Made Simple §2.2, P2c).
 *
 * <p>A peer that lags only because it has not learned the commit point yet (typically an acceptor
 * outside the write quorum, whose Accepted arrives after the slot committed) already holds every
 * slot it misses, accepted in this leader's ballot: it is sent the commit point alone (a
 * Heartbeat), not the values again, whether full copies or coded. It takes those slots as chosen by
 * the usual rule (its entry there is in this leader's ballot, {@link Learner#learnCommit}), so this
 * changes no safety argument. If the peer has still not applied them one retransmission interval
 * later, the entries themselves are sent as before. Likewise a slot whose Accept went to that peer
 * less than a retransmission interval ago is not re-sent as catch-up (the commit merely overtook the
 * peer's acknowledgement); it is, if that Accept was lost. A peer the Accept never went to (a learner
 * added after the slot was proposed: the leader sends the log only to the members in reach) gets the
 * slot as catch-up at once, not one retransmission interval late.
 */
final class CatchUp {
    /** Out-of-order acknowledgements remembered per peer (a power of two). */
    private static final int ACK_WINDOW = 1024;
    /**
     * Catch-up batches sent to a peer at once (a turn): each is one Accept of at most {@link ReplicaConfig#maxBatchBytes()}
     * and {@value #ACK_WINDOW} slots, and each commits the one before it at the peer (its commit point covers slots an
     * earlier Accept wrote, {@link Acceptor#trustedCommit}), so the peer writes and applies while the rest arrive. The
     * next turn leaves when the peer has accepted the whole of this one: one round trip per turn, not per batch.
     */
    static final int BATCHES_PER_TURN = 4;

    private final ReplicaContext ctx;
    private final Acceptor acceptor;
    private final Learner learner;
    private final SnapshotSender snapshots;
    /** Follower side: the snapshot being received from the leader. */
    private final SnapshotReceiver incoming;
    private final long[] appliedSlot;
    private final long[] sentThroughSlot;
    private final long[] deadlineNanos;
    /** When each peer last got anything from this leader (heartbeats are sent only to quiet peers). */
    private final long[] lastSentNanos;
    /**
     * Per peer, the highest slot t such that the peer acknowledged (in this leader's ballot) every
     * slot above what it reported applied, through t: it holds all of them.
     */
    private final long[] acceptedThroughSlot;
    /** Per peer, acknowledgements of slots above {@link #acceptedThroughSlot} (a ring bitmap of {@value #ACK_WINDOW} slots). */
    private final long[][] ackedAhead;
    /** When the leader last sent a slot as a proposal: a ring of {@value #ACK_WINDOW} slots and times. */
    private final long[] proposedSlot = new long[ACK_WINDOW];
    private final long[] proposedNanos = new long[ACK_WINDOW];
    /** The peers each slot of the ring went to as a proposal (bit per replica id). */
    private final long[] proposedTo = new long[ACK_WINDOW];
    /** Per peer, the commit point last sent alone (without entries) as its catch-up, 0 if none. */
    private final long[] commitOnlySentThrough;
    /** Per peer, {@link #acceptedThroughSlot} when catch-up last looked at it (a turn in flight progressing). */
    private final long[] acceptedThroughSeen;
    /**
     * Peers owed the commit point alone (bit per replica id), sent once when the step's Ready is taken
     * ({@link #sendOwedCommitPoints}) unless an Accept of that Ready already carried it. Sent at once, each
     * acknowledgement that found its slots committed cost a Heartbeat and its reply: with four groups on three nodes
     * they were 1.3 of 2.3 peer messages per write, more than the Accepts and Accepteds together (docs/bench-kv.md,
     * "Peer messages and per-write costs").
     */
    private long commitOwed;
    /** Per peer, the highest commit point a proposal's Accept carried to it since the last Ready was taken. */
    private final long[] commitCarried;

    CatchUp(ReplicaContext ctx, Acceptor acceptor, Learner learner, SnapshotSender snapshots) {
        this.ctx = ctx;
        this.acceptor = acceptor;
        this.learner = learner;
        this.snapshots = snapshots;
        this.incoming = new SnapshotReceiver(learner.appliedState());
        this.appliedSlot = new long[ctx.clusterSize];
        this.sentThroughSlot = new long[ctx.clusterSize];
        this.deadlineNanos = new long[ctx.clusterSize];
        this.lastSentNanos = new long[ctx.clusterSize];
        this.acceptedThroughSlot = new long[ctx.clusterSize];
        this.commitOnlySentThrough = new long[ctx.clusterSize];
        this.acceptedThroughSeen = new long[ctx.clusterSize];
        this.commitCarried = new long[ctx.clusterSize];
        Arrays.fill(commitCarried, -1);
        this.ackedAhead = new long[ctx.clusterSize][ACK_WINDOW / 64];
    }

    /** A new leadership: nothing is known about the peers yet. */
    void reset() {
        Arrays.fill(appliedSlot, 0);
        Arrays.fill(sentThroughSlot, 0);
        Arrays.fill(deadlineNanos, 0);
        Arrays.fill(acceptedThroughSlot, 0);
        Arrays.fill(commitOnlySentThrough, 0);
        Arrays.fill(acceptedThroughSeen, 0);
        for (long[] ahead : ackedAhead) {
            Arrays.fill(ahead, 0);
        }
        Arrays.fill(proposedSlot, 0);
        Arrays.fill(proposedTo, 0);
        Arrays.fill(commitCarried, -1);
        commitOwed = 0;
    }

    /**
     * {@code peer} has accepted slots it cannot learn yet (ReplicaGuard's commit-point rule: not from the Accept that
     * wrote them) and needs the commit point: it goes with this step's Ready, on an Accept or alone.
     */
    void oweCommitPoint(int peer) {
        commitOwed |= 1L << peer;
        sentTo(peer);
    }

    /**
     * A proposal's Accept to {@code peer} carries the commit point {@code commitSlot}: an owed commit point need not
     * go alone. The peer's Accepted comes back and is looked at again, so the last of a stream still gets its commit
     * point alone, and the Heartbeat's reply tells the leader how far the peer applied (M6 promotes a learner on it).
     * A Heartbeat of the tick does not count: its reply may report what the peer applied before it learned the
     * commit point, and only the owed one that follows tells the rest.
     */
    void carried(int peer, long commitSlot) {
        commitCarried[peer] = Math.max(commitCarried[peer], commitSlot);
    }

    boolean owesCommitPoints() {
        return commitOwed != 0;
    }

    /**
     * When the Ready is taken, after the step's Accepts: a Heartbeat with the commit point to each peer owed it that
     * no message of the step carried it to (as leader of the same ballot; a deposed leader owes nothing).
     */
    void sendOwedCommitPoints() {
        long owed = commitOwed;
        commitOwed = 0;
        if (owed != 0 && ctx.role == Role.LEADER) {
            long commitSlot = learner.commitSlot();
            for (int peer = 0; peer < ctx.clusterSize; peer++) {
                if ((owed & (1L << peer)) != 0 && commitCarried[peer] < commitSlot) {
                    ctx.out.send(new Message.Heartbeat(ctx.self, peer, ctx.ownBallot, commitSlot));
                }
            }
        }
        Arrays.fill(commitCarried, -1);
    }

    /**
     * {@code peer} acknowledged {@code slots} in this leader's ballot (an Accepted): it accepted each
     * of them in this ballot, or already knew it committed; it had applied through {@code peerApplied}.
     * Extends the run of slots it holds. Acknowledgements may arrive out of order: those up to
     * {@value #ACK_WINDOW} slots ahead of the run are remembered in a bitmap until the gap closes.
     */
    void onPeerAccepted(int peer, long[] slots, long peerApplied) {
        noticeWentBack(peer, peerApplied);
        long[] ahead = ackedAhead[peer];
        long through = acceptedThroughSlot[peer];
        long floor = Math.max(appliedSlot[peer], peerApplied);
        if (floor > through) {
            forget(ahead, through, floor);
            through = floor;
        }
        for (long slot : slots) {
            if (slot > through && slot <= through + ACK_WINDOW) {
                ahead[(int) ((slot & (ACK_WINDOW - 1)) >>> 6)] |= 1L << slot;
            }
        }
        while (true) {
            long next = through + 1;
            int word = (int) ((next & (ACK_WINDOW - 1)) >>> 6);
            if ((ahead[word] & (1L << next)) == 0) {
                break;
            }
            ahead[word] &= ~(1L << next);
            through = next;
        }
        acceptedThroughSlot[peer] = through;
    }

    /**
     * A peer reports having applied less than it reported before: it restarted, and its state machine
     * was rebuilt from its snapshot, below what it had applied. Its log may still hold the slots above,
     * but accepted in older ballots, which this leader's commit point alone cannot make it apply
     * ({@link Learner#learnCommit}); taking the highest report ever seen would leave it there for as
     * long as this leader leads. So once no catch-up batch is awaited (a reply reordered behind a newer
     * one looks the same, and is believed only then: it costs one batch sent again), what the leader
     * knew of the peer is forgotten and catch-up starts again from the reported slot.
     */
    private void noticeWentBack(int peer, long peerApplied) {
        if (peerApplied >= appliedSlot[peer] || ctx.nowNanos < deadlineNanos[peer]) {
            return;
        }
        appliedSlot[peer] = peerApplied;
        sentThroughSlot[peer] = peerApplied;
        acceptedThroughSlot[peer] = peerApplied;
        Arrays.fill(ackedAhead[peer], 0);
        commitOnlySentThrough[peer] = 0;
    }

    /** Clears the bits of slots (from, to] in a peer's acknowledgement bitmap. */
    private static void forget(long[] ahead, long from, long to) {
        if (to - from >= ACK_WINDOW) {
            Arrays.fill(ahead, 0);
            return;
        }
        for (long slot = from + 1; slot <= to; slot++) {
            ahead[(int) ((slot & (ACK_WINDOW - 1)) >>> 6)] &= ~(1L << slot);
        }
    }

    /** How far {@code peer} reported it applied, in this leadership (0 until it answered). */
    long peerAppliedSlot(int peer) {
        return appliedSlot[peer];
    }

    /** The leader sent {@code slot} to {@code peer} as a proposal (new, or retransmitted) now. */
    void proposalSent(long slot, int peer) {
        int index = (int) (slot & (ACK_WINDOW - 1));
        if (proposedSlot[index] != slot) {
            proposedSlot[index] = slot;
            proposedTo[index] = 0;
        }
        proposedTo[index] |= 1L << peer;
        proposedNanos[index] = ctx.nowNanos;
    }

    /** Whether {@code slot}'s Accept went to {@code peer} less than a retransmission interval ago. */
    private boolean recentlyProposedTo(long slot, int peer) {
        int index = (int) (slot & (ACK_WINDOW - 1));
        return proposedSlot[index] == slot && (proposedTo[index] & (1L << peer)) != 0
                && ctx.nowNanos - proposedNanos[index] < ctx.config.retransmitIntervalNanos();
    }

    void sentTo(int peer) {
        lastSentNanos[peer] = ctx.nowNanos;
    }

    boolean isQuiet(int peer) {
        return ctx.nowNanos - lastSentNanos[peer] >= ctx.config.heartbeatIntervalNanos();
    }

    /** {@code peer} reports, in {@code ballot}, that it applied through {@code peerApplied}. */
    void onPeerApplied(int peer, Ballot ballot, long peerApplied) {
        if (ctx.role != Role.LEADER || !ballot.equals(ctx.ownBallot)) {
            return;
        }
        noticeWentBack(peer, peerApplied);
        appliedSlot[peer] = Math.max(appliedSlot[peer], peerApplied);
        long from = appliedSlot[peer] + 1;
        long commitSlot = learner.commitSlot();
        if (from > commitSlot) {
            return;
        }
        boolean previousBatchLearned = appliedSlot[peer] >= sentThroughSlot[peer];
        // It accepted the whole batch of values but has not learned it: a follower takes no commit point from the
        // Accept that wrote a slot (ReplicaGuard, docs/security.md), so the commit point goes now, not a
        // retransmission interval later (which would halve the catch-up rate).
        boolean batchAccepted = !previousBatchLearned && commitOnlySentThrough[peer] < sentThroughSlot[peer]
                && Math.min(commitSlot, acceptedThroughSlot[peer]) >= sentThroughSlot[peer];
        if (acceptedThroughSlot[peer] > acceptedThroughSeen[peer] && acceptedThroughSlot[peer] <= sentThroughSlot[peer]) {
            // The peer accepted more of the turn in flight: it is being received, not lost. Its later batches are not
            // sent again while the earlier ones are still being written.
            deadlineNanos[peer] = Math.max(deadlineNanos[peer], ctx.nowNanos + ctx.config.retransmitIntervalNanos());
        }
        acceptedThroughSeen[peer] = acceptedThroughSlot[peer];
        boolean expired = ctx.nowNanos >= deadlineNanos[peer];
        if (!previousBatchLearned && !batchAccepted && !expired) {
            return; // A catch-up batch is on its way; don't flood a slow follower.
        }
        deadlineNanos[peer] = ctx.nowNanos + ctx.config.retransmitIntervalNanos();
        long held = Math.min(commitSlot, acceptedThroughSlot[peer]);
        // A commit point sent alone failed if the peer has not applied it a retransmission interval later. Before
        // that, a batch accepted while the commit point of the previous one is still being applied is the pipeline
        // working, not a failure.
        boolean commitOnlyFailed = !previousBatchLearned && commitOnlySentThrough[peer] >= from && expired;
        if (held >= from && !commitOnlyFailed) {
            // It has the values it misses (through `held`), in this ballot: the commit point is all it needs.
            commitOnlySentThrough[peer] = held;
            sentThroughSlot[peer] = held;
            oweCommitPoint(peer);
            if (held < commitSlot && !recentlyProposedTo(held + 1, peer) && inLog(held + 1)) {
                // Still behind (a learner catching up): its next turn goes with this commit point, so its disk
                // writes the next batches while it applies these, one round trip per turn instead of two.
                sendTurn(peer, held + 1, commitSlot);
            }
            return;
        }
        if (!commitOnlyFailed && recentlyProposedTo(from, peer)) {
            // The Accept of its first missing slot left for it less than a retransmission interval ago (the
            // commit overtook this peer's acknowledgement): its Accepted will come; don't send the value twice.
            return;
        }
        commitOnlySentThrough[peer] = 0;
        if (!inLog(from)) {
            Check.state(from <= acceptor.snapshot().lastIncludedSlot(),
                    "node %d: slot %d is neither in the log nor in the snapshot", ctx.self, from);
            sentThroughSlot[peer] = snapshots.resumeOrStart(peer, ctx.ownBallot, from);
            sentTo(peer);
            return;
        }
        snapshots.forget(peer);
        sendTurn(peer, from, commitSlot);
    }

    /** Sends {@code peer} up to {@value #BATCHES_PER_TURN} batches of the committed entries from {@code from} (in the log). */
    private void sendTurn(int peer, long from, long commitSlot) {
        sendBatch(peer, from, commitSlot);
        for (int batch = 1; batch < BATCHES_PER_TURN; batch++) {
            long next = sentThroughSlot[peer] + 1;
            if (next > commitSlot || !inLog(next)) {
                return;
            }
            sendBatch(peer, next, commitSlot);
        }
    }

    /** Whether catch-up can send {@code slot} from the log (else the peer needs the snapshot). */
    private boolean inLog(long slot) {
        // With deferred rebuild the log keeps one more snapshot interval (Learner#takeSnapshot) only so
        // that peers find shards to rebuild from; a follower behind the usual compaction point still
        // catches up from the snapshot, as it would without deferral.
        long compacted = ctx.coding.defersRebuild()
                ? acceptor.snapshot().lastIncludedSlot() - ctx.config.logRetainSlots() : 0;
        return acceptor.entry(slot) != null && slot > compacted;
    }

    /**
     * Sends {@code peer} the committed entries from {@code from} (in the log) in one Accept, re-proposed in this
     * leader's ballot. A catch-up batch is bounded by {@link ReplicaConfig#maxBatchBytes()} and by the
     * acknowledgements remembered per peer ({@value #ACK_WINDOW} slots), not by the entry count of a proposal batch:
     * small values would otherwise take many more round trips than their bytes need.
     */
    private void sendBatch(int peer, long from, long commitSlot) {
        EntryBatch batch = new EntryBatch(ACK_WINDOW, ctx.config.maxBatchBytes());
        boolean farBehind = commitSlot - appliedSlot[peer] > ctx.config.maxBatchEntries();
        for (long slot = from; slot <= commitSlot; slot++) {
            Entry entry = acceptor.entry(slot);
            if (entry != null && entry.coded() != null) {
                // A chosen coded value goes as its metadata only: a follower that holds a shard of it
                // keeps that shard (Acceptor#accept), and one that must apply it without being able
                // to rebuild it does a recovery read (RS-Paxos §4), so catch-up costs no value bytes.
                // A follower more than a batch behind gets full copies from the cache instead (a full
                // copy counts as every shard), so it does not pay a recovery round trip per batch.
                Command full = farBehind && !entry.isComplete() ? ctx.cache.get(entry) : null;
                entry = full != null ? entry.complete(full) : entry.isComplete() && farBehind ? entry : entry.stub(null);
            }
            if (entry == null || !batch.tryAdd(entry.withBallot(ctx.ownBallot))) {
                break;
            }
        }
        List<Entry> entries = batch.take();
        sentThroughSlot[peer] = entries.get(entries.size() - 1).slot();
        // Not counted as carrying the commit point (carried): a peer catching up learns from it but reports what it
        // applied only in a Heartbeat's reply, which the leader needs to know it caught up (M6 promotes on it).
        ctx.out.send(new Message.Accept(ctx.self, peer, ctx.ownBallot, entries, commitSlot));
        sentTo(peer);
    }

    /** Leader side: {@code peer} asked for a snapshot chunk, which was sent; the transfer is progressing. */
    void onSnapshotChunkSent(int peer, Ballot ballot, long snapshotSlot) {
        if (ctx.role != Role.LEADER || !ballot.equals(ctx.ownBallot)) {
            return;
        }
        deadlineNanos[peer] = ctx.nowNanos + ctx.config.retransmitIntervalNanos();
        sentThroughSlot[peer] = snapshotSlot;
        sentTo(peer);
    }

    /**
     * Follower side: a chunk of the leader's snapshot. The follower asks for the next chunk, and
     * installs the snapshot once complete if it moves this replica forward; then it reports how far
     * it applied.
     */
    void onSnapshotChunk(Message.InstallSnapshot m) {
        if (m.lastIncludedSlot() > learner.appliedSlot()) {
            Snapshot complete = incoming.offer(m);
            if (complete == null) {
                ctx.out.send(new Message.SnapshotRequest(ctx.self, m.from(), m.ballot(), incoming.slot(), incoming.nextOffset()));
                return;
            }
            learner.installSnapshot(complete);
        } else {
            incoming.reset();
        }
        ctx.out.send(new Message.HeartbeatReply(ctx.self, m.from(), m.ballot(), learner.appliedSlot()));
    }
}
