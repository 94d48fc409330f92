package io.synod.core.paxos;

import java.util.List;

/**
 * Replica-to-replica messages. Every message names its sender and receiver and carries the
 * sender's ballot, so any receiver can notice a newer ballot and step down. Every message is bounded
 * by the sender: Accept batches ({@link ReplicaConfig#maxBatchEntries()},
 * {@link ReplicaConfig#maxBatchBytes()}), Promise pages ({@link ReplicaConfig#maxPromiseBytes()}) and
 * snapshot chunks ({@link ReplicaConfig#snapshotChunkBytes()}); no message carries a whole log or snapshot.
 */
public sealed interface Message {
    int from();

    int to();

    Ballot ballot();

    /** Phase 1a: "promise not to accept below {@code ballot}; tell me what you accepted from {@code fromSlot} on". */
    record Prepare(int from, int to, Ballot ballot, long fromSlot) implements Message {}

    /**
     * Phase 1b, sent only after the promise is durable: one page of the entries the acceptor holds
     * at or above {@code fromSlot}, in slot order, at most {@link ReplicaConfig#maxPromiseBytes()} of
     * them (at least one entry if there is any). {@code nextSlot} is 0 when the page is the last;
     * otherwise the leader asks for the rest with {@code Prepare(ballot, nextSlot)}.
     * {@code snapshotSlot} is the acceptor's snapshot slot: everything up to it is chosen, and a
     * candidate behind it fetches the snapshot with {@link SnapshotRequest}.
     */
    record Promise(int from, int to, Ballot ballot, long fromSlot, List<Entry> accepted, long snapshotSlot, long nextSlot)
            implements Message {
        public Promise {
            accepted = List.copyOf(accepted);
        }

        public boolean isLastPage() {
            return nextSlot == 0;
        }
    }

    /** Refusal of a Prepare or Accept: the receiver has promised {@code ballot}, which is higher. */
    record Nack(int from, int to, Ballot ballot, Ballot rejected) implements Message {}

    /**
     * Phase 2a for a batch of slots (not necessarily contiguous: retransmissions pick gaps). Also
     * carries the leader's commit point: the receiver may treat a slot at or below
     * {@code leaderCommit} as chosen only if its entry there was accepted in this same ballot.
     */
    record Accept(int from, int to, Ballot ballot, List<Entry> entries, long leaderCommit) implements Message {
        public Accept {
            entries = List.copyOf(entries);
        }
    }

    /**
     * Phase 2b, sent only after the entries are durable: the acceptor accepted {@code slots} in
     * {@code ballot}. {@code appliedSlot} tells the leader how far the acceptor has learned, so it
     * can catch the acceptor up.
     */
    record Accepted(int from, int to, Ballot ballot, long[] slots, long appliedSlot) implements Message {}

    /** Leader liveness and commit point, sent when there is nothing else to send. */
    record Heartbeat(int from, int to, Ballot ballot, long leaderCommit) implements Message {}

    /** Answer to a heartbeat (or an installed snapshot): how far this replica has applied. */
    record HeartbeatReply(int from, int to, Ballot ballot, long appliedSlot) implements Message {}

    /**
     * One chunk of an encoded {@link Snapshot} ({@link Snapshot#encode()}): bytes
     * {@code [offset, offset + chunk.length)} of {@code totalBytes}, at most
     * {@link ReplicaConfig#snapshotChunkBytes()} of them. Sent by a leader to a follower behind its
     * compaction point ({@code ballot} is the leader's), or by a promiser to a candidate that asked
     * for it in phase 1 ({@code ballot} is the candidate's). The receiver answers each chunk with a
     * {@link SnapshotRequest} for the next offset, so a lost chunk is asked for again.
     */
    record InstallSnapshot(int from, int to, Ballot ballot, long lastIncludedSlot, long totalBytes, long offset, byte[] chunk)
            implements Message {}

    /**
     * "Send me the chunk at {@code offset} of your snapshot at {@code lastIncludedSlot}" (if that
     * snapshot is gone, the sender starts over with its current one). Answered only when
     * {@code ballot} is the one the receiver has promised.
     */
    record SnapshotRequest(int from, int to, Ballot ballot, long lastIncludedSlot, long offset) implements Message {}

    /**
     * Recovery read (RS-Paxos, Mu et al. 2014, §4): "send me what you hold of slot {@code slot}". A
     * replica that must apply a coded value it cannot rebuild asks every peer; {@code wantFull} asks
     * for a whole copy as well when shards alone did not suffice. Answered in any role: it only
     * reads accepted state. {@code ballot} is the asker's promised ballot (informational).
     */
    record ShardRequest(int from, int to, Ballot ballot, long slot, boolean wantFull) implements Message {}

    /**
     * Answer to a {@link ShardRequest}: the entry the sender holds for the slot (a shard, or a full
     * copy), or null if the sender compacted the slot into its snapshot at {@code snapshotSlot}; the
     * asker then fetches that snapshot with {@link SnapshotRequest} (in its promised ballot).
     */
    record ShardReply(int from, int to, Ballot ballot, Entry entry, long snapshotSlot) implements Message {}

    /**
     * A lease policy's own message (quorum leases, Moraru et al., SoCC 2014, §3): the replica hands it
     * to the policy ({@link LeaseHooks#onMessage}) and does nothing else with it. Fixed size (no lists),
     * so it is bounded by construction. What the fields mean depends on {@code kind}:
     * <ul>
     *   <li>{@link Kind#GUARD}, holder to grantor: "promise me a lease"; {@code seq} names the request
     *       (the holder anchors the lease at the moment it sent it, §3.5); {@code holders} is 1 if the
     *       holder heard from a leader of its promised ballot within the grace period, else 0;
     *       {@code slotLow} is the lease-configuration version the holder reads under (0: static). A
     *       renewal (§3.8) is the next GUARD, sent at least one round trip before the lease runs out.</li>
     *   <li>{@link Kind#PROMISE}, grantor to holder: answer to GUARD {@code seq}; {@code slotHigh} is the
     *       highest slot the grantor had accepted when it granted; {@code slotLow} echoes the guard's
     *       configuration version.</li>
     *   <li>{@link Kind#BOUND}, acceptor to the leader of {@code ballot}: for its accepted slots
     *       {@code slotLow..slotHigh}, the holders ({@code holders}, bit i = node i) whose leases it
     *       was bound by at its local time {@code seq}; the leader waits for those holders' acceptance.</li>
     *   <li>{@link Kind#READS}, any replica to the leader of {@code ballot}: read statistics for automatic
     *       lease assignment (Moraru §3/§5); {@code slotLow} is a key's 64-bit hash, {@code seq} how often
     *       the sender read it recently, {@code slotHigh} the report's round,
     *       {@code holders} how many reads the sender counted in that round. Only a policy that assigns
     *       leases from read statistics sends or reads it.</li>
     * </ul>
     */
    record Lease(int from, int to, Ballot ballot, Kind kind, long seq, long slotLow, long slotHigh, long holders)
            implements Message {
        public enum Kind {
            GUARD, PROMISE, BOUND, READS
        }

        public Lease {
            if (kind == null || ballot == null) {
                throw new IllegalArgumentException("lease message needs a kind and a ballot");
            }
        }
    }
}
