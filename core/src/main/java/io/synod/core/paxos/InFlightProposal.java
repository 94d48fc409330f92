package io.synod.core.paxos;

/** A slot a leader proposed in its ballot and that is not chosen yet. */
final class InFlightProposal {
    /** The proposal: a plain entry, or a coded one with its whole command and no shard. */
    final Entry entry;
    /** Encoded shard i for acceptor i, or null (plain entry, or a stub re-proposed by a negative control). */
    final byte[][] shards;
    long acceptors;
    /**
     * Acceptors sent the whole value instead of their shard: the quorum-lease holders of its key when it
     * was proposed (a full copy counts as every shard, for the commit rule and for recovery).
     */
    long fullCopies;
    long lastSentNanos;
    /** Sent again at least once: its acknowledgements are not round-trip samples (Karn's rule). */
    boolean resent;
    /** Its client was answered before it applied, or it was found not answerable early. */
    boolean earlyAnswerTried;

    InFlightProposal(Entry entry, byte[][] shards, long sentNanos) {
        this.entry = entry;
        this.shards = shards;
        this.lastSentNanos = sentNanos;
    }

    /**
     * What acceptor {@code peer} is sent: its own shard of a coded value, or the entry itself (plain, or a
     * full copy for a quorum-lease holder of its key).
     */
    Entry forPeer(int peer) {
        // An id at or beyond the code length is in fullCopies (rule M9) but under its negative control.
        return shards == null || (fullCopies & (1L << peer)) != 0 ? entry : entry.stub(shards[peer % shards.length]);
    }
}
