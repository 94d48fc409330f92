package io.synod.core.paxos;

/**
 * Reassembles one snapshot from {@link Message.InstallSnapshot} chunks, in order, streaming the
 * state machine's part into a {@link SnapshotSink} of the state machine (a durable machine writes
 * it to disk; nothing here holds the whole state). A chunk from another sender, ballot or snapshot
 * starts a new transfer (the old sink is aborted); a chunk at an offset other than the next one is
 * not stored (the receiver asks for {@link #nextOffset()} again), so a transfer interrupted by loss
 * resumes where it stopped. Bytes that cannot form a snapshot are counted but dropped, and the
 * transfer starts over from offset 0 once the sender's announced size is reached.
 */
final class SnapshotReceiver {
    private final AppliedState appliedState;
    private int source = -1;
    private Ballot ballot;
    private long slot = -1;
    private long totalBytes;
    private long received;
    private SnapshotSink sink;
    private SnapshotStreamParser parser;
    /** The bytes so far cannot form a snapshot: the rest is counted and dropped. */
    private boolean failed;

    SnapshotReceiver(AppliedState appliedState) {
        this.appliedState = appliedState;
    }

    void reset() {
        if (sink != null) {
            sink.abort();
        }
        source = -1;
        ballot = null;
        slot = -1;
        totalBytes = 0;
        received = 0;
        sink = null;
        parser = null;
        failed = false;
    }

    /** The snapshot slot of the transfer in progress, or -1. */
    long slot() {
        return slot;
    }

    int source() {
        return source;
    }

    long nextOffset() {
        return received;
    }

    /** Stores {@code m} if it is the next chunk; returns the snapshot when it is complete, else null. */
    Snapshot offer(Message.InstallSnapshot m) {
        if (m.from() != source || !m.ballot().equals(ballot) || m.lastIncludedSlot() != slot || m.totalBytes() != totalBytes) {
            reset();
            source = m.from();
            ballot = m.ballot();
            slot = m.lastIncludedSlot();
            totalBytes = m.totalBytes();
        }
        if (m.offset() != received || m.chunk().length == 0 || m.offset() + m.chunk().length > m.totalBytes()) {
            return null; // Not the next chunk (lost, duplicated or reordered), empty (the sender asks where this transfer
                         // stands, SnapshotSender#resumeOrStart) or malformed: ask for the next offset.
        }
        if (!failed) {
            try {
                if (parser == null) {
                    sink = appliedState.snapshotSink(slot);
                    parser = new SnapshotStreamParser(sink, totalBytes, slot);
                }
                parser.accept(m.chunk());
            } catch (IllegalArgumentException e) {
                failed = true;
                if (sink != null) {
                    sink.abort();
                }
                sink = null;
            }
        }
        received += m.chunk().length;
        if (received < totalBytes) {
            return null;
        }
        Snapshot complete = null;
        if (!failed) {
            try {
                complete = parser.finish();
            } catch (IllegalArgumentException e) {
                complete = null; // Corrupt: the next request starts over from offset 0.
            }
        }
        if (complete == null) {
            reset();
        } else {
            sink = null; // Finished: its bytes now belong to the snapshot.
            reset();
        }
        return complete;
    }
}
