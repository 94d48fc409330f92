package io.synod.server.state;

import io.synod.core.kv.KvCommand;
import io.synod.core.kv.KvResult;
import io.synod.core.kv.KvStateMachine;
import io.synod.core.paxos.StateMachine;
import io.synod.server.wire.ByteReader;
import io.synod.server.wire.ByteWriter;
import io.synod.server.wire.MalformedInputException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The key-value state machine of {@code io.synod.core.kv} (same commands, same results, same error
 * strings) kept in RocksDB. Every applied command writes its data change and the applied slot in
 * one {@link WriteBatch}, so the database never shows a change without its slot. Values live under
 * {@code 'v' + key} as {@code [version u64][value]} (the version is the slot of the key's last write), lists (of longs) under {@code 'l' + key}, the applied slot under a key outside
 * both ranges. Snapshot bytes are every data pair in key order: identical on every replica that
 * applied the same commands.
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
    private static final int SNAPSHOT_VERSION = 1;

    private final Options options;
    private final RocksDB db;
    private final WriteOptions writeOptions = new WriteOptions();

    public RocksKvStateMachine(Path dir) throws IOException {
        Files.createDirectories(dir);
        options = new Options().setCreateIfMissing(true);
        try {
            db = RocksDB.open(options, dir.toString());
        } catch (RocksDBException e) {
            options.close();
            throw new IOException("cannot open RocksDB in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The slot of the last command applied (0 if none since the last restore). */
    public long appliedSlot() {
        byte[] v = get(APPLIED_KEY);
        return v == null ? 0 : ByteBuffer.wrap(v).getLong();
    }

    @Override
    public byte[] apply(long slot, byte[] payload) {
        KvCommand command;
        try {
            command = KvCommand.decode(payload);
        } catch (IllegalArgumentException e) {
            recordSlotOnly(slot);
            return new KvResult.Error(e.getMessage()).encode();
        }
        try (WriteBatch batch = new WriteBatch()) {
            KvResult result = execute(slot, command, batch);
            batch.put(APPLIED_KEY, ByteBuffer.allocate(8).putLong(slot).array());
            db.write(writeOptions, batch);
            return result.encode();
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB write failed at slot " + slot + ": " + e.getMessage(), e);
        }
    }

    private void recordSlotOnly(long slot) {
        try {
            db.put(writeOptions, APPLIED_KEY, ByteBuffer.allocate(8).putLong(slot).array());
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB write failed at slot " + slot + ": " + e.getMessage(), e);
        }
    }

    private KvResult execute(long slot, KvCommand command, WriteBatch batch) throws RocksDBException {
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
            batch.put(valueKey, stored(slot, p.value()));
            return new KvResult.Done();
        } else if (command instanceof KvCommand.Delete) {
            batch.delete(valueKey);
            batch.delete(listKey);
            return new KvResult.Done();
        } else if (command instanceof KvCommand.CompareAndSet c) {
            if (!KvCommand.sameValue(stored == null ? null : valueOf(stored), c.expected())) {
                return new KvResult.Swapped(false);
            }
            batch.put(valueKey, stored(slot, c.value()));
            return new KvResult.Swapped(true);
        } else if (command instanceof KvCommand.CasVersion c) {
            if ((stored == null ? 0 : versionOf(stored)) != c.expectedVersion()) {
                return new KvResult.Swapped(false);
            }
            batch.put(valueKey, stored(slot, c.value()));
            return new KvResult.Swapped(true);
        }
        long element = command instanceof KvCommand.AppendNote n ? n.element() : ((KvCommand.Append) command).element();
        byte[] old = get(listKey);
        byte[] grown = old == null ? new byte[8] : Arrays.copyOf(old, old.length + 8);
        ByteBuffer.wrap(grown).putLong(grown.length - 8, element);
        batch.put(listKey, grown);
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

    /** Command syntax is the in-memory machine's: its stateless checks are used as they are. */
    private static final KvStateMachine SYNTAX = new KvStateMachine();

    @Override
    public boolean isReadOnly(byte[] payload) {
        return SYNTAX.isReadOnly(payload);
    }

    @Override
    public byte[] read(byte[] payload) {
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

    /** Every data pair in key order (the applied-slot key is bookkeeping, not state). */
    @Override
    public byte[] snapshot() {
        ByteWriter w = new ByteWriter(1024);
        w.i32(SNAPSHOT_VERSION);
        int count = 0;
        ByteWriter pairs = new ByteWriter(1024);
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] k = it.key();
                if (k.length > 0 && (k[0] == VALUE || k[0] == LIST)) {
                    pairs.bytes(k).bytes(it.value());
                    count++;
                }
            }
        }
        w.i32(count);
        byte[] body = pairs.toByteArray();
        byte[] head = w.toByteArray();
        byte[] out = Arrays.copyOf(head, head.length + body.length);
        System.arraycopy(body, 0, out, head.length, body.length);
        return out;
    }

    @Override
    public void restore(byte[] snapshot) {
        try (WriteBatch batch = new WriteBatch()) {
            // Clear everything first, in the same batch as the new contents.
            batch.deleteRange(new byte[] {0}, new byte[] {(byte) 0xFF, (byte) 0xFF});
            if (snapshot.length > 0) {
                ByteReader r = new ByteReader(snapshot);
                int version = r.i32("snapshot version");
                if (version != SNAPSHOT_VERSION) {
                    throw new IllegalArgumentException("RocksDB kv snapshot version " + version + " is not supported");
                }
                int count = r.count("snapshot pairs", 8, Integer.MAX_VALUE);
                for (int i = 0; i < count; i++) {
                    byte[] k = r.bytes("snapshot key");
                    byte[] v = r.bytes("snapshot value");
                    if (k.length == 0 || (k[0] != VALUE && k[0] != LIST)) {
                        throw new IllegalArgumentException("snapshot key " + i + " is not a data key");
                    }
                    batch.put(k, v);
                }
                r.expectEnd("RocksDB kv snapshot");
            }
            db.write(writeOptions, batch);
        } catch (MalformedInputException e) {
            throw new IllegalArgumentException("bad RocksDB kv snapshot: " + e.getMessage(), e);
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB restore failed: " + e.getMessage(), e);
        }
    }

    /** Number of data keys (values and lists); a full scan, for tests and status. */
    public long size() {
        long n = 0;
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] k = it.key();
                if (k.length > 0 && (k[0] == VALUE || k[0] == LIST)) {
                    n++;
                }
            }
        }
        return n;
    }

    private byte[] get(byte[] key) {
        try {
            return db.get(key);
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB read failed: " + e.getMessage(), e);
        }
    }

    private static byte[] key(byte kind, String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[k.length + 1];
        out[0] = kind;
        System.arraycopy(k, 0, out, 1, k.length);
        return out;
    }

    @Override
    public void close() {
        writeOptions.close();
        db.close();
        options.close();
    }
}
