package io.synod.core.paxos;

import java.util.List;

/**
 * What the replica sees of the application's state: the applied state as a thing to snapshot and
 * restore, where a durable application's own state stands when the replica starts, and (RS-Paxos
 * deferred rebuild) which of its keys still wait for their value bytes. The replica never applies,
 * reads or validates through it: committed entries leave in the {@link Ready} and the {@link Applier}
 * applies them to the {@link StateMachine}, which extends this view. The rule is checked by a test over
 * the package's bytecode: only the {@code Applier} calls a {@code StateMachine} method.
 */
public interface AppliedState {
    // ---- Snapshots out and in, in bounded pieces ----

    /**
     * The state after applying slot {@code slot} (the last applied), as a source read in bounded
     * pieces. A durable machine returns files it already holds (e.g. a RocksDB checkpoint) instead of
     * serializing its state; the source must stay readable while it is the replica's snapshot.
     */
    SnapshotSource snapshotSource(long slot);

    /**
     * A sink for the state part of a snapshot at {@code slot} arriving from a peer in chunks (what a
     * {@link #snapshotSource} of the same kind of machine yields).
     */
    SnapshotSink snapshotSink(long slot);

    /**
     * Replaces the whole state with {@code source} (from {@link #snapshotSource} here or, through a
     * {@link #snapshotSink}, from a peer): the state through {@code slot}, with the session table
     * that goes with it (a durable machine stores all three together). Throws on bad bytes.
     */
    void restore(long slot, SnapshotSource source, List<ClientSession> sessions);

    // ---- The durable state a replica starts from (optional; the defaults keep everything in the replica's snapshots) ----

    /** One client's at-most-once record: its last applied sequence, the slot and the result. */
    record ClientSession(long clientId, long sequence, long slot, byte[] result) {}

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
     * The parameters of the last coding change stored with the durable state
     * ({@link StateMachine#applyCodingChange}, or restored with it from a snapshot of such a machine), or null
     * if none; read with {@link #durableAppliedSlot()}.
     */
    default byte[] durableCoding() {
        return null;
    }

    /**
     * The membership stored with the durable state ({@link StateMachine#applyMembershipChange}, or restored with
     * it from a snapshot of such a machine), or null if none; read with {@link #durableAppliedSlot()}.
     */
    default byte[] durableMembership() {
        return null;
    }

    /**
     * Whether this machine records the membership with its durable state; a durable machine that does not is
     * refused membership changes, since a restart would lose the membership in force.
     */
    default boolean recordsMembership() {
        return false;
    }

    // ---- Deferred follower rebuild (optional; RS-Paxos coded values, docs/erasure.md): what recovery needs ----

    /** No slots. */
    long[] NO_SLOTS = new long[0];

    /**
     * The uncoded part of {@code payload} from which {@link StateMachine#applyDeferred} can apply it without its
     * value bytes, or null if applying it needs the bytes (the default: nothing is deferred). Only commands whose
     * effect and result do not depend on the bytes of any key (an overwrite such as {@code Put}) may have
     * a header. Must be a pure function of the payload, shorter than it. (A leader attaches it to each coded entry.)
     */
    default byte[] deferralHeader(byte[] payload) {
        return null;
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
