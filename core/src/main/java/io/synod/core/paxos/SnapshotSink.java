package io.synod.core.paxos;

import java.util.Arrays;

/**
 * Receives a state machine's snapshot bytes (what its {@link SnapshotSource} yields) in order, in
 * bounded chunks, while a snapshot transfer is in progress. A durable machine writes them to a
 * temporary place on disk and verifies them as they come; {@link #finish()} turns the complete
 * bytes into a {@link SnapshotSource} that {@link AppliedState#restore(long, SnapshotSource, java.util.List)}
 * can install. A transfer that is abandoned (a newer snapshot, another sender, corrupt bytes) is
 * {@link #abort()}ed, which discards everything written.
 */
public interface SnapshotSink {
    /** The next bytes of the snapshot; throws {@link IllegalArgumentException} if they cannot be part of a valid one. */
    void write(byte[] chunk);

    /** All bytes were written: verifies them and returns them as a source; throws {@link IllegalArgumentException} if invalid. */
    SnapshotSource finish();

    /** Discards what was written; idempotent. */
    void abort();

    /**
     * The in-memory sink: collects the bytes in an array that grows with the bytes actually written
     * (never to a size a sender merely claims).
     */
    final class InMemory implements SnapshotSink {
        private byte[] buffer = new byte[0];
        private int size;

        @Override
        public void write(byte[] chunk) {
            if ((long) size + chunk.length > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("an in-memory snapshot cannot exceed 2 GiB");
            }
            if (buffer.length < size + chunk.length) {
                buffer = Arrays.copyOf(buffer, Math.max(size + chunk.length, (int) Math.min(Integer.MAX_VALUE - 16, 2L * buffer.length)));
            }
            System.arraycopy(chunk, 0, buffer, size, chunk.length);
            size += chunk.length;
        }

        @Override
        public SnapshotSource finish() {
            return SnapshotSource.ofBytes(Arrays.copyOf(buffer, size));
        }

        @Override
        public void abort() {
            buffer = new byte[0];
            size = 0;
        }
    }
}
