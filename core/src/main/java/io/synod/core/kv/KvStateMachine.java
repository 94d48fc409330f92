package io.synod.core.kv;

import static io.synod.core.kv.KvLayout.*;

import io.synod.core.paxos.CodedValue;
import io.synod.core.paxos.SnapshotSink;
import io.synod.core.paxos.SnapshotSource;
import io.synod.core.paxos.StateMachine;
import io.synod.core.store.CheckpointStore;
import io.synod.core.store.KvStore;
import io.synod.core.store.MemoryKvStore;
import io.synod.core.store.StoreBatch;
import io.synod.core.util.Check;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import io.synod.protocol.SessionCommand;
import io.synod.protocol.SessionResult;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;

/**
 * The key-value state machine, written once over a {@link KvStore}: byte values (put/get/delete/compare-and-set by
 * value and by version), integer lists (append/read, used by the linearizability checker), sessions with ephemeral
 * and sequential keys ({@link KvSessions}), the watch change log ({@link KvWatchLog}), deferred coded values
 * ({@link KvDeferrals}) and reserved keys. A key holds either a value or a list; a list operation on a value key (or
 * the reverse) is an error result, the same on every replica. The store decides only where the pairs live: in memory
 * ({@link MemoryKvStore}: the simulator, unit tests) or in RocksDB (the server); the key layout is {@link KvLayout}.
 *
 * <p><b>One batch per pass.</b> Every apply stages its changes (with the applied slot and, on a durable store, the
 * client's session record) in the {@link KvView}, where reads see them; {@link #commitApplied()} (the server's group
 * loop, after each Ready pass) writes them in one {@link StoreBatch}. On a store that is not durable each apply is
 * written at once. A durable machine reports {@link #durableAppliedSlot()}, {@link #durableSessions()} and
 * {@link #durableCoding()} (core's {@code StateMachine}): everything applied was chosen, so the store's state is a
 * prefix of the chosen state wherever the log stands.
 *
 * <p><b>Snapshots.</b> {@link #snapshot()} is the snapshot's pairs in {@link KvSnapshotFormat}; on a
 * {@link CheckpointStore} a snapshot is a checkpoint of the store instead, received and swapped in whole.
 *
 * <p><b>Deferred rebuild</b> (RS-Paxos coded values, docs/erasure.md): a coded {@code Put} (or, with {@code
 * keepNotes}, {@code AppendNote}) can be applied from its header alone ({@link #applyDeferred}): the key's version,
 * list, watch event and result are those of the whole command, and its bytes stay <em>unresolved</em> until
 * {@link #resolve} supplies them; the replica rebuilds them before anything reads them ({@link #unresolvedSlotsFor}),
 * and no snapshot is taken while any key is unresolved.
 *
 * <p>{@code keepNotes} (the simulator's coded workload): the CRC32C of the note of a list's last {@code AppendNote}
 * is state, so a replica that applies a coded note without its bytes has something to rebuild, like a {@code Put}'s
 * value; {@code ReadList} results then end with it (4 bytes, big-endian; 0 for no note), which the simulated clients
 * check against the note they appended.
 *
 * <p>Not thread-safe: a group's single applying thread is its only caller.
 */
public class KvStateMachine implements StateMachine, AutoCloseable {
    private static final byte[] EMPTY = new byte[0];

    private final KvStore store;
    private final KvView view;
    private final boolean durable;
    private final boolean keepNotes;
    /** What this replica applied, as watch events (not replicated state: see {@link KvWatchLog}). */
    private final KvWatchLog watchLog = new KvWatchLog(KvWatchLog.DEFAULT_CAPACITY);
    private final KvSessions sessions;
    private final KvDeferrals deferred;
    private final KvData data;
    private boolean ignoreDurableState;

    /** The machine in memory; {@code AppendNote}'s note is not kept. */
    public KvStateMachine() {
        this(false);
    }

    /** The machine in memory; with {@code keepNotes}, the note of each list's last append is state (see above). */
    public KvStateMachine(boolean keepNotes) {
        this(new MemoryKvStore(), keepNotes);
    }

