package io.synod.server.state;

import static io.synod.server.state.RocksKeys.*;

import io.synod.core.kv.KvCommands;
import io.synod.core.kv.KvDeferral;
import io.synod.core.kv.KvSessions;
import io.synod.core.kv.KvWatchLog;
import io.synod.core.paxos.CodedValue;
import io.synod.core.paxos.SnapshotSink;
import io.synod.core.paxos.SnapshotSource;
import io.synod.core.paxos.StateMachine;
import io.synod.core.store.KvStore;
import io.synod.core.store.StoreBatch;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import io.synod.protocol.SessionCommand;
import io.synod.protocol.SessionResult;
import io.synod.server.wire.ByteReader;
import io.synod.server.wire.MalformedInputException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;

/**
 * The key-value state machine of {@code io.synod.core.kv} (same commands, same results, same error
 * strings) kept in RocksDB, as the durable source of the group's applied state. Values live under
 * {@code 'v' + key} as {@code [version u64][value]} (the version is the slot of the key's last write), lists (of
 * longs) under {@code 'l' + key}; outside both ranges are the client-session table ({@code 0 's' + client id} ->
 * sequence, slot, result), the session tables and the coding ({@link RocksKeys}). Storage itself (the database,
 * its batches, the applied slot, checkpoints and their swap-in) is {@link RocksKvStore}'s.
 *
 * <p><b>One batch per pass.</b> {@link #apply} stages its data change, the applied slot and the
 * client's session record (and the eviction of the oldest session) in memory, where reads see
 * them; {@link #commitApplied()}, called by the group loop after each Ready pass, writes all of
 * them in <em>one</em> {@link StoreBatch}: RocksDB shows all of a pass's changes or none. On
 * restart the replica starts from {@link #durableAppliedSlot()} and {@link #durableSessions()}
 * (see core's {@code StateMachine}): everything applied was chosen, so RocksDB's state is a prefix
 * of the chosen state wherever the Synod log stands, and core makes it the snapshot if it is ahead.
 *
 * <p><b>Snapshots are RocksDB checkpoints.</b> {@link #snapshotSource} writes the staged changes,
 * then has the store create a checkpoint and serves it as a {@link CheckpointSource};
 * {@link #snapshotSink} receives a peer's checkpoint ({@link CheckpointSink});
 * {@link #restore(long, SnapshotSource, List)} has the store swap a checkpoint in as the group's RocksDB.
 *
 * <p>Not thread-safe: the group's event loop is its only caller.
 */
public final class RocksKvStateMachine implements StateMachine, AutoCloseable {
    private final RocksKvStore store;
    /** Changes (and the applied slot) not yet in RocksDB; reads look here first. */
    private final StoreBatch staged = new StoreBatch();
    private boolean ignoreDurableState;
    /** What this replica applied, as watch events (not replicated state: see {@link KvWatchLog}). */
    private final KvWatchLog watchLog = new KvWatchLog(KvWatchLog.DEFAULT_CAPACITY);
    /** The session tables' commands, applied through this machine's staged view. */
    private final RocksSessionTables sessionTables = new RocksSessionTables(this, watchLog);
    /** Value keys applied from a deferral header whose bytes are not here yet (mirrors RocksDB's {@code 0 'U'} records). */
    private final RocksDeferrals deferred = new RocksDeferrals();
    /** The value and list keys as the commands' rules ({@link KvCommands}) see them. */
    private final RocksKvData data = new RocksKvData(this, deferred, sessionTables);

    /** A machine whose checkpoints go to {@code <dir>-snapshots} (tests; a node passes its group's snapshot directory). */
    public RocksKvStateMachine(Path dir) throws IOException {
        this(dir, dir.resolveSibling(dir.getFileName() + "-snapshots"));
    }

    /**
     * Opens (or creates) the RocksDB in {@code dir}, first finishing or discarding a checkpoint swap
     * a crash interrupted; checkpoints are created under {@code checkpointDir}.
     */
    public RocksKvStateMachine(Path dir, Path checkpointDir) throws IOException {
        store = new RocksKvStore(dir, checkpointDir);
        if (durableAppliedSlot() > 0) {
            watchLog.restored(); // The events up to the durable state were recorded by an earlier process.
        }
        deferred.load(this);
    }

    /** The slot of the last command applied, staged or written (0 if none). */
    public long appliedSlot() {
        return staged.appliedSlot() >= 0 ? staged.appliedSlot() : store.appliedSlot();
    }

    /**
     * Makes {@link #durableAppliedSlot()} report no durable state, so the replica restores its
     * snapshot into RocksDB: used when the group's log is being repaired (its entries between the
     * snapshot and RocksDB's slot cannot be trusted).
     */
    public void ignoreDurableState() {
        ignoreDurableState = true;
    }

