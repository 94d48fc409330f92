package io.synod.core.paxos;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The recovery read (RS-Paxos, Mu et al. 2014, §4): a replica that must apply a committed coded
 * value it cannot rebuild locally (it holds one shard, or none, and the value is not in its
 * {@link ValueCache}) asks every peer for what it holds of that slot, collects shards of exactly
 * that value (same client id, sequence, length and checksum as its own committed entry), rebuilds
 * the value once X intact ones arrived (the {@link ShardDecoder} checks each shard's CRC32C and the
 * value's), and caches it; applying then continues. The first round asks only as many peers as
 * shards are missing (the next ones after this replica, leaving out the leader when enough others
 * remain, so the load spreads over the followers' links); unanswered requests
 * are repeated every retransmission interval to every peer, asking for a whole copy as well.
 * Up to {@link ReplicaConfig#maxInFlightSlots()} slots are recovered at once (the learner asks for
 * the committed coded slots ahead of the one it is stuck at, so a follower that fell behind does
 * not pay one round trip per slot). If a peer already compacted
 * the slot into its snapshot (it applied it), the shards there are gone and this replica fetches
 * that snapshot in chunks instead, like a lagging follower would.
 */
final class Recovery {
    /** One slot being recovered. */
    private static final class Pending {
        final Entry wanted;
        final List<byte[]> shards = new ArrayList<>();
        long lastAskNanos;
        int rounds;

        Pending(Entry wanted) {
            this.wanted = wanted;
            if (wanted.coded().shard() != null) {
                shards.add(wanted.coded().shard());
            }
        }
    }

    private final ReplicaContext ctx;
    private final Acceptor acceptor;
    private final TreeMap<Long, Pending> pending = new TreeMap<>();
    /** The peer whose snapshot is being fetched (it compacted a wanted slot), or -1. */
    private int snapshotSource = -1;
    private long snapshotSlot;
    private long snapshotAskNanos;
    private final SnapshotReceiver incoming;

    Recovery(ReplicaContext ctx, Acceptor acceptor, AppliedState appliedState) {
        this.ctx = ctx;
        this.acceptor = acceptor;
        this.incoming = new SnapshotReceiver(appliedState);
    }

    /** {@code entry} is committed, coded and not complete here: recover it (a bounded number at once). */
    void need(Entry entry) {
        Pending known = pending.get(entry.slot());
        if (known != null && known.wanted.sameValue(entry)) {
            return;
        }
        if (known == null && pending.size() >= ctx.config.maxInFlightSlots()) {
            return;
        }
        Pending added = new Pending(entry);
        pending.put(entry.slot(), added);
        ask(added);
    }

    /**
     * Slots at or below {@code slot} were applied (or installed from a snapshot), or resolved: forget
     * them, except those in {@code keep} (deferred keys still being resolved).
     */
    void forgetThrough(long slot, Set<Long> keep) {
        pending.headMap(slot, true).keySet().removeIf(s -> !keep.contains(s));
        if (pending.isEmpty()) {
            snapshotSource = -1;
            incoming.reset();
        }
    }

    void clear() {
        pending.clear();
        snapshotSource = -1;
        incoming.reset();
    }

    void tick() {
        for (Pending p : pending.values()) {
            if (ctx.nowNanos - p.lastAskNanos >= ctx.config.retransmitIntervalNanos()) {
                ask(p);
            }
        }
        if (snapshotSource >= 0 && ctx.nowNanos - snapshotAskNanos >= ctx.config.retransmitIntervalNanos()) {
            requestSnapshotChunk();
        }
    }

    private void ask(Pending p) {
        p.lastAskNanos = ctx.nowNanos;
        p.rounds++;
        int asks = p.rounds == 1 ? Math.max(1, p.wanted.coded().dataShards() - p.shards.size()) : ctx.clusterSize - 1;
        // The first round leaves the leader out when enough other peers remain: its links already carry
        // every accept, so recovery traffic spread over the followers' links keeps each link at about
        // 1/X of a value per write (the per-link bandwidth RS-Paxos saves, Mu et al. 2014, section 5).
        // It asks the members it knows of (the id universe may be far wider than the group, rule M9); later
        // rounds ask every id, in case its membership is behind.
        long others = p.rounds == 1 ? ctx.membership.members() & ~(1L << ctx.self) : -1L;
        boolean skipLeader = p.rounds == 1 && ctx.leaderHint >= 0 && ctx.leaderHint != ctx.self
                && Long.bitCount(others) - 1 >= asks;
        int sent = 0;
        for (int i = 1; i < ctx.clusterSize && sent < asks; i++) {
            int peer = (ctx.self + i) % ctx.clusterSize;
            if (skipLeader && peer == ctx.leaderHint || (others & (1L << peer)) == 0) {
                continue;
            }
            ctx.out.send(new Message.ShardRequest(ctx.self, peer, acceptor.promised(), p.wanted.slot(), p.rounds > 1));
            sent++;
        }
    }

    private void requestSnapshotChunk() {
        snapshotAskNanos = ctx.nowNanos;
        long slot = incoming.slot() >= 0 ? incoming.slot() : snapshotSlot;
        ctx.out.send(new Message.SnapshotRequest(ctx.self, snapshotSource, acceptor.promised(), slot, incoming.nextOffset()));
    }

    /** Whether {@code m} belongs to a snapshot fetch of this recovery. */
    boolean fetchesSnapshotFrom(Message.InstallSnapshot m) {
        // A candidate's own phase 1 snapshot fetch comes first (Phase1 takes those chunks).
        return !pending.isEmpty() && snapshotSource == m.from() && ctx.role != Role.CANDIDATE
                && m.ballot().equals(acceptor.promised());
    }

    /** A chunk of the snapshot this recovery fetches; returns the snapshot once complete (the learner installs it), else null. */
    Snapshot onSnapshotChunk(Message.InstallSnapshot m) {
        Snapshot complete = incoming.offer(m);
        if (complete == null) {
            requestSnapshotChunk();
            return null;
        }
        snapshotSource = -1;
        return complete;
    }

    /** A peer's answer; returns true if a wanted value was rebuilt and cached. */
    boolean onReply(Message.ShardReply m) {
        Entry got = m.entry();
        if (got == null) {
            if (!pending.isEmpty() && m.snapshotSlot() >= pending.firstKey() && snapshotSource < 0) {
                snapshotSource = m.from();
                snapshotSlot = m.snapshotSlot();
                incoming.reset();
                requestSnapshotChunk();
            }
            return false;
        }
        Pending p = pending.get(got.slot());
        if (p == null || !got.sameValue(p.wanted)) {
            return false; // Late, or a shard of another value accepted in that slot.
        }
        byte[] value;
        if (got.isComplete()) {
            CRC32C crc = new CRC32C();
            crc.update(got.command().payload());
            value = (int) crc.getValue() == p.wanted.coded().valueChecksum() ? got.command().payload() : null;
        } else if (got.coded().shard() != null) {
            p.shards.add(got.coded().shard());
            value = ctx.coding.decoder().rebuild(p.wanted.coded(), p.shards);
        } else {
            value = null;
        }
        if (value == null) {
            return false;
        }
        Entry wanted = p.wanted;
        ctx.cache.put(wanted.slot(), new Command(wanted.command().clientId(), wanted.command().sequence(), value),
                wanted.coded());
        pending.remove(wanted.slot());
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