    /** The machine over {@code store}, which it owns from now on (and closes). */
    public KvStateMachine(KvStore store, boolean keepNotes) {
        this.store = store;
        this.view = new KvView(store);
        this.durable = store.durable();
        this.keepNotes = keepNotes;
        this.sessions = new KvSessions(view, watchLog);
        this.deferred = new KvDeferrals(view, keepNotes);
        this.data = new KvStoreData(view, deferred, sessions);
        if (durableAppliedSlot() > 0) {
            watchLog.restored(); // The events up to the durable state were recorded by an earlier process.
        }
        deferred.load();
    }

    // ---- applying ----------------------------------------------------------------------------

    @Override
    public byte[] apply(long slot, byte[] payload) {
        return apply(slot, payload, null);
    }

    @Override
    public byte[] apply(long slot, byte[] payload, SessionWrite session) {
        byte[] encoded;
        if (SessionCommand.isSessionCommand(payload)) {
            SessionResult result;
            try {
                result = sessions.apply(slot, SessionCommand.decode(payload));
            } catch (IllegalArgumentException e) {
                result = new SessionResult.Refused(e.getMessage());
            }
            encoded = result.encode();
        } else {
            encoded = applyData(slot, payload);
        }
        applied(slot, encoded, session);
        return encoded;
    }

    private byte[] applyData(long slot, byte[] payload) {
        KvCommand command;
        try {
            command = KvCommand.decode(payload);
        } catch (IllegalArgumentException e) {
            return new KvResult.Error(e.getMessage()).encode();
        }
        KvResult result = KvCommands.apply(data, watchLog, slot, command);
        if (keepNotes && result instanceof KvResult.Done && isAppend(command)) {
            byte[] note = command instanceof KvCommand.AppendNote n ? KvDeferrals.noteDigest(n.note()) : null;
            view.stage(prefixed(NOTE_PREFIX, command.key()), note);
            deferred.drop(command.key());
        }
        return encodeResult(command, result);
    }

    /** The applied slot and (durable stores) the client's session record and its eviction, with the command's change. */
    private void applied(long slot, byte[] encoded, SessionWrite session) {
        StoreBatch staged = view.staged();
        staged.appliedSlot(slot);
        if (durable && session != null) {
            staged.put(sessionKey(session.clientId()), sessionRecord(session.sequence(), slot, encoded));
            if (session.evictedClientId() != 0) {
                staged.delete(sessionKey(session.evictedClientId()));
            }
        }
        settle();
    }

    /** A store that is not durable is written after each change (nothing waits for a pass's end there). */
    private void settle() {
        if (!durable) {
            view.commit();
        }
    }

    /**
     * Predicts only {@code Done} for a put or a list append, the one result such a write has unless the key holds the
     * other kind (a list for a put, a value for an append). Certain when the key does not hold the other kind now and
     * no command of {@code before} could make it: none writes the key with the other kind of write (for an append: a
     * put, compare-and-set or delete) and none is a session command (session expiry deletes keys). Anything else:
     * null.
     */
    @Override
    public byte[] resultBeforeApply(byte[] payload, List<byte[]> before) {
        KvCommand command = KvCommands.decodeData(payload);
        if (command == null) {
            return null;
        }
        boolean append = isAppend(command);
        if (!append && !(command instanceof KvCommand.Put)) {
            return null;
        }
        String key = command.key();
        if (append ? data.holdsValue(key) : data.holdsList(key)) {
            return null;
        }
        for (byte[] earlier : before) {
            if (SessionCommand.isSessionCommand(earlier)) {
                return null;
            }
            KvCommand other;
            try {
                other = KvCommand.decode(earlier);
            } catch (IllegalArgumentException e) {
                continue; // Applies as an error result and changes nothing.
            }
            if (!other.isReadOnly() && other.key().equals(key) && isAppend(other) != append) {
                return null;
            }
        }
        return new KvResult.Done().encode();
    }

    private static boolean isAppend(KvCommand command) {
        return command instanceof KvCommand.Append || command instanceof KvCommand.AppendNote;
    }

    /** A ReadList's encoded result; with {@code keepNotes} followed by the CRC32C of the list's last note. */
    private byte[] encodeResult(KvCommand command, KvResult result) {
        byte[] encoded = result.encode();
        if (!keepNotes || !(command instanceof KvCommand.ReadList) || !(result instanceof KvResult.ListValue)) {
            return encoded;
        }
        byte[] digest = view.get(prefixed(NOTE_PREFIX, command.key()));
        return ByteBuffer.allocate(encoded.length + 4).put(encoded).put(digest == null ? KvDeferrals.noteDigest(EMPTY) : digest)
                .array();
    }