    @Override
    public long durableAppliedSlot() {
        if (ignoreDurableState) {
            return -1;
        }
        return store.appliedSlot();
    }

    @Override
    public void applyCodingChange(long slot, byte[] parameters) { // With the applied slot, in one batch (core's rule C4).
        staged.put(CODING_KEY, parameters.clone());
        staged.appliedSlot(Math.max(staged.appliedSlot(), slot));
    }

    @Override
    public byte[] durableCoding() {
        return ignoreDurableState ? null : store.get(CODING_KEY);
    }

    @Override
    public List<ClientSession> durableSessions() {
        List<ClientSession> out = new ArrayList<>();
        store.scanPrefix(SESSION_PREFIX, (key, value) -> {
            if (!isSessionKey(key)) {
                throw new IllegalStateException("RocksDB holds a bad client session key of " + key.length + " bytes");
            }
            ByteReader r = new ByteReader(value);
            try {
                long sequence = r.i64("session sequence");
                long slot = r.i64("session slot");
                byte[] result = r.bytes("session result");
                r.expectEnd("session record");
                out.add(new ClientSession(ByteBuffer.wrap(key, SESSION_PREFIX.length, 8).getLong(), sequence, slot, result));
            } catch (MalformedInputException e) {
                throw new IllegalStateException("RocksDB holds a bad client session record: " + e.getMessage(), e);
            }
            return true;
        });
        return out;
    }

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
                result = sessionTables.applySession(slot, SessionCommand.decode(payload));
            } catch (IllegalArgumentException e) {
                result = new SessionResult.Refused(e.getMessage());
            }
            encoded = result.encode();
        } else {
            KvResult result;
            try {
                KvCommand command = KvCommand.decode(payload);
                result = KvCommands.apply(data, watchLog, slot, command);
            } catch (IllegalArgumentException e) {
                result = new KvResult.Error(e.getMessage());
            }
            encoded = result.encode();
        }
        stageApplied(slot, encoded, session);
        return encoded;
    }

    /** The applied slot and the client's session record (and the eviction it causes), staged with the command's change. */
    private void stageApplied(long slot, byte[] encoded, SessionWrite session) {
        staged.appliedSlot(slot);
        if (session != null) {
            staged.put(sessionKey(session.clientId()), sessionRecord(session.sequence(), slot, encoded));
            if (session.evictedClientId() != 0) {
                staged.delete(sessionKey(session.evictedClientId()));
            }
        }
    }

    // ---- deferred follower rebuild (docs/erasure.md; the same rules as core's KvStateMachine) ----

    /** The same header as the in-memory machine's: a {@code Put} or {@code AppendNote} without its value bytes. */
    @Override
    public byte[] deferralHeader(byte[] payload) {
        return KvDeferral.header(payload);
    }

    /**
     * Applies a {@code Put} or {@code AppendNote} from its header: the same version, watch event, session record
     * and result as the whole command. A {@code Put}'s value key holds {@code [slot][no bytes]} and the key is
     * recorded as unresolved (in the same batch) until {@link #resolve} or {@link #resolveFrom} supplies the bytes;
     * an {@code AppendNote}'s note is not state here, so nothing is left unresolved.
     */
    @Override
    public byte[] applyDeferred(long slot, byte[] header, int payloadLength, int payloadChecksum, SessionWrite session) {
        KvCommand partial = KvDeferral.parseHeader(header, payloadLength);
        String key = partial.key();
        KvResult result = KvCommands.apply(data, watchLog, slot, partial);
        if (result instanceof KvResult.Done && partial instanceof KvCommand.Put) {
            deferred.put(this, key, new RocksDeferrals.Deferred(slot, header.clone(), payloadLength, payloadChecksum));
        }
        byte[] encoded = result.encode();
        stageApplied(slot, encoded, session);
        return encoded;
    }

    /**
     * The unresolved slots {@code payload} reads: the key of a read or compare-and-set, the unresolved keys in a
     * scan's range, every one for a session command or an undecodable payload; none for a put, delete or append.
     */
    @Override
    public long[] unresolvedSlotsFor(byte[] payload) {
        return deferred.slotsFor(payload);
    }

    @Override
    public long[] unresolvedSlots() {
        return deferred.isEmpty() ? NO_SLOTS : deferred.slots();
    }

    /**
     * Whether every unresolved key's slot holds, in {@code codedBySlot} (the log's coded entries by slot), the coded
     * value that was applied there (same length and CRC32C). False means the log lost an entry whose deferred apply
     * reached RocksDB (RocksDB was written before that pass's log fsync): the shards to rebuild it are not in this
     * log, so the group starts from its snapshot instead ({@link #ignoreDurableState()}).
     */
    public boolean unresolvedHeldBy(LongFunction<CodedValue> codedBySlot) {
        return deferred.heldBy(codedBySlot);
    }

    /** Number of unresolved keys (tests, status). */
    public int unresolvedKeys() {
        return deferred.size();
    }

    /**
     * The rebuilt payload of the {@code Put} applied deferred at {@code slot}: its value is staged under the key
     * (version unchanged) with the unresolved record's removal. Ignored if the key is not unresolved at that slot;
     * {@link IllegalStateException} if the payload's length, CRC32C or header differ from those applied there.
     */
    @Override
    public void resolve(long slot, byte[] payload) {
        deferred.resolve(this, slot, payload);
    }

    /**
     * Resolves every key unresolved at or below {@code snapshotSlot} from a peer's snapshot of chosen state through
     * that slot (a RocksDB checkpoint, opened read-only, or {@link #snapshot()} bytes): no write of such a key was
     * applied since, so the snapshot holds its bytes at the same version; each is checked against the length and
     * CRC32C of the command applied deferred.
     */
    @Override
    public void resolveFrom(long snapshotSlot, SnapshotSource snapshot) {
        List<String> due = new ArrayList<>();
        for (Map.Entry<String, RocksDeferrals.Deferred> e : deferred.all().entrySet()) {
            if (e.getValue().slot() <= snapshotSlot) {
                due.add(e.getKey());
            }
        }
        if (due.isEmpty()) {
            return;
        }
        Map<String, byte[]> found = RocksDeferrals.storedIn(snapshot, due);
        for (String key : due) {
            RocksDeferrals.Deferred d = deferred.get(key);
            byte[] stored = found.get(key);
            if (stored == null || stored.length < 8 || versionOf(stored) != d.slot()
                    || !RocksDeferrals.matchesValue(d, valueOf(stored))) {
                throw new IllegalStateException("a peer's snapshot through slot " + snapshotSlot
                        + " does not hold the bytes of key " + key + " written at slot " + d.slot());
            }
        }
        for (String key : due) {
            stage(key(VALUE, key), found.get(key));
            deferred.drop(this, key);
        }
    }

    private void refuseWhileUnresolved(String what) {
        if (!deferred.isEmpty()) {
            throw new IllegalStateException(what + " while " + deferred.size() + " key(s) are unresolved (deferred rebuild): "
                    + deferred.all().keySet());
        }
    }

    /**
     * Writes everything staged since the last call (data changes, the applied slot, session records)
     * in one batch.
     */
    public void commitApplied() {
        store.write(staged);
        staged.clear();
    }

    /** Staged keys not yet written to RocksDB (for tests). */
    public int stagedKeys() {
        return staged.size();
    }

    /** The live sessions, by id, staged changes included (what the leader's expiry timer reads). */
    public List<KvSessions.Session> liveSessions() {
        return sessionTables.liveSessions();
    }

    /** The change events this replica applied, by slot (what watches are served from). */
    public KvWatchLog watchLog() {
        return watchLog;
    }

    /** Keys under {@code prefix} in RocksDB after writing what is staged (every staged change is an applied one). */
    List<byte[]> prefixKeys(byte[] prefix) {
        commitApplied();
        List<byte[]> out = new ArrayList<>();
        store.scanPrefix(prefix, (key, value) -> out.add(key));
        return out;
    }

    @Override
    public boolean isReadOnly(byte[] payload) {
        return KvCommands.isReadOnly(payload);
    }

    @Override
    public byte[] read(byte[] payload) {
        Object command = KvCommands.decodeRead(payload);
        return command instanceof SessionCommand session ? sessionTables.querySession(session).encode()
                : KvCommands.query(data, (KvCommand) command).encode();
    }

    @Override
    public void validate(byte[] payload) {
        KvCommands.validate(payload);
    }

    /**
     * Every data pair and session-table pair in key order, staged changes included (the applied slot and the client
     * sessions are not part of it).
     */
    @Override
    public byte[] snapshot() {
        refuseWhileUnresolved("snapshot taken");
        TreeMap<byte[], byte[]> data = pairs(true);
        return RocksSnapshotFormat.encode(data);
    }

    /** RocksDB's data pairs (and session-table pairs if {@code withSessions}) with the staged changes laid over them. */
    private TreeMap<byte[], byte[]> pairs(boolean withSessions) {
        TreeMap<byte[], byte[]> data = new TreeMap<>(Arrays::compareUnsigned);
        store.scan(FIRST_KEY, null, (key, value) -> {
            if (isDataKey(key) || (withSessions && isSessionStateKey(key))) {
                data.put(key, value);
            }
            return true;
        });
        for (Map.Entry<byte[], byte[]> e : staged.changes().entrySet()) {
            if (!isDataKey(e.getKey()) && !(withSessions && isSessionStateKey(e.getKey()))) {
                continue;
            }
            if (e.getValue() == null) {
                data.remove(e.getKey());
            } else {
                data.put(e.getKey(), e.getValue());
            }
        }
        return data;
    }

    /** Replaces the data with {@link #snapshot()}'s bytes at once (the applied slot and sessions are cleared). */
    @Override
    public void restore(byte[] snapshot) {
        replaceWith(0, RocksSnapshotFormat.parse(snapshot), List.of());
    }

    /**
     * Replaces the whole state through {@code slot}: a {@link CheckpointSource} is swapped in as the
     * database (see the class comment); any other source is read as {@link #snapshot()} bytes. The
     * applied slot and the session table are written with it.
     */
    @Override
    public void restore(long slot, SnapshotSource source, List<ClientSession> sessions) {
        if (source instanceof CheckpointSource checkpoint) {
            swapIn(checkpoint.dir());
            replaceSessions(slot, sessions);
        } else {
            replaceWith(slot, RocksSnapshotFormat.parse(source.readAll()), sessions);
        }
    }

    /**
     * A RocksDB checkpoint of everything applied through {@code slot} (the staged changes are
     * written first), under the snapshot directory, fsynced.
     */
    @Override
    public SnapshotSource snapshotSource(long slot) {
        refuseWhileUnresolved("checkpoint at slot " + slot + " taken"); // Every snapshot holds full values (docs/erasure.md rule 5).
        staged.appliedSlot(Math.max(staged.appliedSlot(), slot)); // Noops and retried commands advance the slot too.
        commitApplied();
        return store.checkpoint(slot);
    }

    /** Receives a peer's checkpoint into {@code incoming-...} under the snapshot directory. */
    @Override
    public SnapshotSink snapshotSink(long slot) {
        return store.snapshotSink(slot);
    }

    /** Swaps checkpoint {@code from} in as this database; staged changes are dropped (the checkpoint replaces them). */
    private void swapIn(Path from) {
        staged.clear();
        deferred.clear();
        watchLog.restored();
        store.swapIn(from);
        deferred.load(this); // A checkpoint is taken with nothing unresolved: normally none.
    }

    /** One batch: every key replaced by {@code data}, the applied slot and the sessions. */
    private void replaceWith(long slot, TreeMap<byte[], byte[]> data, List<ClientSession> sessions) {
        staged.clear();
        deferred.clear(); // The delete below removes their records too.
        watchLog.restored();
        StoreBatch batch = new StoreBatch().deleteRange(FIRST_KEY, PAST_LAST_KEY);
        for (Map.Entry<byte[], byte[]> e : data.entrySet()) {
            batch.put(e.getKey(), e.getValue());
        }
        store.write(withSessions(batch, slot, sessions));
    }

    /** One batch: the session table replaced and the applied slot set (after a checkpoint swap). */
    private void replaceSessions(long slot, List<ClientSession> sessions) {
        StoreBatch batch = new StoreBatch().deleteRange(SESSION_PREFIX, StoreBatch.prefixEnd(SESSION_PREFIX));
        store.write(withSessions(batch, slot, sessions));
    }

    private static StoreBatch withSessions(StoreBatch batch, long slot, List<ClientSession> sessions) {
        for (ClientSession s : sessions) {
            batch.put(sessionKey(s.clientId()), sessionRecord(s.sequence(), s.slot(), s.result()));
        }
        return batch.appliedSlot(slot);
    }

    /** Number of data keys (values and lists), staged changes included; a full scan, for tests and status. */
    public long size() {
        return pairs(false).size();
    }

    /** A key as the state machine sees it: staged, else (unless a restore is staged) RocksDB's. */
    byte[] get(byte[] key) {
        return staged.contains(key) ? staged.get(key) : store.get(key);
    }

    /** Stages {@code value} (null: a delete) under {@code key}, for the next {@link #commitApplied()}. */
    void stage(byte[] key, byte[] value) {
        if (value == null) {
            staged.delete(key);
        } else {
            staged.put(key, value);
        }
    }

    /** The store itself (without what is staged: a scan writes the staged batch first). */
    KvStore store() {
        return store;
    }

    /** Closes RocksDB without writing what is staged: what a process death between two batches leaves (tests). */
    void closeWithoutWriting() {
        staged.clear();
        close();
    }

    /** Writes what is staged (safe at any time: everything applied was chosen) and closes RocksDB. */
    @Override
    public void close() {
        try {
            if (store.isOpen()) {
                commitApplied();
            }
        } finally {
            store.close();
        }
    }
}
