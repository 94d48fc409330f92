package io.synod.core.paxos;

import io.synod.core.util.Check;
import java.nio.ByteBuffer;

/**
 * The applied state at one slot: the state machine's part (a {@link SnapshotSource}, read in
 * bounded pieces, never necessarily in memory) and the client session table (so at-most-once
 * survives compaction; bounded by {@link ReplicaConfig#maxClientSessions()}). Everything at or
 * below {@code lastIncludedSlot} is chosen.
 *
 * <p>The transfer form ({@link #transferSize()}, {@link #readTransfer}) is
 * {@code [slot u64][state length u32][state][sessions length u32][sessions]}; a state of 2 GiB or
 * more writes the length as {@code -1} followed by a u64. It is cut into InstallSnapshot chunks
 * and reassembled by a {@link SnapshotReceiver} that streams the state part into a
 * {@link SnapshotSink}.
 */
public record Snapshot(long lastIncludedSlot, SnapshotSource stateMachine, byte[] sessions) {
    public static final Snapshot EMPTY = new Snapshot(0, new byte[0], new byte[0]);
    /** The largest state length written as a plain u32 in the transfer form. */
    static final long SHORT_LENGTH_LIMIT = Integer.MAX_VALUE;

    public Snapshot {
        if (lastIncludedSlot < 0) {
            throw new IllegalArgumentException("snapshot slot must be >= 0, got " + lastIncludedSlot);
        }
        if (stateMachine == null || sessions == null) {
            throw new IllegalArgumentException("snapshot parts must not be null");
        }
    }

    /** A snapshot whose state part is in memory. */
    public Snapshot(long lastIncludedSlot, byte[] stateMachine, byte[] sessions) {
        this(lastIncludedSlot, SnapshotSource.ofBytes(stateMachine == null ? null : stateMachine), sessions);
    }

    /** The state part in one array (in-memory state machines, the simulator; a durable store reads it in pieces instead). */
    public byte[] stateMachineBytes() {
        return stateMachine.readAll();
    }

    private int headerSize() {
        return stateMachine.sizeBytes() < SHORT_LENGTH_LIMIT ? 12 : 20;
    }

    /** Bytes of the transfer form. */
    public long transferSize() {
        return headerSize() + stateMachine.sizeBytes() + 4 + sessions.length;
    }

    /** Up to {@code maxBytes} bytes of the transfer form from {@code offset} (below {@link #transferSize()}). */
    public byte[] readTransfer(long offset, int maxBytes) {
        long total = transferSize();
        Check.argument(offset >= 0 && offset < total && maxBytes > 0, "transfer read of %d bytes at %d of %d", maxBytes,
                offset, total);
        int length = (int) Math.min(maxBytes, total - offset);
        byte[] out = new byte[length];
        int at = 0;
        int header = headerSize();
        long stateSize = stateMachine.sizeBytes();
        while (at < length) {
            long pos = offset + at;
            if (pos < header) {
                ByteBuffer h = ByteBuffer.allocate(header).putLong(lastIncludedSlot);
                if (header == 12) {
                    h.putInt((int) stateSize);
                } else {
                    h.putInt(-1).putLong(stateSize);
                }
                int n = (int) Math.min(length - at, header - pos);
                System.arraycopy(h.array(), (int) pos, out, at, n);
                at += n;
            } else if (pos < header + stateSize) {
                byte[] piece = stateMachine.read(pos - header, (int) Math.min(length - at, header + stateSize - pos));
                Check.state(piece.length > 0, "snapshot source returned no bytes at %d", pos - header);
                System.arraycopy(piece, 0, out, at, piece.length);
                at += piece.length;
            } else {
                byte[] tail = ByteBuffer.allocate(4 + sessions.length).putInt(sessions.length).put(sessions).array();
                int from = (int) (pos - header - stateSize);
                int n = Math.min(length - at, tail.length - from);
                System.arraycopy(tail, from, out, at, n);
                at += n;
            }
        }
        return out;
    }

    /** The whole transfer form in one array (in-memory snapshots only, e.g. an inline snapshot file). */
    public byte[] encode() {
        long total = transferSize();
        Check.argument(total <= Integer.MAX_VALUE - 16, "snapshot of %d bytes cannot be encoded in one array", total);
        return readTransfer(0, (int) total);
    }

    /** Decodes {@link #encode()}'s bytes; throws {@link IllegalArgumentException} naming what is wrong. */
    public static Snapshot decode(byte[] bytes) {
        SnapshotSink.InMemory sink = new SnapshotSink.InMemory();
        SnapshotStreamParser parser = new SnapshotStreamParser(sink, bytes.length, -1);
        parser.accept(bytes);
        return parser.finish();
    }
}
