package io.synod.core.paxos;

import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The recovery read (RS-Paxos, Mu et al. 2014, §4): a replica that must apply a committed coded
 * value it cannot rebuild locally (it holds one shard, or none, and the value is not in its
 * {@link ValueCache}) asks every peer for what it holds of that slot, collects shards of exactly
 * that value (same client id, sequence, length and checksum as its own committed entry), rebuilds
 * the value once X intact ones arrived (the {@link ShardDecoder} checks each shard's CRC32C and the
 * value's), and caches it; applying then continues. The first round asks only as many peers as
 * shards are missing (the next ones after this replica, so the load spreads); unanswered requests
 * are repeated every retransmission interval to every peer, asking for a whole copy as well.
 * At most one slot is recovered at a time: slots are applied in order. If a peer already compacted
 * the slot into its snapshot (it applied it), the shards there are gone and this replica fetches
 * that snapshot in chunks instead, like a lagging follower would.
 */
final class Recovery {
    private final ReplicaContext ctx;
    private final Acceptor acceptor;
    /** The committed coded entry being recovered, or null. */
    private Entry wanted;
    private final List<byte[]> shards = new ArrayList<>();
    private long lastAskNanos;
    private int rounds;
    /** The peer whose snapshot is being fetched (it compacted the wanted slot), or -1. */
    private int snapshotSource = -1;
    private long snapshotSlot;
    private final SnapshotReceiver incoming = new SnapshotReceiver();

    Recovery(ReplicaContext ctx, Acceptor acceptor) {
        this.ctx = ctx;
        this.acceptor = acceptor;
    }

    /** Applying is stuck at {@code entry}, which is coded and not complete here: recover it. */
    void need(Entry entry) {
        if (wanted != null && wanted.slot() == entry.slot() && wanted.sameValue(entry)) {
            return;
        }
        wanted = entry;
        shards.clear();
        rounds = 0;
        if (entry.coded().shard() != null) {
            shards.add(entry.coded().shard());
        }
        ask();
    }

    /** Nothing to recover any more (the slot was applied, or a snapshot moved past it). */
    void clear() {
        wanted = null;
        shards.clear();
        snapshotSource = -1;
        incoming.reset();
    }

    void tick() {
        if (wanted != null && ctx.nowNanos - lastAskNanos >= ctx.config.retransmitIntervalNanos()) {
            if (snapshotSource >= 0) {
                lastAskNanos = ctx.nowNanos;
                requestSnapshotChunk();
            }
            ask();
        }
    }

    private void requestSnapshotChunk() {
        long slot = incoming.slot() >= 0 ? incoming.slot() : snapshotSlot;
        ctx.out.send(new Message.SnapshotRequest(ctx.self, snapshotSource, acceptor.promised(), slot, incoming.nextOffset()));
    }

    /**
     * A chunk of the snapshot this recovery fetches; returns the snapshot once complete (the learner
     * installs it), else null. Returns null and takes nothing if the chunk is not for this recovery.
     */
    Snapshot onSnapshotChunk(Message.InstallSnapshot m) {
        Snapshot complete = incoming.offer(m);
        if (complete == null) {
            requestSnapshotChunk();
            return null;
        }
        snapshotSource = -1;
        return complete;
    }

    /** Whether {@code m} belongs to a snapshot fetch of this recovery. */
    boolean fetchesSnapshotFrom(Message.InstallSnapshot m) {
        // A candidate's own phase 1 snapshot fetch comes first (Phase1 takes those chunks).
        return wanted != null && snapshotSource == m.from() && ctx.role != Role.CANDIDATE
                && m.ballot().equals(acceptor.promised());
    }

    private void ask() {
        lastAskNanos = ctx.nowNanos;
        rounds++;
        int asks = rounds == 1 ? Math.max(1, wanted.coded().dataShards() - shards.size()) : ctx.clusterSize - 1;
        for (int i = 1; i <= asks; i++) {
            int peer = (ctx.self + i) % ctx.clusterSize;
            ctx.out.send(new Message.ShardRequest(ctx.self, peer, acceptor.promised(), wanted.slot(), rounds > 1));
        }
    }

    /** A peer's answer; returns true once the wanted value is rebuilt and cached. */
    boolean onReply(Message.ShardReply m) {
        Entry got = m.entry();
        if (wanted != null && got == null && m.snapshotSlot() >= wanted.slot() && snapshotSource < 0) {
            snapshotSource = m.from();
            snapshotSlot = m.snapshotSlot();
            incoming.reset();
            requestSnapshotChunk();
            return false;
        }
        if (wanted == null || got == null || got.slot() != wanted.slot() || !got.sameValue(wanted)) {
            return false; // Late, or a shard of another value accepted in that slot.
        }
        byte[] value;
        if (got.isComplete()) {
            CRC32C crc = new CRC32C();
            crc.update(got.command().payload());
            value = (int) crc.getValue() == wanted.coded().valueChecksum() ? got.command().payload() : null;
        } else if (got.coded().shard() != null) {
            shards.add(got.coded().shard());
            value = ctx.coding.decoder().rebuild(wanted.coded(), shards);
        } else {
            value = null;
        }
        if (value == null) {
            return false;
        }
        ctx.cache.put(wanted.slot(), new Command(wanted.command().clientId(), wanted.command().sequence(), value),
                wanted.coded());
        clear();
        return true;
    }

    /** Answers a peer's recovery read with what this replica holds of the slot: its shard, or a whole copy. */
    void onRequest(Message.ShardRequest m) {
        Entry held = acceptor.entry(m.slot());
        if (held == null && m.slot() <= acceptor.snapshot().lastIncludedSlot()) {
            ctx.out.send(new Message.ShardReply(ctx.self, m.from(), acceptor.promised(), null,
                    acceptor.snapshot().lastIncludedSlot()));
            return;
        }
        if (held == null || held.coded() == null) {
            return;
        }
        Entry answer = null;
        if (held.isComplete()) {
            answer = held;
        } else {
            Command cached = ctx.cache.get(held);
            if (cached != null && (m.wantFull() || held.coded().shard() == null)) {
                answer = held.complete(cached);
            } else if (held.coded().shard() != null) {
                answer = held;
            }
        }
        if (answer != null) {
            ctx.out.send(new Message.ShardReply(ctx.self, m.from(), acceptor.promised(), answer, 0));
        }
    }
}
