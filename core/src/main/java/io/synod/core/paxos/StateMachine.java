package io.synod.core.paxos;

/**
 * The deterministic state machine a replica applies chosen commands to. Implementations must be
 * pure: the same commands in the same order give the same results and the same snapshot bytes on
 * every replica. Malformed payloads must yield an error result, never an exception, because every
 * replica applies the same chosen bytes and must agree on the outcome.
 */
public interface StateMachine {
    /** Applies a chosen command (never a no-op) at {@code slot}; returns the encoded result. */
    byte[] apply(long slot, byte[] payload);

    /** Whether {@code payload} only reads (may be answered locally when a lease allows). */
    boolean isReadOnly(byte[] payload);

    /** Answers a read-only payload against the current state, without changing it. */
    byte[] read(byte[] payload);

    /**
     * Checks a payload before it is proposed, so garbage is refused at the door instead of being
     * replicated. Throws {@link IllegalArgumentException} naming the problem.
     */
    void validate(byte[] payload);

    /** The whole state, for snapshots. */
    byte[] snapshot();

    /** Replaces the whole state with a snapshot taken by {@link #snapshot()}; throws on bad bytes. */
    void restore(byte[] snapshot);
}
