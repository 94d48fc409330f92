package io.synod.core.paxos;

import java.nio.ByteBuffer;

/**
 * The applied state at one slot: the state machine's bytes and the client session table (so
 * at-most-once survives compaction). Everything at or below {@code lastIncludedSlot} is chosen.
 */
public record Snapshot(long lastIncludedSlot, byte[] stateMachine, byte[] sessions) {
    public static final Snapshot EMPTY = new Snapshot(0, new byte[0], new byte[0]);

    public Snapshot {
        if (lastIncludedSlot < 0) {
            throw new IllegalArgumentException("snapshot slot must be >= 0, got " + lastIncludedSlot);
        }
        if (stateMachine == null || sessions == null) {
            throw new IllegalArgumentException("snapshot parts must not be null");
        }
    }

    public int sizeBytes() {
        return 8 + stateMachine.length + sessions.length;
    }

    /** Bytes of {@link #encode()}: the slot, then each part with its length. */
    public int encodedSize() {
        return 8 + 4 + stateMachine.length + 4 + sessions.length;
    }

    /** The form a snapshot travels in (cut into InstallSnapshot chunks). */
    public byte[] encode() {
        return ByteBuffer.allocate(encodedSize()).putLong(lastIncludedSlot).putInt(stateMachine.length).put(stateMachine)
                .putInt(sessions.length).put(sessions).array();
    }

    /** Decodes {@link #encode()}'s bytes; throws {@link IllegalArgumentException} naming what is wrong. */
    public static Snapshot decode(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        if (in.remaining() < 12) {
            throw new IllegalArgumentException("snapshot of " + bytes.length + " bytes is shorter than its 12-byte header");
        }
        long slot = in.getLong();
        byte[] stateMachine = part(in, "state machine");
        if (in.remaining() < 4) {
            throw new IllegalArgumentException("snapshot truncated before its session table length");
        }
        byte[] sessions = part(in, "session table");
        if (in.hasRemaining()) {
            throw new IllegalArgumentException("snapshot has " + in.remaining() + " trailing bytes");
        }
        return new Snapshot(slot, stateMachine, sessions);
    }

    private static byte[] part(ByteBuffer in, String name) {
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException("snapshot " + name + " length " + length + " exceeds the " + in.remaining()
                    + " remaining bytes");
        }
        byte[] part = new byte[length];
        in.get(part);
        return part;
    }
}