    // ---- reads -------------------------------------------------------------------------------

    @Override
    public boolean isReadOnly(byte[] payload) {
        return KvCommands.isReadOnly(payload);
    }

    @Override
    public byte[] read(byte[] payload) {
        Object command = KvCommands.decodeRead(payload);
        return command instanceof SessionCommand session ? sessions.query(session).encode()
                : encodeResult((KvCommand) command, KvCommands.query(data, (KvCommand) command));
    }

    /** Decodes the payload and refuses a change of a reserved key ({@link ReservedKeys}), naming the key. */
    @Override
    public void validate(byte[] payload) {
        KvCommands.validate(payload);
    }

    /** Sessions, ephemeral and sequential keys, fencing tokens ({@link SessionCommand}). */
    public KvSessions sessions() {
        return sessions;
    }

    /** The live sessions, by id, staged changes included (what the leader's expiry timer reads). */
    public List<KvSessions.Session> liveSessions() {
        return sessions.sessions();
    }

    /** The change events this replica applied, by slot (what watches are served from). */
    public KvWatchLog watchLog() {
        return watchLog;
    }

    /** Number of data keys (values and lists), staged changes included; a full scan, for tests and status. */
    public long size() {
        long[] count = {0};
        view.scan(new byte[] {LIST}, StoreBatch.prefixEnd(new byte[] {VALUE}), (k, v) -> {
            count[0] += isDataKey(k) ? 1 : 0;
            return true;
        });
        return count[0];
    }

    /** The slot of the last command applied, staged or written (0 if none). */
    public long appliedSlot() {
        return view.appliedSlot();
    }

    // ---- durable state -----------------------------------------------------------------------

    /**
     * Makes {@link #durableAppliedSlot()} report no durable state, so the replica restores its snapshot into the
     * store: used when the group's log is being repaired (its entries between the snapshot and the store's slot cannot
     * be trusted).
     */
    public void ignoreDurableState() {
        ignoreDurableState = true;
    }

    @Override
    public long durableAppliedSlot() {
        return durable && !ignoreDurableState ? store.appliedSlot() : -1;
    }

    @Override
    public void applyCodingChange(long slot, byte[] parameters) { // With the applied slot, in one batch (core's rule C4).
        if (durable) {
            view.stage(CODING_KEY, parameters.clone());
            view.staged().appliedSlot(Math.max(view.staged().appliedSlot(), slot));
        }
    }

    @Override
    public byte[] durableCoding() {
        return durable && !ignoreDurableState ? store.get(CODING_KEY) : null;
    }

    @Override
    public void applyMembershipChange(long slot, byte[] membership) { // With the applied slot, in one batch (rule M7).
        if (durable) {
            view.stage(MEMBERSHIP_KEY, membership.clone());
            view.staged().appliedSlot(Math.max(view.staged().appliedSlot(), slot));
        }
    }

    @Override
    public byte[] durableMembership() {
        return durable && !ignoreDurableState ? store.get(MEMBERSHIP_KEY) : null;
    }

    @Override
    public boolean recordsMembership() {
        return true;
    }

    @Override
    public List<ClientSession> durableSessions() {
        List<ClientSession> out = new ArrayList<>();
        store.scanPrefix(SESSION_PREFIX, (key, value) -> {
            Check.state(isSessionKey(key), "the store holds a bad client session key of %d bytes", key.length);
            try {
                ByteBuffer in = ByteBuffer.wrap(value);
                long sequence = in.getLong();
                long slot = in.getLong();
                byte[] result = lengthPrefixed(in, "session result");
                Check.state(!in.hasRemaining(), "%d bytes after the record", in.remaining());
                out.add(new ClientSession(ByteBuffer.wrap(key, SESSION_PREFIX.length, 8).getLong(), sequence, slot, result));
            } catch (RuntimeException e) {
                throw new IllegalStateException("the store holds a bad client session record: " + e.getMessage(), e);
            }
            return true;
        });
        return out;
    }

    /** Writes everything staged since the last call (data changes, the applied slot, session records) in one batch. */
    public void commitApplied() {
        view.commit();
    }

    /** Staged keys not yet written to the store (for tests). */
    public int stagedKeys() {
        return view.staged().size();
    }

    // ---- deferred rebuild --------------------------------------------------------------------

