package io.synod.core.paxos;

import java.util.List;

/**
 * The application: the deterministic state machine chosen commands are applied to, and the read path
 * that answers from its state. Only the {@link Applier} (run by the runtime on what a {@link Ready}
 * hands out, and the door through which the replica's local reads and early answers ask) and the
 * runtime's own read path call these methods; the replica sees the narrower {@link AppliedState}.
 *
 * <p>Implementations must be pure: the same commands in the same order give the same results and the
 * same snapshot bytes on every replica. Malformed payloads must yield an error result, never an
 * exception, because every replica applies the same chosen bytes and must agree on the outcome.
 */
public interface StateMachine extends AppliedState {
    // ---- Applying chosen commands ----

    /** Applies a chosen command (never a no-op) at {@code slot}; returns the encoded result. */
    byte[] apply(long slot, byte[] payload);

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
     * Applies, at {@code slot}, the command whose header ({@link #deferralHeader}) is {@code header} and whose
     * whole payload has {@code payloadLength} bytes with CRC32C {@code payloadChecksum}, without its value bytes:
     * every effect and the result must be exactly those of {@link #apply(long, byte[], SessionWrite)} with the
     * whole payload (versions, watch events, sessions), except that the key's bytes are recorded as
     * <em>unresolved at {@code slot}</em> until {@link #resolve} or {@link #resolveFrom} supplies them.
     */
    default byte[] applyDeferred(long slot, byte[] header, int payloadLength, int payloadChecksum, SessionWrite session) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not defer values");
    }

    /**
     * A chosen coding change applied at {@code slot} (RS-Paxos, docs/erasure.md "Coding changes"): a machine with its
     * own durable state stores {@code parameters} with that applied slot in one atomic write, so that
     * {@link #durableCoding()} always names the coding in force after {@link #durableAppliedSlot()}. The change
     * entry never reaches {@link #apply}. By default nothing is stored (the replica's snapshots record the coding).
     */
    default void applyCodingChange(long slot, byte[] parameters) {}

    /**
     * A chosen membership change applied at {@code slot} (docs/membership.md rule M7): a machine with its own durable
     * state stores {@code membership} (the encoded {@link GroupMembership}) with that applied slot in one atomic write,
     * as {@link #applyCodingChange} does for the coding, so that {@link #durableMembership()} names the membership in
     * force after {@link #durableAppliedSlot()} (and says so in {@link #recordsMembership()}). The change entry never
     * reaches {@link #apply}. By default nothing is stored (the replica's snapshots record the membership).
     */
    default void applyMembershipChange(long slot, byte[] membership) {}

    // ---- Answering without applying ----

    /**
     * The result {@link #apply} will return for {@code payload} once {@code before} is applied, if
     * that is certain now; else null (the default). {@code before} holds, in slot order, the chosen
     * commands between the last applied slot and the payload's slot (no-ops left out). It lets a
     * quorum-lease leader answer a chosen write before the slots ahead of it apply
     * ({@link LeaseHooks#answersWritesBeforeApply}). Must never guess: a wrong answer acknowledges a
     * result the state machine never produced. Must not change the state.
     */
    default byte[] resultBeforeApply(byte[] payload, List<byte[]> before) {
        return null;
    }

    /** Whether {@code payload} only reads (may be answered locally when a lease allows). */
    boolean isReadOnly(byte[] payload);

    /** Answers a read-only payload against the current state, without changing it. */
    byte[] read(byte[] payload);

    /**
     * Checks a payload before it is proposed, so garbage is refused at the door instead of being
     * replicated. Throws {@link IllegalArgumentException} naming the problem.
     */
    void validate(byte[] payload);

    // ---- Whole-state snapshots of in-memory machines (the defaults of the replica's snapshot view use them) ----

    /** The whole state, for snapshots of in-memory machines (see {@link #snapshotSource(long)}). */
    byte[] snapshot();

    /** Replaces the whole state with a snapshot taken by {@link #snapshot()}; throws on bad bytes. */
    void restore(byte[] snapshot);

    /** By default the state serialized whole ({@link #snapshot()}). */
    @Override
    default SnapshotSource snapshotSource(long slot) {
        return SnapshotSource.ofBytes(snapshot());
    }

    /** By default the state part of a peer's snapshot is collected in memory. */
    @Override
    default SnapshotSink snapshotSink(long slot) {
        return new SnapshotSink.InMemory();
    }

    /**
     * By default the bytes are read into memory and given to {@link #restore(byte[])}; the sessions stay
     * with the replica's snapshot.
     */
    @Override
    default void restore(long slot, SnapshotSource source, List<ClientSession> sessions) {
        restore(source.readAll());
    }
}
