package io.synod.core.paxos;

import io.synod.core.util.Check;
import java.util.Arrays;

/**
 * A state machine's part of a snapshot, read in bounded pieces: the snapshot sender and a durable
 * store read it at increasing (or, after a lost chunk, repeated) offsets, so nobody needs the whole
 * state in memory. A source is immutable: the same offset always yields the same bytes. An
 * in-memory machine uses {@link #ofBytes}; a durable one can serve files (a RocksDB checkpoint).
 */
public interface SnapshotSource {
    /** Total bytes this source yields. */
    long sizeBytes();

    /**
     * Up to {@code maxBytes} bytes (at least one) starting at {@code offset}, which is below
     * {@link #sizeBytes()}. Never returns more than {@code maxBytes}.
     */
    byte[] read(long offset, int maxBytes);

    /**
     * Whether the bytes can still be read. A durable store may drop an old snapshot while a transfer
     * of it is in progress; the sender then starts over with the current one.
     */
    default boolean isAvailable() {
        return true;
    }

    /** The whole source in one array; only for small, in-memory sources (tests, simulator, inline stores). */
    default byte[] readAll() {
        long size = sizeBytes();
        Check.argument(size <= Integer.MAX_VALUE - 16, "snapshot source of %d bytes does not fit in one array", size);
        byte[] all = new byte[(int) size];
        int at = 0;
        while (at < all.length) {
            byte[] piece = read(at, all.length - at);
            Check.state(piece.length > 0, "snapshot source returned no bytes at offset %d of %d", at, size);
            System.arraycopy(piece, 0, all, at, piece.length);
            at += piece.length;
        }
        return all;
    }

    /** A source over an array the caller no longer changes. */
    static SnapshotSource ofBytes(byte[] bytes) {
        return new Bytes(bytes);
    }

    /** {@link #ofBytes}: the in-memory source. */
    final class Bytes implements SnapshotSource {
        private final byte[] bytes;

        private Bytes(byte[] bytes) {
            Check.argument(bytes != null, "snapshot bytes must not be null");
            this.bytes = bytes;
        }

        @Override
        public long sizeBytes() {
            return bytes.length;
        }

        @Override
        public byte[] read(long offset, int maxBytes) {
            Check.argument(offset >= 0 && offset < bytes.length && maxBytes > 0, "read of %d bytes at %d from %d bytes",
                    maxBytes, offset, bytes.length);
            return Arrays.copyOfRange(bytes, (int) offset, (int) Math.min(bytes.length, offset + maxBytes));
        }

        @Override
        public byte[] readAll() {
            return bytes.clone();
        }
    }
}