    /** A {@code Put} or {@code AppendNote} without its value bytes (see {@link KvDeferrals#header}). */
    @Override
    public byte[] deferralHeader(byte[] payload) {
        return KvDeferrals.header(payload);
    }

    /**
     * Applies a {@code Put} or {@code AppendNote} from its header: the same version, watch event, session record and
     * result as the whole command (the bytes play no part in the rules); a {@code Put}'s key holds {@code [slot][no
     * bytes]} and is recorded as unresolved in the same batch, as is (with {@code keepNotes}) an {@code AppendNote}'s
     * note, whose earlier value stays until the bytes arrive (never read meanwhile).
     */
    @Override
    public byte[] applyDeferred(long slot, byte[] header, int payloadLength, int payloadChecksum, SessionWrite session) {
        KvCommand partial = KvDeferrals.parseHeader(header, payloadLength);
        KvResult result = KvCommands.apply(data, watchLog, slot, partial);
        if (result instanceof KvResult.Done && (partial instanceof KvCommand.Put || keepNotes)) {
            deferred.put(partial.key(), new KvDeferrals.Deferred(slot, header.clone(), payloadLength, payloadChecksum));
        }
        byte[] encoded = result.encode();
        applied(slot, encoded, session);
        return encoded;
    }

    /**
     * The unresolved slots {@code payload} reads: the key of a read or compare-and-set, the unresolved keys in a
     * scan's range, every one for a session command or an undecodable payload; none for a put, delete or append.
     */
    @Override
    public long[] unresolvedSlotsFor(byte[] payload) {
        return deferred.isEmpty() ? NO_SLOTS : deferred.slotsFor(payload);
    }

    @Override
    public long[] unresolvedSlots() {
        return deferred.isEmpty() ? NO_SLOTS : deferred.slots();
    }

    /**
     * Whether every unresolved key's slot holds, in {@code codedBySlot} (the log's coded entries by slot), the coded
     * value that was applied there (same length and CRC32C). False means the log lost an entry whose deferred apply
     * reached the store (it was written before that pass's log fsync): the shards to rebuild it are not in this log,
     * so the group starts from its snapshot instead ({@link #ignoreDurableState()}).
     */
    public boolean unresolvedHeldBy(LongFunction<CodedValue> codedBySlot) {
        return deferred.heldBy(codedBySlot);
    }

    /** Number of unresolved keys (tests, status). */
    public int unresolvedKeys() {
        return deferred.size();
    }

    @Override
    public void resolve(long slot, byte[] payload) {
        deferred.resolve(slot, payload);
        settle();
    }

    /**
     * Resolves every key unresolved at or below {@code snapshotSlot} from a peer's snapshot of chosen state through
     * that slot (a checkpoint of the store's kind, read without installing it, or {@link #snapshot()} bytes).
     */
    @Override
    public void resolveFrom(long snapshotSlot, SnapshotSource snapshot) {
        deferred.resolveFrom(snapshotSlot, keys -> {
            List<byte[]> found = store instanceof CheckpointStore checkpoints ? checkpoints.readCheckpoint(snapshot, keys) : null;
            if (found == null) {
                TreeMap<byte[], byte[]> pairs = KvSnapshotFormat.parse(snapshot.readAll());
                found = keys.stream().map(pairs::get).toList();
            }
            return found;
        });
        settle();
    }

    private void refuseWhileUnresolved(String what) {
        Check.state(deferred.isEmpty(), "%s while %d key(s) are unresolved (deferred rebuild): %s", what, deferred.size(),
                deferred.all().keySet());
    }

    // ---- snapshots ---------------------------------------------------------------------------

    /** The snapshot's pairs (data, session tables, notes) in key order, staged changes included. */
    @Override
    public byte[] snapshot() {
        refuseWhileUnresolved("snapshot taken");
        TreeMap<byte[], byte[]> pairs = new TreeMap<>(Arrays::compareUnsigned);
        view.scan(FIRST_KEY, null, (key, value) -> {
            if (isSnapshotKey(key)) {
                pairs.put(key, value);
            }
            return true;
        });
        return KvSnapshotFormat.encode(pairs);
    }

    /** Replaces the state with {@link #snapshot()}'s bytes at once (the applied slot and client sessions are cleared). */
    @Override
    public void restore(byte[] snapshot) {
        replaceWith(0, KvSnapshotFormat.parse(snapshot), List.of());
    }

