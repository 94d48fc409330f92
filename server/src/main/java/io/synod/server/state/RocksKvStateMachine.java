package io.synod.server.state;

import io.synod.core.kv.KvCommand;
import io.synod.core.kv.KvResult;
import io.synod.core.kv.KvSessions;
import io.synod.core.kv.KvStateMachine;
import io.synod.core.kv.KvWatchLog;
import io.synod.core.kv.SessionCommand;
import io.synod.core.kv.SessionResult;
import io.synod.core.paxos.StateMachine;
import io.synod.server.wire.ByteReader;
import io.synod.server.wire.ByteWriter;
import io.synod.server.wire.MalformedInputException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import io.synod.core.paxos.SnapshotSink;
import io.synod.core.paxos.SnapshotSource;
import java.io.UncheckedIOException;
import java.nio.file.StandardCopyOption;
import org.rocksdb.Checkpoint;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The key-value state machine of {@code io.synod.core.kv} (same commands, same results, same error
 * strings) kept in RocksDB, as the durable source of the group's applied state. Values live under
 * {@code 'v' + key} as {@code [version u64][value]} (the version is the slot of the key's last write), lists (of longs) under {@code 'l' + key}; outside both ranges are the applied
 * slot ({@code 0 "applied"}) and the client-session table ({@code 0 's' + client id} ->
 * sequence, slot, result).
 *
 * <p><b>One batch per pass.</b> {@link #apply} stages its data change, the applied slot and the
 * client's session record (and the eviction of the oldest session) in memory, where reads see
 * them; {@link #commitApplied()}, called by the group loop after each Ready pass, writes all of
 * them in <em>one</em> {@link WriteBatch}: RocksDB shows all of a pass's changes or none. On
 * restart the replica starts from {@link #durableAppliedSlot()} and {@link #durableSessions()}
 * (see core's {@code StateMachine}): everything applied was chosen, so RocksDB's state is a prefix
 * of the chosen state wherever the Synod log stands, and core makes it the snapshot if it is ahead.
 *
 * <p><b>Snapshots are RocksDB checkpoints.</b> {@link #snapshotSource} writes the staged changes,
 * then creates a {@link Checkpoint} (SST files hard-linked) under the group's snapshot directory
 * and serves it as a {@link CheckpointSource}; {@link #snapshotSink} receives a peer's checkpoint
 * into a temporary directory ({@link CheckpointSink}); {@link #restore(long, SnapshotSource, List)}
 * swaps a checkpoint in as the group's RocksDB: a durable copy ({@code <db>.next}) is built, the
 * database is closed, {@code <db>} is renamed to {@code <db>.old} and {@code <db>.next} to
 * {@code <db>}, and it is reopened; opening finishes or discards a swap a crash interrupted.
 *
 * <p>Not thread-safe: the group's event loop is its only caller.
 */
public final class RocksKvStateMachine implements StateMachine, AutoCloseable {
    static {
        RocksDB.loadLibrary();
    }

    private static final byte VALUE = 'v';
    private static final byte LIST = 'l';
    private static final byte[] APPLIED_KEY = {0, 'a', 'p', 'p', 'l', 'i', 'e', 'd'};
    private static final byte[] SESSION_PREFIX = {0, 's'};
    /** 2: values stored as [version][value]; 3: plus the session tables (2 is still read: no sessions). */
    private static final int SNAPSHOT_VERSION = 3;
    /** Session table: {@code 0 'S' id} -> ttl, renewal slot, number of owned keys. */
    private static final byte[] LEASE_PREFIX = {0, 'S'};
    /** Token and owner of a created key: {@code 0 'M' key} -> token, owner. */
    private static final byte[] META_PREFIX = {0, 'M'};
    /** Per-parent sequence counters: {@code 0 'Q' parent} -> next. */
    private static final byte[] SEQUENCE_PREFIX = {0, 'Q'};
    /** Session -> keys index: {@code 0 'O' owner key} -> empty. */
    private static final byte[] OWNED_PREFIX = {0, 'O'};
    /** The whole key space (every key here starts below 0xFF). */
    private static final byte[] FIRST_KEY = {0};
    private static final byte[] PAST_LAST_KEY = {(byte) 0xFF, (byte) 0xFF};

    private final Path dir;
    private final Path checkpointDir;
    private final Options options;
    private RocksDB db;
    private final WriteOptions writeOptions = new WriteOptions();
    /** Staged changes not yet in RocksDB: key -> value, or null for a delete. */
    private final TreeMap<byte[], byte[]> staged = new TreeMap<>(Arrays::compareUnsigned);
    /** The applied slot staged with the changes, or -1. */
    private long stagedSlot = -1;
    private boolean ignoreDurableState;
    /** Makes checkpoint and transfer directory names unique within this process. */
    private long nameCounter;
    private final String nameEpoch = Long.toHexString(System.currentTimeMillis());
    /** What this replica applied, as watch events (not replicated state: see {@link KvWatchLog}). */
    private final KvWatchLog watchLog = new KvWatchLog(KvWatchLog.DEFAULT_CAPACITY);

    /** A machine whose checkpoints go to {@code <dir>-snapshots} (tests; a node passes its group's snapshot directory). */
    public RocksKvStateMachine(Path dir) throws IOException {
        this(dir, dir.resolveSibling(dir.getFileName() + "-snapshots"));
    }

    /**
     * Opens (or creates) the RocksDB in {@code dir}, first finishing or discarding a checkpoint swap
     * a crash interrupted; checkpoints are created under {@code checkpointDir}.
     */
    public RocksKvStateMachine(Path dir, Path checkpointDir) throws IOException {
        this.dir = dir;
        this.checkpointDir = checkpointDir;
        Files.createDirectories(checkpointDir);
        recoverSwap();
        Files.createDirectories(dir);
        options = new Options().setCreateIfMissing(true);
        try {
            db = RocksDB.open(options, dir.toString());
        } catch (RocksDBException e) {
            options.close();
            throw new IOException("cannot open RocksDB in " + dir + ": " + e.getMessage(), e);
        }
        if (durableAppliedSlot() > 0) {
            watchLog.restored(); // The events up to the durable state were recorded by an earlier process.
        }
    }

    private Path next() {
        return dir.resolveSibling(dir.getFileName() + ".next");
    }

    private Path old() {
        return dir.resolveSibling(dir.getFileName() + ".old");
    }

    /**
     * A swap renames {@code <db>} to {@code <db>.old}, then the complete, durable {@code <db>.next}
     * to {@code <db>}. A crash between the renames leaves no {@code <db>}: the new one is taken if
     * present, else the old one. Any other leftover is discarded.
     */
    private void recoverSwap() throws IOException {
        if (!Files.exists(dir)) {
            if (Files.exists(next())) {
                Files.move(next(), dir, StandardCopyOption.ATOMIC_MOVE);
            } else if (Files.exists(old())) {
                Files.move(old(), dir, StandardCopyOption.ATOMIC_MOVE);
            }
        }
        RocksFiles.deleteRecursively(next());
        RocksFiles.deleteRecursively(old());
    }

    /** The slot of the last command applied, staged or written (0 if none). */
    public long appliedSlot() {
        if (stagedSlot >= 0) {
            return stagedSlot;
        }
        byte[] v = dbGet(APPLIED_KEY);
        return v == null ? 0 : ByteBuffer.wrap(v).getLong();
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
        byte[] v = dbGet(APPLIED_KEY);
        return v == null ? 0 : ByteBuffer.wrap(v).getLong();
    }

    @Override
    public List<ClientSession> durableSessions() {
        List<ClientSession> out = new ArrayList<>();
        try (RocksIterator it = db.newIterator()) {
            for (it.seek(SESSION_PREFIX); it.isValid() && isSessionKey(it.key()); it.next()) {
                ByteBuffer k = ByteBuffer.wrap(it.key(), SESSION_PREFIX.length, 8);
                ByteReader r = new ByteReader(it.value());
                try {
                    long sequence = r.i64("session sequence");
                    long slot = r.i64("session slot");
                    byte[] result = r.bytes("session result");
                    r.expectEnd("session record");
                    out.add(new ClientSession(k.getLong(), sequence, slot, result));
                } catch (MalformedInputException e) {
                    throw new IllegalStateException("RocksDB holds a bad client session record: " + e.getMessage(), e);
                }
            }
        }
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
                result = applySession(slot, SessionCommand.decode(payload));
            } catch (IllegalArgumentException e) {
                result = new SessionResult.Refused(e.getMessage());
            }
            encoded = result.encode();
        } else {
            KvResult result;
            try {
                KvCommand command = KvCommand.decode(payload);
                boolean existed = !command.isReadOnly()
                        && (get(key(VALUE, command.key())) != null || get(key(LIST, command.key())) != null);
                result = execute(slot, command);
                recordChange(slot, command, existed, result);
            } catch (IllegalArgumentException e) {
                result = new KvResult.Error(e.getMessage());
            }
            encoded = result.encode();
        }
        stagedSlot = slot;
        if (session != null) {
            staged.put(sessionKey(session.clientId()), sessionRecord(session.sequence(), slot, encoded));
            if (session.evictedClientId() != 0) {
                staged.put(sessionKey(session.evictedClientId()), null);
            }
        }
        return encoded;
    }

    /**
     * Writes everything staged since the last call (data changes, the applied slot, session records)
     * in one {@link WriteBatch}.
     */
    public void commitApplied() {
        if (staged.isEmpty() && stagedSlot < 0) {
            return;
        }
        try (WriteBatch batch = new WriteBatch()) {
            for (Map.Entry<byte[], byte[]> e : staged.entrySet()) {
                if (e.getValue() == null) {
                    batch.delete(e.getKey());
                } else {
                    batch.put(e.getKey(), e.getValue());
                }
            }
            if (stagedSlot >= 0) {
                batch.put(APPLIED_KEY, ByteBuffer.allocate(8).putLong(stagedSlot).array());
            }
            db.write(writeOptions, batch);
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB write failed at slot " + stagedSlot + ": " + e.getMessage(), e);
        }
        staged.clear();
        stagedSlot = -1;
    }

    /** Staged keys not yet written to RocksDB (for tests). */
    public int stagedKeys() {
        return staged.size();
    }

    private KvResult execute(long slot, KvCommand command) {
        String key = command.key();
        if (command.isReadOnly()) {
            return query(command);
        }
        byte[] valueKey = key(VALUE, key);
        byte[] listKey = key(LIST, key);
        boolean listOp = command instanceof KvCommand.Append || command instanceof KvCommand.AppendNote;
        byte[] stored = get(valueKey);
        if (listOp && stored != null) {
            return new KvResult.Error("key " + key + " holds a value, not a list");
        }
        if (!listOp && !(command instanceof KvCommand.Delete) && get(listKey) != null) {
            return new KvResult.Error("key " + key + " holds a list, not a value");
        }
        if (command instanceof KvCommand.Put p) {
            staged.put(valueKey, stored(slot, p.value()));
            return new KvResult.Done();
        } else if (command instanceof KvCommand.Delete) {
            staged.put(valueKey, null);
            staged.put(listKey, null);
            forget(key);
            return new KvResult.Done();
        } else if (command instanceof KvCommand.CompareAndSet c) {
            if (!KvCommand.sameValue(stored == null ? null : valueOf(stored), c.expected())) {
                return new KvResult.Swapped(false);
            }
            staged.put(valueKey, stored(slot, c.value()));
            return new KvResult.Swapped(true);
        } else if (command instanceof KvCommand.CasVersion c) {
            if ((stored == null ? 0 : versionOf(stored)) != c.expectedVersion()) {
                return new KvResult.Swapped(false);
            }
            staged.put(valueKey, stored(slot, c.value()));
            return new KvResult.Swapped(true);
        }
        long element = command instanceof KvCommand.AppendNote n ? n.element() : ((KvCommand.Append) command).element();
        byte[] old = get(listKey);
        byte[] grown = old == null ? new byte[8] : Arrays.copyOf(old, old.length + 8);
        ByteBuffer.wrap(grown).putLong(grown.length - 8, element);
        staged.put(listKey, grown);
        return new KvResult.Done();
    }

    /** A stored value: {@code [version u64][value bytes]}, the version being the slot of the key's last write. */
    private static byte[] stored(long version, byte[] value) {
        return ByteBuffer.allocate(8 + value.length).putLong(version).put(value).array();
    }

    private static long versionOf(byte[] stored) {
        return ByteBuffer.wrap(stored).getLong();
    }

    private static byte[] valueOf(byte[] stored) {
        return Arrays.copyOfRange(stored, 8, stored.length);
    }

    private KvResult query(KvCommand command) {
        String key = command.key();
        if (command instanceof KvCommand.Scan scan) {
            return scan(scan);
        }
        if (command instanceof KvCommand.Get || command instanceof KvCommand.GetVersioned) {
            if (get(key(LIST, key)) != null) {
                return new KvResult.Error("key " + key + " holds a list, not a value");
            }
            byte[] stored = get(key(VALUE, key));
            byte[] value = stored == null ? null : valueOf(stored);
            return command instanceof KvCommand.Get ? new KvResult.Value(value)
                    : new KvResult.Versioned(value, stored == null ? 0 : versionOf(stored));
        }
        if (get(key(VALUE, key)) != null) {
            return new KvResult.Error("key " + key + " holds a value, not a list");
        }
        byte[] list = get(key(LIST, key));
        long[] elements = new long[list == null ? 0 : list.length / 8];
        for (int i = 0; i < elements.length; i++) {
            elements[i] = ByteBuffer.wrap(list).getLong(i * 8);
        }
        return new KvResult.ListValue(elements);
    }

    /** Value keys in the scan's range in byte order (RocksDB's bytewise order), bounded as {@link KvCommand.Scan} says. */
    private KvResult scan(KvCommand.Scan scan) {
        // A scan iterates RocksDB itself, so it must see what this pass staged: write the staged
        // prefix first. Everything staged belongs to slots already applied, together with their
        // applied slot and sessions, so RocksDB still only ever shows a whole prefix of the applied state.
        commitApplied();
        java.util.List<KvResult.Entry> out = new java.util.ArrayList<>();
        byte[] end = scan.end().isEmpty() ? null : key(VALUE, scan.end());
        long bytes = 0;
        try (RocksIterator it = db.newIterator()) {
            for (it.seek(key(VALUE, scan.start())); it.isValid(); it.next()) {
                byte[] k = it.key();
                if (k.length == 0 || k[0] != VALUE || (end != null && Arrays.compareUnsigned(k, end) >= 0)) {
                    break;
                }
                byte[] stored = it.value();
                long size = (k.length - 1) + (stored.length - 8L);
                if (out.size() == scan.limit() || (!out.isEmpty() && bytes + size > KvCommand.MAX_SCAN_REPLY_BYTES)) {
                    return new KvResult.Entries(out, true);
                }
                out.add(new KvResult.Entry(new String(k, 1, k.length - 1, StandardCharsets.UTF_8), valueOf(stored),
                        versionOf(stored)));
                bytes += size;
            }
        }
        return new KvResult.Entries(out, false);
    }

    // ---- sessions, ephemeral and sequential keys (the same decisions as core's KvSessions) ---------------------

    /** Feeds the watch log with what a key-value command changed (as core's KvStateMachine does). */
    private void recordChange(long slot, KvCommand command, boolean existed, KvResult result) {
        if (command.isReadOnly() || result instanceof KvResult.Error
                || (result instanceof KvResult.Swapped swapped && !swapped.swapped())) {
            return;
        }
        if (command instanceof KvCommand.Delete) {
            if (existed) {
                watchLog.record(slot, command.key(), KvWatchLog.Type.DELETE);
            }
        } else {
            watchLog.record(slot, command.key(), KvWatchLog.Type.PUT);
        }
    }

    private SessionResult applySession(long slot, SessionCommand command) {
        if (command instanceof SessionCommand.Grant g) {
            if (countPrefix(LEASE_PREFIX) >= KvSessions.MAX_SESSIONS) {
                return new SessionResult.Refused("too many sessions (" + KvSessions.MAX_SESSIONS + ")");
            }
            if (get(leaseKey(slot)) != null) {
                throw new IllegalStateException("session id " + slot + " (a slot) granted twice");
            }
            staged.put(leaseKey(slot), lease(g.ttlMillis(), slot, 0));
            return new SessionResult.Granted(slot, g.ttlMillis());
        } else if (command instanceof SessionCommand.KeepAlive k) {
            long[] lease = lease(k.sessionId());
            if (lease == null) {
                return new SessionResult.NoSession(k.sessionId());
            }
            staged.put(leaseKey(k.sessionId()), lease(lease[0], slot, lease[2]));
            return new SessionResult.Applied(true);
        } else if (command instanceof SessionCommand.Expire e) {
            long[] lease = lease(e.sessionId());
            if (lease == null || lease[1] != e.renewSlot()) {
                return new SessionResult.Applied(false); // already gone, or kept alive after the leader decided
            }
            return new SessionResult.Applied(end(slot, e.sessionId()));
        } else if (command instanceof SessionCommand.Revoke r) {
            return new SessionResult.Applied(end(slot, r.sessionId()));
        } else if (command instanceof SessionCommand.Create c) {
            return create(slot, c);
        } else if (command instanceof SessionCommand.DeleteIf d) {
            byte[] valueKey = key(VALUE, d.key());
            if (get(valueKey) == null) {
                return new SessionResult.Applied(false);
            }
            long[] meta = meta(d.key());
            long token = meta == null ? 0 : meta[0];
            if (d.expectedToken() != SessionCommand.ANY_TOKEN && d.expectedToken() != token) {
                return new SessionResult.Applied(false);
            }
            staged.put(valueKey, null);
            forget(d.key());
            watchLog.record(slot, d.key(), KvWatchLog.Type.DELETE);
            return new SessionResult.Applied(true);
        }
        return querySession(command);
    }

    private SessionResult create(long slot, SessionCommand.Create create) {
        long owner = create.sessionId();
        long[] lease = owner == 0 ? null : lease(owner);
        if (owner != 0 && lease == null) {
            return new SessionResult.NoSession(owner);
        }
        String key = create.key();
        if (create.sequential()) {
            String scope = sequenceScope(key);
            byte[] counterKey = prefixed(SEQUENCE_PREFIX, scope.getBytes(StandardCharsets.UTF_8));
            byte[] counter = get(counterKey);
            long next = counter == null ? 0 : ByteBuffer.wrap(counter).getLong();
            if (next > KvSessions.MAX_SEQUENCE) {
                return new SessionResult.Refused("sequence of " + scope + " is exhausted");
            }
            String digits = Long.toString(next);
            key = create.key() + "0".repeat(10 - digits.length()) + digits;
            if (key.getBytes(StandardCharsets.UTF_8).length > KvCommand.MAX_KEY_BYTES) {
                return new SessionResult.Refused("sequential key would exceed " + KvCommand.MAX_KEY_BYTES + " bytes");
            }
            staged.put(counterKey, ByteBuffer.allocate(8).putLong(next + 1).array());
        }
        if (get(key(LIST, key)) != null) {
            return new SessionResult.Refused("key " + key + " holds a list, not a value");
        }
        if (get(key(VALUE, key)) != null) {
            long[] meta = meta(key);
            return new SessionResult.Exists(key, meta == null ? 0 : meta[0], meta == null ? 0 : meta[1]);
        }
        staged.put(key(VALUE, key), stored(slot, create.value()));
        staged.put(metaKey(key), ByteBuffer.allocate(16).putLong(slot).putLong(owner).array());
        if (owner != 0) {
            staged.put(ownedKey(owner, key), new byte[0]);
            staged.put(leaseKey(owner), lease(lease[0], lease[1], lease[2] + 1));
        }
        watchLog.record(slot, key, KvWatchLog.Type.PUT);
        return new SessionResult.Created(key, slot);
    }

    /** Which counter numbers a sequential key: its parent, up to and including the last '/' (core's rule). */
    private static String sequenceScope(String key) {
        int slash = key.lastIndexOf('/');
        return slash < 0 ? key : key.substring(0, slash + 1);
    }

    /**
     * Ends a session: deletes it and every key it owns, at {@code slot}. The deletions are recorded in the order of
     * core's machine (Java string order of the keys), so both produce the same watch events.
     */
    private boolean end(long slot, long sessionId) {
        if (lease(sessionId) == null) {
            return false;
        }
        byte[] prefix = ownedKey(sessionId, "");
        List<String> keys = new ArrayList<>();
        for (byte[] k : prefixKeys(prefix)) {
            keys.add(new String(k, prefix.length, k.length - prefix.length, StandardCharsets.UTF_8));
        }
        keys.sort(null);
        for (String key : keys) {
            long[] meta = meta(key);
            if (meta == null || meta[1] != sessionId) {
                throw new IllegalStateException("key " + key + " in session " + sessionId + "'s set is not its own");
            }
            staged.put(metaKey(key), null);
            staged.put(ownedKey(sessionId, key), null);
            staged.put(key(VALUE, key), null);
            watchLog.record(slot, key, KvWatchLog.Type.DELETE);
        }
        staged.put(leaseKey(sessionId), null);
        return true;
    }

    /** The key's value was deleted (by any command): drop its token and owner. */
    private void forget(String key) {
        long[] meta = meta(key);
        if (meta == null) {
            return;
        }
        staged.put(metaKey(key), null);
        long owner = meta[1];
        if (owner != 0) {
            long[] lease = lease(owner);
            if (lease == null || get(ownedKey(owner, key)) == null) {
                throw new IllegalStateException("key " + key + " owned by session " + owner + ", which does not list it");
            }
            staged.put(ownedKey(owner, key), null);
            staged.put(leaseKey(owner), lease(lease[0], lease[1], lease[2] - 1));
        }
    }

    private SessionResult querySession(SessionCommand command) {
        if (command instanceof SessionCommand.GetEntry g) {
            byte[] stored = get(key(VALUE, g.key()));
            if (stored == null) {
                return new SessionResult.Entry(g.key(), null, 0, 0);
            }
            long[] meta = meta(g.key());
            return new SessionResult.Entry(g.key(), valueOf(stored), meta == null ? 0 : meta[0], meta == null ? 0 : meta[1]);
        }
        SessionCommand.ListPrefix list = (SessionCommand.ListPrefix) command;
        commitApplied(); // iterate RocksDB itself: write what this pass staged first (as scan does)
        byte[] prefix = key(VALUE, list.prefix());
        List<SessionResult.Listed> found = new ArrayList<>();
        boolean more = false;
        try (RocksIterator it = db.newIterator()) {
            for (it.seek(prefix); it.isValid() && startsWith(it.key(), prefix); it.next()) {
                if (found.size() == list.limit()) {
                    more = true;
                    break;
                }
                String key = new String(it.key(), 1, it.key().length - 1, StandardCharsets.UTF_8);
                long[] meta = meta(key);
                found.add(new SessionResult.Listed(key, meta == null ? 0 : meta[0], meta == null ? 0 : meta[1]));
            }
        }
        return new SessionResult.Listing(List.copyOf(found), more);
    }

    /** The live sessions, by id, staged changes included (what the leader's expiry timer reads). */
    public List<KvSessions.Session> liveSessions() {
        List<KvSessions.Session> out = new ArrayList<>();
        for (byte[] k : prefixKeys(LEASE_PREFIX)) {
            long id = ByteBuffer.wrap(k, LEASE_PREFIX.length, 8).getLong();
            long[] lease = lease(id);
            out.add(new KvSessions.Session(id, lease[0], lease[1], (int) lease[2]));
        }
        return out;
    }

    /** The change events this replica applied, by slot (what watches are served from). */
    public KvWatchLog watchLog() {
        return watchLog;
    }

    /** Keys under {@code prefix} in RocksDB after writing what is staged (every staged change is an applied one). */
    private List<byte[]> prefixKeys(byte[] prefix) {
        commitApplied();
        List<byte[]> out = new ArrayList<>();
        try (RocksIterator it = db.newIterator()) {
            for (it.seek(prefix); it.isValid() && startsWith(it.key(), prefix); it.next()) {
                out.add(it.key());
            }
        }
        return out;
    }

    private int countPrefix(byte[] prefix) {
        return prefixKeys(prefix).size();
    }

    private static boolean startsWith(byte[] k, byte[] prefix) {
        return k.length >= prefix.length && Arrays.equals(k, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** {ttl, renewal slot, owned keys} of a live session, or null. */
    private long[] lease(long id) {
        byte[] v = get(leaseKey(id));
        if (v == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(v);
        return new long[] {b.getLong(), b.getLong(), b.getLong()};
    }

    private static byte[] lease(long ttl, long renewSlot, long keyCount) {
        return ByteBuffer.allocate(24).putLong(ttl).putLong(renewSlot).putLong(keyCount).array();
    }

    /** {token, owner} of a created key, or null. */
    private long[] meta(String key) {
        byte[] v = get(metaKey(key));
        if (v == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(v);
        return new long[] {b.getLong(), b.getLong()};
    }

    private static byte[] leaseKey(long id) {
        return ByteBuffer.allocate(LEASE_PREFIX.length + 8).put(LEASE_PREFIX).putLong(id).array();
    }

    private static byte[] metaKey(String key) {
        return prefixed(META_PREFIX, key.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] ownedKey(long owner, String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(OWNED_PREFIX.length + 8 + k.length).put(OWNED_PREFIX).putLong(owner).put(k).array();
    }

    private static byte[] prefixed(byte[] prefix, byte[] rest) {
        return ByteBuffer.allocate(prefix.length + rest.length).put(prefix).put(rest).array();
    }

    /** Keys of the session tables (part of the snapshot, unlike the client-session table and the applied slot). */
    private static boolean isSessionStateKey(byte[] k) {
        return k.length >= 2 && k[0] == 0 && (k[1] == 'S' || k[1] == 'M' || k[1] == 'Q' || k[1] == 'O');
    }

    /** Command syntax is the in-memory machine's: its stateless checks are used as they are. */
    private static final KvStateMachine SYNTAX = new KvStateMachine();

    @Override
    public boolean isReadOnly(byte[] payload) {
        return SYNTAX.isReadOnly(payload);
    }

    @Override
    public byte[] read(byte[] payload) {
        if (SessionCommand.isSessionCommand(payload)) {
            SessionCommand session = SessionCommand.decode(payload);
            if (!session.isReadOnly()) {
                throw new IllegalArgumentException("read() needs a read-only command, got " + session.getClass().getSimpleName());
            }
            return querySession(session).encode();
        }
        KvCommand command = KvCommand.decode(payload);
        if (!command.isReadOnly()) {
            throw new IllegalArgumentException("read() needs a read-only command, got " + command.getClass().getSimpleName());
        }
        return query(command).encode();
    }

    @Override
    public void validate(byte[] payload) {
        SYNTAX.validate(payload);
    }

    /**
     * Every data pair and session-table pair in key order, staged changes included (the applied slot and the client
     * sessions are not part of it).
     */
    @Override
    public byte[] snapshot() {
        TreeMap<byte[], byte[]> data = pairs(true);
        ByteWriter w = new ByteWriter(1024);
        w.i32(SNAPSHOT_VERSION).i32(data.size());
        for (Map.Entry<byte[], byte[]> e : data.entrySet()) {
            w.bytes(e.getKey()).bytes(e.getValue());
        }
        return w.toByteArray();
    }

    /** RocksDB's data pairs (and session-table pairs if {@code withSessions}) with the staged changes laid over them. */
    private TreeMap<byte[], byte[]> pairs(boolean withSessions) {
        TreeMap<byte[], byte[]> data = new TreeMap<>(Arrays::compareUnsigned);
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                if (isDataKey(it.key()) || (withSessions && isSessionStateKey(it.key()))) {
                    data.put(it.key(), it.value());
                }
            }
        }
        for (Map.Entry<byte[], byte[]> e : staged.entrySet()) {
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
        replaceWith(0, parse(snapshot), List.of());
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
            replaceWith(slot, parse(source.readAll()), sessions);
        }
    }

    /**
     * A RocksDB checkpoint of everything applied through {@code slot} (the staged changes are
     * written first), under the snapshot directory, fsynced.
     */
    @Override
    public SnapshotSource snapshotSource(long slot) {
        stagedSlot = Math.max(stagedSlot, slot); // Noops and retried commands advance the slot too.
        commitApplied();
        Path target = checkpointDir.resolve(uniqueName("checkpoint", slot));
        try (Checkpoint checkpoint = Checkpoint.create(db)) {
            checkpoint.createCheckpoint(target.toString());
            RocksFiles.syncTree(target);
            RocksFiles.syncDirectory(checkpointDir);
            return new CheckpointSource(target, slot);
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB checkpoint at slot " + slot + " failed: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("RocksDB checkpoint at slot " + slot + " failed: " + e.getMessage(), e);
        }
    }

    /** Receives a peer's checkpoint into {@code incoming-...} under the snapshot directory. */
    @Override
    public SnapshotSink snapshotSink(long slot) {
        return new CheckpointSink(checkpointDir.resolve(uniqueName("incoming", slot)),
                checkpointDir.resolve(uniqueName("checkpoint", slot)), slot);
    }

    private String uniqueName(String kind, long slot) {
        return String.format("%s-%020d-%s-%d", kind, slot, nameEpoch, nameCounter++);
    }

    /** Swaps checkpoint {@code from} in as this database; staged changes are dropped (the checkpoint replaces them). */
    private void swapIn(Path from) {
        staged.clear();
        stagedSlot = -1;
        watchLog.restored();
        try {
            RocksFiles.copyCheckpoint(from, next());
            db.close();
            db = null;
            RocksFiles.deleteRecursively(old());
            Files.move(dir, old(), StandardCopyOption.ATOMIC_MOVE);
            Files.move(next(), dir, StandardCopyOption.ATOMIC_MOVE);
            RocksFiles.syncDirectory(dir.getParent());
            RocksFiles.deleteRecursively(old());
            db = RocksDB.open(options, dir.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("installing checkpoint " + from + " into " + dir + " failed: " + e.getMessage(), e);
        } catch (RocksDBException e) {
            throw new IllegalStateException("opening installed checkpoint " + dir + " failed: " + e.getMessage(), e);
        }
    }

    private TreeMap<byte[], byte[]> parse(byte[] snapshot) {
        TreeMap<byte[], byte[]> replacement = new TreeMap<>(Arrays::compareUnsigned);
        if (snapshot.length == 0) {
            return replacement;
        }
        try {
            ByteReader r = new ByteReader(snapshot);
            int version = r.i32("snapshot version");
            if (version != SNAPSHOT_VERSION && version != 2) {
                throw new IllegalArgumentException("RocksDB kv snapshot version " + version + " is not supported (this server"
                        + " reads 2 and " + SNAPSHOT_VERSION + ")");
            }
            int count = r.count("snapshot pairs", 8, Integer.MAX_VALUE);
            for (int i = 0; i < count; i++) {
                byte[] k = r.bytes("snapshot key");
                byte[] v = r.bytes("snapshot value");
                if (!isDataKey(k) && !(version >= 3 && isSessionStateKey(k))) {
                    throw new IllegalArgumentException("snapshot key " + i + " is not a data or session-table key");
                }
                replacement.put(k, v);
            }
            r.expectEnd("RocksDB kv snapshot");
        } catch (MalformedInputException e) {
            throw new IllegalArgumentException("bad RocksDB kv snapshot: " + e.getMessage(), e);
        }
        return replacement;
    }

    /** One batch: every key replaced by {@code data}, the applied slot and the sessions. */
    private void replaceWith(long slot, TreeMap<byte[], byte[]> data, List<ClientSession> sessions) {
        staged.clear();
        stagedSlot = -1;
        watchLog.restored();
        try (WriteBatch batch = new WriteBatch()) {
            batch.deleteRange(FIRST_KEY, PAST_LAST_KEY);
            for (Map.Entry<byte[], byte[]> e : data.entrySet()) {
                batch.put(e.getKey(), e.getValue());
            }
            putSessions(batch, slot, sessions);
            db.write(writeOptions, batch);
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB restore at slot " + slot + " failed: " + e.getMessage(), e);
        }
    }

    /** One batch: the session table replaced and the applied slot set (after a checkpoint swap). */
    private void replaceSessions(long slot, List<ClientSession> sessions) {
        try (WriteBatch batch = new WriteBatch()) {
            batch.deleteRange(SESSION_PREFIX, new byte[] {SESSION_PREFIX[0], (byte) (SESSION_PREFIX[1] + 1)});
            putSessions(batch, slot, sessions);
            db.write(writeOptions, batch);
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB session restore at slot " + slot + " failed: " + e.getMessage(), e);
        }
    }

    private static void putSessions(WriteBatch batch, long slot, List<ClientSession> sessions) throws RocksDBException {
        for (ClientSession s : sessions) {
            batch.put(sessionKey(s.clientId()), sessionRecord(s.sequence(), s.slot(), s.result()));
        }
        batch.put(APPLIED_KEY, ByteBuffer.allocate(8).putLong(slot).array());
    }

    private static byte[] sessionRecord(long sequence, long slot, byte[] result) {
        return new ByteWriter(20 + result.length).i64(sequence).i64(slot).bytes(result).toByteArray();
    }

    /** Number of data keys (values and lists), staged changes included; a full scan, for tests and status. */
    public long size() {
        return pairs(false).size();
    }

    /** A key as the state machine sees it: staged, else (unless a restore is staged) RocksDB's. */
    private byte[] get(byte[] key) {
        if (staged.containsKey(key)) {
            return staged.get(key);
        }
        return dbGet(key);
    }

    private byte[] dbGet(byte[] key) {
        try {
            return db.get(key);
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB read failed: " + e.getMessage(), e);
        }
    }

    private static boolean isDataKey(byte[] k) {
        return k.length > 0 && (k[0] == VALUE || k[0] == LIST);
    }

    private static boolean isSessionKey(byte[] k) {
        return k.length == SESSION_PREFIX.length + 8 && k[0] == SESSION_PREFIX[0] && k[1] == SESSION_PREFIX[1];
    }

    private static byte[] sessionKey(long clientId) {
        return ByteBuffer.allocate(SESSION_PREFIX.length + 8).put(SESSION_PREFIX).putLong(clientId).array();
    }

    private static byte[] key(byte kind, String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[k.length + 1];
        out[0] = kind;
        System.arraycopy(k, 0, out, 1, k.length);
        return out;
    }

    /** Closes RocksDB without writing what is staged: what a process death between two batches leaves (tests). */
    void closeWithoutWriting() {
        staged.clear();
        stagedSlot = -1;
        close();
    }

    /** Writes what is staged (safe at any time: everything applied was chosen) and closes RocksDB. */
    @Override
    public void close() {
        try {
            if (db != null) {
                commitApplied();
            }
        } finally {
            writeOptions.close();
            if (db != null) {
                db.close();
            }
            options.close();
        }
    }
}
