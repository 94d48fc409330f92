package io.synod.core.paxos;

import java.util.Arrays;

/**
 * Reassembles one snapshot from {@link Message.InstallSnapshot} chunks, in order. A chunk from
 * another sender, ballot or snapshot starts a new transfer; a chunk at an offset other than the
 * next one is not stored (the receiver asks for {@link #nextOffset()} again), so a transfer
 * interrupted by loss resumes where it stopped. The buffer grows with the bytes actually received,
 * never to a size a message merely claims.
 */
final class SnapshotReceiver {
    private int source = -1;
    private Ballot ballot;
    private long slot = -1;
    private long totalBytes;
    private byte[] buffer = new byte[0];
    private int received;

    void reset() {
        source = -1;
        ballot = null;
        slot = -1;
        totalBytes = 0;
        buffer = new byte[0];
        received = 0;
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
        if (m.offset() != received || m.totalBytes() > Integer.MAX_VALUE - 16 || m.chunk().length == 0
                || m.offset() + m.chunk().length > m.totalBytes()) {
            return null; // Not the next chunk (lost, duplicated or reordered), or malformed: ask again.
        }
        if (buffer.length < received + m.chunk().length) {
            long grown = Math.max((long) received + m.chunk().length, Math.min(totalBytes, 2L * buffer.length));
            buffer = Arrays.copyOf(buffer, (int) grown);
        }
        System.arraycopy(m.chunk(), 0, buffer, received, m.chunk().length);
        received += m.chunk().length;
        if (received < totalBytes) {
            return null;
        }
        long expectedSlot = slot;
        byte[] encoded = Arrays.copyOf(buffer, received);
        reset();
        try {
            Snapshot snapshot = Snapshot.decode(encoded);
            return snapshot.lastIncludedSlot() == expectedSlot ? snapshot : null;
        } catch (IllegalArgumentException e) {
            return null; // Corrupt: the next request starts over from offset 0.
        }
    }
}
