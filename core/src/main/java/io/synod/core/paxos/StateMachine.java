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

    /** The whole state, for snapshots of in-memory machines (see {@link #snapshotSource(long)}). */
    byte[] snapshot();

    /** Replaces the whole state with a snapshot taken by {@link #snapshot()}; throws on bad bytes. */
    void restore(byte[] snapshot);

    // ---- Snapshots in bounded pieces (the defaults serve in-memory machines from the two methods above) ----

    /**
     * The state after applying slot {@code slot} (the last applied), as a source read in bounded
     * pieces. A durable machine returns files it already holds (e.g. a RocksDB checkpoint) instead of
     * serializing its state; the source must stay readable while it is the replica's snapshot.
     */
    default SnapshotSource snapshotSource(long slot) {
        return SnapshotSource.ofBytes(snapshot());
    }

    /**
     * A sink for the state part of a snapshot at {@code slot} arriving from a peer in chunks (what a
     * {@link #snapshotSource} of the same kind of machine yields). By default it is collected in memory.
     */
    default SnapshotSink snapshotSink(long slot) {
        return new SnapshotSink.InMemory();
    }

    /**
     * Replaces the whole state with {@code source} (from {@link #snapshotSource} here or, through a
     * {@link #snapshotSink}, from a peer): the state through {@code slot}, with the session table
     * that goes with it (a durable machine stores all three together). Throws on bad bytes. By
     * default the bytes are read into memory and given to {@link #restore(byte[])}; the sessions stay
     * with the replica's snapshot.
     */
    default void restore(long slot, SnapshotSource source, List<ClientSession> sessions) {
        restore(source.readAll());
    }

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
     * When it is at or above the snapshot's slot, the replica starts from it instead of restoring the
     * snapshot, with the session table from {@link #durableSessions()}, and applies only the slots
     * above it. Everything a replica applies is chosen, so the durable state is a prefix of the
     * chosen state even when it is ahead of what the replica's log made durable; if it is ahead of
     * the snapshot, the replica at once takes a snapshot at that slot (from
     * {@link #snapshotSource}) and drops its log through it, because the log may still hold
     * entries there that were never chosen.
     */
    default long durableAppliedSlot() {
        return -1;
    }

    /** The session records stored with the durable state (any order); read only when {@link #durableAppliedSlot()} is used. */
    default List<ClientSession> durableSessions() {
        return List.of();
    }

    /**
     * A chosen coding change applied at {@code slot} (RS-Paxos, docs/erasure.md "Coding changes"): a machine with its
     * own durable state stores {@code parameters} with that applied slot in one atomic write, so that
     * {@link #durableCoding()} always names the coding in force after {@link #durableAppliedSlot()}. The change
     * entry never reaches {@link #apply}. By default nothing is stored (the replica's snapshots record the coding).
     */
    default void applyCodingChange(long slot, byte[] parameters) {}

    /**
     * The parameters of the last coding change {@link #applyCodingChange} stored with the durable state (or
     * restored with it from a snapshot of such a machine), or null if none; read with {@link #durableAppliedSlot()}.
     */
    default byte[] durableCoding() {
        return null;
    }

    /**
     * A chosen membership change applied at {@code slot} (docs/membership.md rule M7): a machine with its own durable
     * state stores {@code membership} (the encoded {@link GroupMembership}) with that applied slot in one atomic write,
     * as {@link #applyCodingChange} does for the coding, so that {@link #durableMembership()} names the membership in
     * force after {@link #durableAppliedSlot()}. The change entry never reaches {@link #apply}. By default nothing is
     * stored (the replica's snapshots record the membership).
     */
    default void applyMembershipChange(long slot, byte[] membership) {}

    /**
     * The membership {@link #applyMembershipChange} stored with the durable state (or restored with it from a snapshot
     * of such a machine), or null if none; read with {@link #durableAppliedSlot()}.
     */
    default byte[] durableMembership() {
        return null;
    }

    /**
     * Whether this machine records the membership with its durable state ({@link #applyMembershipChange}); a durable
     * machine that does not is refused membership changes, since a restart would lose the membership in force.
     */
    default boolean recordsMembership() {
        return false;
    }

    // ---- Deferred follower rebuild (optional; RS-Paxos coded values, docs/erasure.md) ----

    /** No slots. */
    long[] NO_SLOTS = new long[0];

    /**
     * The uncoded part of {@code payload} from which {@link #applyDeferred} can apply it without its value
     * bytes, or null if applying it needs the bytes (the default: nothing is deferred). Only commands whose
     * effect and result do not depend on the bytes of any key (an overwrite such as {@code Put}) may have
     * a header. Must be a pure function of the payload, shorter than it.
     */
    default byte[] deferralHeader(byte[] payload) {
        return null;
    }

    /**
     * Applies, at {@code slot}, the command whose header is {@code header} and whose whole payload has
     * {@code payloadLength} bytes with CRC32C {@code payloadChecksum}, without its value bytes: every
     * effect and the result must be exactly those of {@link #apply(long, byte[], SessionWrite)} with the
     * whole payload (versions, watch events, sessions), except that the key's bytes are recorded as
     * <em>unresolved at {@code slot}</em> until {@link #resolve} or {@link #resolveFrom} supplies them.
     */
    default byte[] applyDeferred(long slot, byte[] header, int payloadLength, int payloadChecksum, SessionWrite session) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not defer values");
    }

    /**
     * The slots whose values must be rebuilt ({@link #resolve}) before {@code payload} is applied or
     * read here: the unresolved keys it reads or whose bytes its effect or result depends on (all of
     * them for a command the machine cannot classify). Empty if none.
     */
    default long[] unresolvedSlotsFor(byte[] payload) {
        return NO_SLOTS;
    }

    /** Every slot holding an unresolved key's value, ascending. Empty if none (always, without deferral). */
    default long[] unresolvedSlots() {
        return NO_SLOTS;
    }

    /**
     * The whole payload of the command applied deferred at {@code slot} (rebuilt and CRC-checked by a
     * recovery read): the key unresolved at that slot gets its bytes. Ignored if no key is unresolved
     * at that slot; throws {@link IllegalStateException} if the payload does not match the header.
     */
    default void resolve(long slot, byte[] payload) {}

    /**
     * Resolves, from a peer's snapshot of chosen state through {@code snapshotSlot} (below or at this
     * machine's applied slot), every key unresolved at a slot at or below {@code snapshotSlot}: no write
     * of such a key was applied after its unresolved slot, so the snapshot holds exactly its bytes.
     */
    default void resolveFrom(long snapshotSlot, SnapshotSource snapshot) {}
}
