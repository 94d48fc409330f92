package io.synod.core.paxos;

/**
 * Serves snapshot chunks to peers: the leader to followers behind its compaction point, an
 * acceptor to a candidate that needs its snapshot in phase 1. Each peer's transfer keeps the
 * snapshot it started with, so a transfer survives the sender taking a newer snapshot meanwhile
 * (unless the runtime dropped the old one's state: then it starts over with the current one).
 * Chunks are read from the snapshot's {@link SnapshotSource} at their offset; the whole snapshot
 * is never materialized here.
 */
final class SnapshotSender {
    private final ReplicaContext ctx;
    private final Acceptor acceptor;
    private final long[] slot;
    private final Snapshot[] held;
    private final long[] lastOffset;

    SnapshotSender(ReplicaContext ctx, Acceptor acceptor) {
        this.ctx = ctx;
        this.acceptor = acceptor;
        this.slot = new long[ctx.clusterSize];
        this.held = new Snapshot[ctx.clusterSize];
        this.lastOffset = new long[ctx.clusterSize];
    }

    /**
     * Sends {@code peer} the chunk at {@code offset} of the snapshot at {@code wantedSlot} if its
     * transfer still holds that snapshot, else the first chunk of the current snapshot. Returns the
     * slot of the snapshot being sent.
     */
    long send(int peer, Ballot ballot, long wantedSlot, long offset) {
        if (held[peer] != null && !held[peer].stateMachine().isAvailable()) {
            held[peer] = null; // The runtime dropped that snapshot's state: start over with the current one.
        }
        if (held[peer] == null || slot[peer] != wantedSlot || offset < 0 || offset >= held[peer].transferSize()) {
            Snapshot current = acceptor.snapshot();
            if (held[peer] == null || slot[peer] != current.lastIncludedSlot()) {
                slot[peer] = current.lastIncludedSlot();
                held[peer] = current;
            }
            if (slot[peer] != wantedSlot || offset < 0 || offset >= held[peer].transferSize()) {
                offset = 0;
            }
        }
        Snapshot snapshot = held[peer];
        long total = snapshot.transferSize();
        ctx.out.send(new Message.InstallSnapshot(ctx.self, peer, ballot, slot[peer], total, offset,
                snapshot.readTransfer(offset, ctx.config.snapshotChunkBytes())));
        lastOffset[peer] = offset;
        return slot[peer];
    }

    /**
     * Catch-up of {@code peer}, which misses slot {@code neededSlot}: re-sends (after a silence) the
     * chunk it last asked for if its transfer covers that slot, else starts a transfer of the current
     * snapshot. Returns the slot of the snapshot being sent.
     */
    long resumeOrStart(int peer, Ballot ballot, long neededSlot) {
        if (held[peer] != null && slot[peer] >= neededSlot) {
            return send(peer, ballot, slot[peer], lastOffset[peer]);
        }
        forget(peer);
        return send(peer, ballot, -1, 0);
    }

    /** The transfer to {@code peer} is finished or abandoned: drop its reference. */
    void forget(int peer) {
        held[peer] = null;
        lastOffset[peer] = 0;
    }
}