    /**
     * Replaces the whole state through {@code slot}: a checkpoint of a {@link CheckpointStore} is swapped in as the
     * store; any other source is read as {@link #snapshot()} bytes. The applied slot and the client sessions are
     * written with it.
     */
    @Override
    public void restore(long slot, SnapshotSource source, List<ClientSession> clientSessions) {
        if (store instanceof CheckpointStore checkpoints) {
            view.discard();
            deferred.clear();
            watchLog.restored();
            if (checkpoints.swapIn(source)) {
                deferred.load(); // A checkpoint is taken with nothing unresolved: normally none.
                StoreBatch batch = new StoreBatch().deleteRange(SESSION_PREFIX, StoreBatch.prefixEnd(SESSION_PREFIX));
                store.write(withSessions(batch, slot, clientSessions));
                return;
            }
        }
        replaceWith(slot, KvSnapshotFormat.parse(source.readAll()), clientSessions);
    }

    /**
     * A checkpoint of everything applied through {@code slot} (the staged changes are written first) on a
     * {@link CheckpointStore}; else {@link #snapshot()}'s bytes.
     */
    @Override
    public SnapshotSource snapshotSource(long slot) {
        if (!(store instanceof CheckpointStore checkpoints)) {
            return SnapshotSource.ofBytes(snapshot());
        }
        refuseWhileUnresolved("checkpoint at slot " + slot + " taken"); // Every snapshot holds full values (docs/erasure.md rule 5).
        view.staged().appliedSlot(Math.max(view.staged().appliedSlot(), slot)); // Noops and retried commands advance the slot too.
        view.commit();
        return checkpoints.checkpoint(slot);
    }

    @Override
    public SnapshotSink snapshotSink(long slot) {
        return store instanceof CheckpointStore checkpoints ? checkpoints.snapshotSink(slot) : new SnapshotSink.InMemory();
    }

    /**
     * One batch: every key replaced by {@code pairs}, the applied slot and the client sessions; the session tables are
     * checked first ({@link IllegalArgumentException} naming the break), so a bad snapshot replaces nothing.
     */
    private void replaceWith(long slot, TreeMap<byte[], byte[]> pairs, List<ClientSession> clientSessions) {
        // Only the session tables and the values of created keys are copied for the check, not the whole state.
        MemoryKvStore check = new MemoryKvStore();
        StoreBatch sessionTables = new StoreBatch();
        pairs.forEach((k, v) -> {
            if (isSessionStateKey(k)) {
                sessionTables.put(k, v);
            }
            if (startsWith(k, META_PREFIX)) {
                byte[] valueKey = key(VALUE, userKey(k, META_PREFIX.length));
                if (pairs.containsKey(valueKey)) {
                    sessionTables.put(valueKey, pairs.get(valueKey));
                }
            }
        });
        check.write(sessionTables);
        try {
            new KvSessions(new KvView(check), new KvWatchLog(1)).checkInvariants();
        } catch (IllegalStateException e) {
            throw new IllegalArgumentException("kv snapshot session tables are inconsistent: " + e.getMessage(), e);
        }
        view.discard();
        deferred.clear(); // The range deletion removes their records too.
        watchLog.restored();
        StoreBatch batch = new StoreBatch().deleteRange(FIRST_KEY, PAST_LAST_KEY);
        for (Map.Entry<byte[], byte[]> e : pairs.entrySet()) {
            batch.put(e.getKey(), e.getValue());
        }
        store.write(withSessions(batch, slot, clientSessions));
    }

    private StoreBatch withSessions(StoreBatch batch, long slot, List<ClientSession> clientSessions) {
        if (durable) {
            for (ClientSession s : clientSessions) {
                batch.put(sessionKey(s.clientId()), sessionRecord(s.sequence(), s.slot(), s.result()));
            }
        }
        return batch.appliedSlot(slot);
    }

    // ---- closing -----------------------------------------------------------------------------

    /** Closes the store without writing what is staged: what a process death between two batches leaves (tests). */
    protected void closeWithoutWriting() {
        view.discard();
        close();
    }

    /** Writes what is staged (safe at any time: everything applied was chosen) and closes the store. */
    @Override
    public void close() {
        try {
            if (store.isOpen()) {
                view.commit();
            }
        } finally {
            store.close();
        }
    }
}
