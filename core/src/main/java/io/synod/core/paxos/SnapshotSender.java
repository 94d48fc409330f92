package io.synod.core.paxos;

/**
 * Serves snapshot chunks to peers: the leader to followers behind its compaction point, an
 * acceptor to a candidate that needs its snapshot in phase 1. Each peer's transfer keeps the
 * snapshot it started with, so a transfer survives the sender taking a newer snapshot meanwhile
 * (unless the runtime dropped the old one's state: then it starts over with the current one).
 * Chunks are read from the snapshot's {@link SnapshotSource} at their offset; the whole snapshot
 * is never materialized here.
 *
 * <p><b>A window of chunks.</b> Up to {@value #WINDOW_CHUNKS} chunks beyond the offset the receiver
 * last asked for are in flight: each request (the receiver asks for its next offset after every
 * chunk it gets) lets the chunks up to that offset plus the window leave. With one chunk in flight
 * a transfer paid a round trip per 256 KiB (80 MiB of 8 KiB values took 320 of them); the receiver
 * writes each chunk as it comes either way. The memory this costs is bounded by the window on both
 * sides (chunks queued to the link; the receiver stores only the next one). A lost or reordered
 * chunk makes the receiver ask for the same offset again (it stores chunks in order only): the
 * sender then goes back and sends the window again from there, once per offset until a
 * retransmission interval passes, so the further repeats caused by the chunks already in flight
 * behind the lost one do not each send the window again. After a silence the sender first asks
 * where the receiver stands (an empty chunk, {@link #resumeOrStart}) rather than send the window
 * again from the last offset it heard of: the requests may have been lost, not the chunks.
 */
final class SnapshotSender {
    /** Chunks in flight per transfer beyond the one asked for (1 MiB at the default 256 KiB chunks). */
    static final int WINDOW_CHUNKS = 4;

    private final ReplicaContext ctx;
    private final Acceptor acceptor;
    private final long[] slot;
    private final Snapshot[] held;
    /** Per peer, the offset it last asked for (it holds every byte below). */
    private final long[] asked;
    /** Per peer, where the chunks sent so far in this transfer end. */
    private final long[] sentEnd;
    /** Per peer, the offset the window was last sent again from, and when (-1: never). */
    private final long[] wentBackFrom;
    private final long[] wentBackNanos;

    SnapshotSender(ReplicaContext ctx, Acceptor acceptor) {
        this.ctx = ctx;
        this.acceptor = acceptor;
        this.slot = new long[ctx.clusterSize];
        this.held = new Snapshot[ctx.clusterSize];
        this.asked = new long[ctx.clusterSize];
        this.sentEnd = new long[ctx.clusterSize];
        this.wentBackFrom = new long[ctx.clusterSize];
        this.wentBackNanos = new long[ctx.clusterSize];
    }

    /**
     * {@code peer} asks for the chunk at {@code offset} of the snapshot at {@code wantedSlot}: if its transfer still
     * holds that snapshot, the chunks from there up to the window that have not left yet are sent (the window again
     * from {@code offset} if it asks for an offset it asked for before: a chunk was lost), else the first chunks of the
     * current snapshot. Returns the slot of the snapshot being sent.
     */
    long send(int peer, Ballot ballot, long wantedSlot, long offset) {
        if (held[peer] != null && !held[peer].stateMachine().isAvailable()) {
            held[peer] = null; // The runtime dropped that snapshot's state: start over with the current one.
        }
        if (held[peer] == null || slot[peer] != wantedSlot || offset < 0 || offset >= held[peer].transferSize()) {
            Snapshot current = acceptor.snapshot();
            if (held[peer] == null || slot[peer] != current.lastIncludedSlot()) {
                start(peer, current);
            }
            if (slot[peer] != wantedSlot || offset < 0 || offset >= held[peer].transferSize()) {
                offset = 0;
            }
        }
        if (offset > asked[peer]) {
            asked[peer] = offset; // Progress: the window slides.
        } else if (offset == wentBackFrom[peer]
                && ctx.nowNanos - wentBackNanos[peer] < ctx.config.retransmitIntervalNanos()) {
            return slot[peer]; // A repeat caused by a chunk already in flight behind a lost one: sent again already.
        } else {
            goBack(peer, offset);
        }
        sendWindow(peer, ballot);
        return slot[peer];
    }

    /** A new transfer of {@code snapshot} to {@code peer}: nothing sent or asked yet. */
    private void start(int peer, Snapshot snapshot) {
        slot[peer] = snapshot.lastIncludedSlot();
        held[peer] = snapshot;
        asked[peer] = 0;
        sentEnd[peer] = 0;
        wentBackFrom[peer] = -1;
    }

    /** Sends the window again from {@code offset} (what the peer holds): what was in flight is taken as lost. */
    private void goBack(int peer, long offset) {
        asked[peer] = offset;
        sentEnd[peer] = offset;
        wentBackFrom[peer] = offset;
        wentBackNanos[peer] = ctx.nowNanos;
    }

    /** Sends the chunks from where the last sent one ended up to {@value #WINDOW_CHUNKS} chunks past the asked offset. */
    private void sendWindow(int peer, Ballot ballot) {
        Snapshot snapshot = held[peer];
        long total = snapshot.transferSize();
        int chunkBytes = ctx.config.snapshotChunkBytes();
        long windowEnd = Math.min(total, asked[peer] + (long) WINDOW_CHUNKS * chunkBytes);
        long at = Math.max(sentEnd[peer], asked[peer]);
        while (at < windowEnd) {
            byte[] chunk = snapshot.readTransfer(at, chunkBytes);
            ctx.out.send(new Message.InstallSnapshot(ctx.self, peer, ballot, slot[peer], total, at, chunk));
            at += chunk.length;
        }
        sentEnd[peer] = Math.max(sentEnd[peer], at);
    }

    /**
     * Catch-up of {@code peer}, which misses slot {@code neededSlot}, after a silence: if its transfer covers that slot,
     * asks where it stands with an empty chunk at the offset it last asked for (it answers with the offset it needs,
     * {@link SnapshotReceiver#offer}; its requests for the chunks that arrived may have been lost, so it may hold more
     * than it asked for), and the window leaves from there; else starts a transfer of the current snapshot. Returns the
     * slot of the snapshot being sent.
     */
    long resumeOrStart(int peer, Ballot ballot, long neededSlot) {
        if (held[peer] != null && slot[peer] >= neededSlot && held[peer].stateMachine().isAvailable()) {
            sentEnd[peer] = asked[peer];
            wentBackFrom[peer] = -1; // Its answer, even the offset it asked for last, sends the window.
            ctx.out.send(new Message.InstallSnapshot(ctx.self, peer, ballot, slot[peer], held[peer].transferSize(),
                    asked[peer], new byte[0]));
            return slot[peer];
        }
        forget(peer);
        return send(peer, ballot, -1, 0);
    }

    /** The transfer to {@code peer} is finished or abandoned: drop its reference. */
    void forget(int peer) {
        held[peer] = null;
        asked[peer] = 0;
        sentEnd[peer] = 0;
        wentBackFrom[peer] = -1;
    }
}
