package io.synod.core.paxos;

import java.util.List;

/**
 * Replica-to-replica messages. Every message names its sender and receiver and carries the
 * sender's ballot, so any receiver can notice a newer ballot and step down. Sizes are bounded by
 * the sender ({@link ReplicaConfig#maxBatchEntries()}, {@link ReplicaConfig#maxBatchBytes()}).
 */
public sealed interface Message {
    int from();

    int to();

    Ballot ballot();

    /** Phase 1a: "promise not to accept below {@code ballot}; tell me what you accepted from {@code fromSlot} on". */
    record Prepare(int from, int to, Ballot ballot, long fromSlot) implements Message {}

    /**
     * Phase 1b, sent only after the promise is durable. Carries every entry the acceptor holds at
     * or above {@code fromSlot}. If the acceptor compacted past {@code fromSlot}, it also carries
     * its snapshot (everything in it is chosen); otherwise {@code snapshot} is null.
     */
    record Promise(int from, int to, Ballot ballot, long fromSlot, List<Entry> accepted, Snapshot snapshot)
            implements Message {
        public Promise {
            accepted = List.copyOf(accepted);
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

    /** Catch-up of a replica that is behind the leader's compaction point. */
    record InstallSnapshot(int from, int to, Ballot ballot, Snapshot snapshot) implements Message {}
}
