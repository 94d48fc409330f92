package io.synod.core.paxos;

import io.synod.core.util.Check;
import java.util.Arrays;
import java.util.List;

/**
 * Catch-up, run by the leader: it tracks how far each peer has applied (from Accepted and
 * heartbeat replies) and sends a peer that lags the committed entries it misses, in bounded
 * batches re-proposed in the leader's ballot, or its snapshot in bounded chunks when those entries
 * were compacted. One batch (or one snapshot chunk) per peer is in flight at a time; after the
 * retransmission interval without progress it is sent again, and a snapshot transfer resumes at
 * the offset the follower last asked for.
 *
 * <p>Re-sending a chosen value in a new ballot is safe: a chosen value is the only one any later
 * phase 1 can pick for its slot (Paxos Made Simple §2.2, P2c).
 */
final class CatchUp {
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

    CatchUp(ReplicaContext ctx, Acceptor acceptor, Learner learner, SnapshotSender snapshots) {
        this.ctx = ctx;
        this.acceptor = acceptor;
        this.learner = learner;
        this.snapshots = snapshots;
        this.incoming = new SnapshotReceiver(learner.stateMachine());
        this.appliedSlot = new long[ctx.clusterSize];
        this.sentThroughSlot = new long[ctx.clusterSize];
        this.deadlineNanos = new long[ctx.clusterSize];
        this.lastSentNanos = new long[ctx.clusterSize];
    }

    /** A new leadership: nothing is known about the peers yet. */
    void reset() {
        Arrays.fill(appliedSlot, 0);
        Arrays.fill(sentThroughSlot, 0);
        Arrays.fill(deadlineNanos, 0);
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
        appliedSlot[peer] = Math.max(appliedSlot[peer], peerApplied);
        long from = appliedSlot[peer] + 1;
        long commitSlot = learner.commitSlot();
        if (from > commitSlot) {
            return;
        }
        boolean previousBatchLearned = appliedSlot[peer] >= sentThroughSlot[peer];
        if (!previousBatchLearned && ctx.nowNanos < deadlineNanos[peer]) {
            return; // A catch-up batch is on its way; don't flood a slow follower.
        }
        deadlineNanos[peer] = ctx.nowNanos + ctx.config.retransmitIntervalNanos();
        if (acceptor.entry(from) == null) {
            Check.state(from <= acceptor.snapshot().lastIncludedSlot(),
                    "node %d: slot %d is neither in the log nor in the snapshot", ctx.self, from);
            sentThroughSlot[peer] = snapshots.resumeOrStart(peer, ctx.ownBallot, from);
            sentTo(peer);
            return;
        }
        snapshots.forget(peer);
        EntryBatch batch = new EntryBatch(ctx.config);
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
