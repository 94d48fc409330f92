package io.synod.core.paxos;

import java.util.Arrays;

/**
 * Serves snapshot chunks to peers: the leader to followers behind its compaction point, an
 * acceptor to a candidate that needs its snapshot in phase 1. Each peer's transfer keeps the
 * encoded snapshot it started with, so a transfer survives the sender taking a newer snapshot
 * meanwhile (at most one encoded snapshot per peer is held).
 */
final class SnapshotSender {
    private final ReplicaContext ctx;
    private final Acceptor acceptor;
    private final long[] slot;
    private final byte[][] encoded;
    private final long[] lastOffset;

    SnapshotSender(ReplicaContext ctx, Acceptor acceptor) {
        this.ctx = ctx;
        this.acceptor = acceptor;
        this.slot = new long[ctx.clusterSize];
        this.encoded = new byte[ctx.clusterSize][];
        this.lastOffset = new long[ctx.clusterSize];
    }

    /**
     * Sends {@code peer} the chunk at {@code offset} of the snapshot at {@code wantedSlot} if its
     * transfer still holds that snapshot, else the first chunk of the current snapshot. Returns the
     * slot of the snapshot being sent.
     */
    long send(int peer, Ballot ballot, long wantedSlot, long offset) {
        if (encoded[peer] == null || slot[peer] != wantedSlot || offset < 0 || offset >= encoded[peer].length) {
            Snapshot current = acceptor.snapshot();
            if (encoded[peer] == null || slot[peer] != current.lastIncludedSlot()) {
                slot[peer] = current.lastIncludedSlot();
                encoded[peer] = acceptor.encodedSnapshot();
            }
            if (slot[peer] != wantedSlot || offset < 0 || offset >= encoded[peer].length) {
                offset = 0;
            }
        }
        byte[] bytes = encoded[peer];
        int from = (int) offset;
        int to = (int) Math.min(bytes.length, offset + ctx.config.snapshotChunkBytes());
        ctx.out.send(new Message.InstallSnapshot(ctx.self, peer, ballot, slot[peer], bytes.length, offset,
                Arrays.copyOfRange(bytes, from, to)));
        lastOffset[peer] = offset;
        return slot[peer];
    }

    /**
     * Catch-up of {@code peer}, which misses slot {@code neededSlot}: re-sends (after a silence) the
     * chunk it last asked for if its transfer covers that slot, else starts a transfer of the current
     * snapshot. Returns the slot of the snapshot being sent.
     */
    long resumeOrStart(int peer, Ballot ballot, long neededSlot) {
        if (encoded[peer] != null && slot[peer] >= neededSlot) {
            return send(peer, ballot, slot[peer], lastOffset[peer]);
        }
        forget(peer);
        return send(peer, ballot, -1, 0);
    }

    /** The transfer to {@code peer} is finished or abandoned: drop its copy. */
    void forget(int peer) {
        encoded[peer] = null;
        lastOffset[peer] = 0;
    }
}
