package io.synod.core.paxos;

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
}
