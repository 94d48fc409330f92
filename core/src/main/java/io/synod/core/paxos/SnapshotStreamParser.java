package io.synod.core.paxos;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Parses a snapshot's transfer form ({@link Snapshot#readTransfer}) as it arrives, in order: the
 * header is collected, the state part is passed straight to a {@link SnapshotSink} (so it is never
 * held here), and the session table (bounded by the replica's session limit) is collected. Every
 * length is checked against the transfer's total before anything is allocated for it.
 */
final class SnapshotStreamParser {
    private final SnapshotSink sink;
    private final long totalBytes;
    private long consumed;
    private final byte[] fixed = new byte[12];
    private int fixedHave;
    private int stage; // 0: slot + length, 1: long length, 2: state, 3: sessions length, 4: sessions
    private long slot;
    private long stateRemaining;
    private byte[] sessions;
    private int sessionsHave;

    /** The slot the sender announced, or -1 to take the header's. */
    private final long expectedSlot;

    SnapshotStreamParser(SnapshotSink sink, long totalBytes, long expectedSlot) {
        this.sink = sink;
        this.totalBytes = totalBytes;
        this.expectedSlot = expectedSlot;
    }

    /** The next bytes of the transfer form; throws {@link IllegalArgumentException} if they cannot be part of one. */
    void accept(byte[] chunk) {
        if (consumed + chunk.length > totalBytes) {
            throw new IllegalArgumentException("snapshot has bytes past its announced " + totalBytes);
        }
        int at = 0;
        while (at < chunk.length) {
            if (stage == 0 || stage == 1 || stage == 3) {
                int want = stage == 0 ? 12 : stage == 1 ? 8 : 4;
                int n = Math.min(want - fixedHave, chunk.length - at);
                System.arraycopy(chunk, at, fixed, fixedHave, n);
                fixedHave += n;
                at += n;
                if (fixedHave == want) {
                    fixedHave = 0;
                    fieldComplete(ByteBuffer.wrap(fixed, 0, want));
                }
            } else if (stage == 2) {
                int n = (int) Math.min(stateRemaining, chunk.length - at);
                sink.write(Arrays.copyOfRange(chunk, at, at + n));
                at += n;
                stateRemaining -= n;
                if (stateRemaining == 0) {
                    stage = 3;
                }
            } else if (stage == 4) {
                int n = Math.min(sessions.length - sessionsHave, chunk.length - at);
                if (n == 0) {
                    throw new IllegalArgumentException("snapshot has trailing bytes after its session table");
                }
                System.arraycopy(chunk, at, sessions, sessionsHave, n);
                sessionsHave += n;
                at += n;
            }
        }
        consumed += chunk.length;
    }

    private void fieldComplete(ByteBuffer field) {
        if (stage == 0) {
            slot = field.getLong();
            int length = field.getInt();
            if (slot < 0) {
                throw new IllegalArgumentException("snapshot slot " + slot + " is negative");
            }
            if (expectedSlot >= 0 && slot != expectedSlot) {
                throw new IllegalArgumentException("snapshot of slot " + slot + " announced as slot " + expectedSlot);
            }
            if (length == -1) {
                stage = 1;
            } else if (length < 0) {
                throw new IllegalArgumentException("snapshot state length " + length + " is invalid");
            } else {
                startState(12, length);
            }
        } else if (stage == 1) {
            long length = field.getLong();
            if (length < Snapshot.SHORT_LENGTH_LIMIT) {
                throw new IllegalArgumentException("snapshot state length " + length + " uses the long form needlessly");
            }
            startState(20, length);
        } else {
            int length = field.getInt();
            long left = totalBytes - (stateEnd + 4);
            if (length < 0 || length != left) {
                throw new IllegalArgumentException("snapshot session table length " + length + " does not match the "
                        + left + " remaining bytes");
            }
            sessions = new byte[length];
            sessionsHave = 0;
            stage = 4;
        }
    }

    /** Offset where the state part ends (the sessions length starts). */
    private long stateEnd;

    private void startState(int headerBytes, long length) {
        if (length > totalBytes - headerBytes - 4) {
            throw new IllegalArgumentException("snapshot state length " + length + " exceeds the "
                    + Math.max(0, totalBytes - headerBytes - 4) + " bytes left for it");
        }
        stateEnd = headerBytes + length;
        stateRemaining = length;
        stage = length == 0 ? 3 : 2;
    }

    /** Every byte was accepted: the snapshot, with the sink's bytes as its state part. */
    Snapshot finish() {
        if (consumed != totalBytes || stage != 4 || sessionsHave != sessions.length) {
            throw new IllegalArgumentException("snapshot truncated: " + consumed + " of " + totalBytes + " bytes form no complete snapshot");
        }
        return new Snapshot(slot, sink.finish(), sessions);
    }
}
