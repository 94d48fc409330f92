package io.synod.core.paxos;

import java.util.List;

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

    // ---- Durable state machines (optional; the defaults keep everything in the replica's snapshots) ----

    /** One client's at-most-once record: its last applied sequence, the slot and the result. */
    record ClientSession(long clientId, long sequence, long slot, byte[] result) {}

    /**
     * What applying a client command does to the replica's at-most-once table: {@code clientId}'s
     * record becomes ({@code sequence}, the slot, the result returned), and {@code evictedClientId}'s
     * record (0: none) is dropped to keep the table bounded.
     */
    record SessionWrite(long clientId, long sequence, long evictedClientId) {}

    /**
     * Applies a client command together with its session-table change. A state machine that keeps
     * its own durable state writes the data change, {@code slot} and the session record in one
     * atomic write, so it never shows a change without its session. By default the session change
     * is left to the replica's snapshots.
     */
    default byte[] apply(long slot, byte[] payload, SessionWrite session) {
        return apply(slot, payload);
    }

    /**
     * The slot through which this machine's own durable state is applied, or -1 if it keeps none.
     * When it is at or above the snapshot slot (and the log holds every slot in between), the
     * replica starts from it instead of restoring the snapshot, with the session table from
     * {@link #durableSessions()}, and applies only the slots above it.
     */
    default long durableAppliedSlot() {
        return -1;
    }

    /**
     * Replaces the whole state with a snapshot of the state through {@code slot} and the session
     * table that goes with it (a durable machine stores all three together). By default the sessions
     * stay with the replica's snapshot.
     */
    default void restore(long slot, byte[] snapshot, List<ClientSession> sessions) {
        restore(snapshot);
    }

    /** The session records stored with the durable state (any order); read only when {@link #durableAppliedSlot()} is used. */
    default List<ClientSession> durableSessions() {
        return List.of();
    }
}
