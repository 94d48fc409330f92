package io.synod.core.kv;

import io.synod.core.paxos.StateMachine;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The deterministic, in-memory key-value state machine: byte values (put/get/delete/compare-and-set)
 * and integer lists (append/read, used by the linearizability checker). A key holds either a value
 * or a list; a list operation on a value key (or the reverse) is an error result, the same on
 * every replica. Iteration order is sorted, so snapshots are byte-identical across replicas.
 */
public final class KvStateMachine implements StateMachine {
    /** 2: every value carries its version (the slot of its last write); 1 had none (read as version 0). */
    private static final int SNAPSHOT_VERSION = 2;

    private final TreeMap<String, byte[]> values = new TreeMap<>();
    /** Per value key: the slot of its last write (the key's version, for compare-and-set by version). */
    private final TreeMap<String, Long> versions = new TreeMap<>();
    private final TreeMap<String, LongList> lists = new TreeMap<>();
    private final KvWatchLog watchLog = new KvWatchLog(KvWatchLog.DEFAULT_CAPACITY);
    private final KvSessions sessions = new KvSessions(values, versions, lists, watchLog);

    @Override
    public byte[] apply(long slot, byte[] payload) {
        if (SessionCommand.isSessionCommand(payload)) {
            return applySession(slot, payload);
        }
        KvCommand command;
        try {
            command = KvCommand.decode(payload);
        } catch (IllegalArgumentException e) {
            return new KvResult.Error(e.getMessage()).encode();
        }
        boolean existed = values.containsKey(command.key()) || lists.containsKey(command.key());
        KvResult result = execute(slot, command);
        recordChange(slot, command, existed, result);
        return result.encode();
    }

    /**
     * Predicts only {@code Done} for a put or a list append, the one result such a write has unless
     * the key holds the other kind (a list for a put, a value for an append). Certain when the key
     * does not hold the other kind now and no command of {@code before} could make it: none writes
     * the key with the other kind of write (for an append: a put, compare-and-set or delete) and none
     * is a session command (session expiry deletes keys). Anything else: null.
     */
    @Override
    public byte[] resultBeforeApply(byte[] payload, List<byte[]> before) {
        if (SessionCommand.isSessionCommand(payload)) {
            return null;
        }
        KvCommand command;
        try {
            command = KvCommand.decode(payload);
        } catch (IllegalArgumentException e) {
            return null;
        }
        boolean append = isAppend(command);
        if (!append && !(command instanceof KvCommand.Put)) {
            return null;
        }
        String key = command.key();
        if (append ? values.containsKey(key) : lists.containsKey(key)) {
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

    private byte[] applySession(long slot, byte[] payload) {
        SessionCommand command;
        try {
            command = SessionCommand.decode(payload);
        } catch (IllegalArgumentException e) {
            return new SessionResult.Refused(e.getMessage()).encode();
        }
        return sessions.apply(slot, command).encode();
    }

    /** Feeds the watch log ({@link KvWatchLog}) with what a key-value command changed. */
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

    private KvResult execute(long slot, KvCommand command) {
        String key = command.key();
        if (command.isReadOnly()) {
            return query(command);
        }
        boolean listOp = command instanceof KvCommand.Append || command instanceof KvCommand.AppendNote;
        if (listOp && values.containsKey(key)) {
            return new KvResult.Error("key " + key + " holds a value, not a list");
        }
        if (!listOp && lists.containsKey(key) && !(command instanceof KvCommand.Delete)) {
            return new KvResult.Error("key " + key + " holds a list, not a value");
        }
        if (command instanceof KvCommand.Put p) {
            write(key, p.value(), slot);
            return new KvResult.Done();
        } else if (command instanceof KvCommand.Delete) {
            values.remove(key);
            versions.remove(key);
            lists.remove(key);
            sessions.forget(key);
            return new KvResult.Done();
        } else if (command instanceof KvCommand.CompareAndSet c) {
            if (!KvCommand.sameValue(values.get(key), c.expected())) {
                return new KvResult.Swapped(false);
            }
            write(key, c.value(), slot);
            return new KvResult.Swapped(true);
        } else if (command instanceof KvCommand.CasVersion c) {
            if (versions.getOrDefault(key, 0L) != c.expectedVersion()) {
                return new KvResult.Swapped(false);
            }
            write(key, c.value(), slot);
            return new KvResult.Swapped(true);
        }
        long element = command instanceof KvCommand.AppendNote n ? n.element() : ((KvCommand.Append) command).element();
        lists.computeIfAbsent(key, k -> new LongList()).add(element);
        return new KvResult.Done();
    }

    private void write(String key, byte[] value, long slot) {
        values.put(key, value.clone());
        versions.put(key, slot);
    }

    private KvResult query(KvCommand command) {
        String key = command.key();
        if (command instanceof KvCommand.Scan scan) {
            return scan(scan);
        }
        if (command instanceof KvCommand.Get || command instanceof KvCommand.GetVersioned) {
            if (lists.containsKey(key)) {
                return new KvResult.Error("key " + key + " holds a list, not a value");
            }
            byte[] value = values.get(key);
            byte[] copy = value == null ? null : value.clone();
            return command instanceof KvCommand.Get ? new KvResult.Value(copy)
                    : new KvResult.Versioned(copy, versions.getOrDefault(key, 0L));
        }
        if (values.containsKey(key)) {
            return new KvResult.Error("key " + key + " holds a value, not a list");
        }
        LongList list = lists.get(key);
        return new KvResult.ListValue(list == null ? new long[0] : list.toArray());
    }

    /**
     * The value keys in the scan's range in UTF-8 byte order (the order of the shard map and of the
     * RocksDB machine; Java's String order differs for characters outside the BMP, so the range is
     * filtered and sorted by bytes), bounded as {@link KvCommand.Scan} says.
     */
    private KvResult scan(KvCommand.Scan scan) {
        List<String> keys = new ArrayList<>();
        for (String k : values.keySet()) {
            if (scan.contains(k.getBytes(StandardCharsets.UTF_8))) {
                keys.add(k);
            }
        }
        keys.sort((a, b) -> Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
        List<KvResult.Entry> out = new ArrayList<>();
        long bytes = 0;
        for (String k : keys) {
            byte[] v = values.get(k);
            long size = k.getBytes(StandardCharsets.UTF_8).length + (long) v.length;
            if (out.size() == scan.limit() || (!out.isEmpty() && bytes + size > KvCommand.MAX_SCAN_REPLY_BYTES)) {
                return new KvResult.Entries(out, true);
            }
            out.add(new KvResult.Entry(k, v.clone(), versions.getOrDefault(k, 0L)));
            bytes += size;
        }
        return new KvResult.Entries(out, false);
    }

    @Override
    public boolean isReadOnly(byte[] payload) {
        try {
            if (SessionCommand.isSessionCommand(payload)) {
                return SessionCommand.decode(payload).isReadOnly();
            }
            return KvCommand.decode(payload).isReadOnly();
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    @Override
    public byte[] read(byte[] payload) {
        if (SessionCommand.isSessionCommand(payload)) {
            SessionCommand session = SessionCommand.decode(payload);
            if (!session.isReadOnly()) {
                throw new IllegalArgumentException("read() needs a read-only command, got " + session.getClass().getSimpleName());
            }
            return sessions.query(session).encode();
        }
        KvCommand command = KvCommand.decode(payload);
        if (!command.isReadOnly()) {
            throw new IllegalArgumentException("read() needs a read-only command, got " + command.getClass().getSimpleName());
        }
        return query(command).encode();
    }

    @Override
    public void validate(byte[] payload) {
        if (SessionCommand.isSessionCommand(payload)) {
            SessionCommand.decode(payload);
            return;
        }
        KvCommand.decode(payload);
    }

    /** Sessions, ephemeral and sequential keys, fencing tokens ({@link SessionCommand}). */
    public KvSessions sessions() {
        return sessions;
    }

    /** The change events this replica applied, by slot (the state-machine side of watches). */
    public KvWatchLog watchLog() {
        return watchLog;
    }

    /** Number of keys (values and lists). */
    public int size() {
        return values.size() + lists.size();
    }

    @Override
    public byte[] snapshot() {
        int size = 4 + 4 + 4;
        for (Map.Entry<String, byte[]> e : values.entrySet()) {
            size += 2 + e.getKey().getBytes(StandardCharsets.UTF_8).length + 4 + e.getValue().length + 8;
        }
        for (Map.Entry<String, LongList> e : lists.entrySet()) {
            size += 2 + e.getKey().getBytes(StandardCharsets.UTF_8).length + 4 + 8 * e.getValue().size;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putInt(SNAPSHOT_VERSION).putInt(values.size()).putInt(lists.size());
        for (Map.Entry<String, byte[]> e : values.entrySet()) {
            putKey(out, e.getKey());
            out.putInt(e.getValue().length).put(e.getValue()).putLong(versions.getOrDefault(e.getKey(), 0L));
        }
        for (Map.Entry<String, LongList> e : lists.entrySet()) {
            putKey(out, e.getKey());
            LongList list = e.getValue();
            out.putInt(list.size);
            for (int i = 0; i < list.size; i++) {
                out.putLong(list.elements[i]);
            }
        }
        return appendSessionSection(out.array());
    }

    /**
     * The session section follows the lists, only when there is session state: a snapshot without sessions stays
     * byte-identical to the format before sessions existed.
     */
    private byte[] appendSessionSection(byte[] kvPart) {
        if (sessions.isEmpty()) {
            return kvPart;
        }
        SessionCommand.Writer section = new SessionCommand.Writer();
        sessions.writeTo(section);
        byte[] tail = section.toBytes();
        byte[] whole = Arrays.copyOf(kvPart, kvPart.length + tail.length);
        System.arraycopy(tail, 0, whole, kvPart.length, tail.length);
        return whole;
    }

    private static void putKey(ByteBuffer out, String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        out.putShort((short) bytes.length).put(bytes);
    }

    @Override
    public void restore(byte[] snapshot) {
        TreeMap<String, byte[]> newValues = new TreeMap<>();
        TreeMap<String, Long> newVersions = new TreeMap<>();
        TreeMap<String, LongList> newLists = new TreeMap<>();
        KvSessions restoredSessions = null;
        if (snapshot.length > 0) {
            ByteBuffer in = ByteBuffer.wrap(snapshot);
            need(in, 12, "header");
            int version = in.getInt();
            if (version != SNAPSHOT_VERSION && version != 1) {
                throw new IllegalArgumentException("kv snapshot version " + version + " is not supported (expected "
                        + SNAPSHOT_VERSION + ")");
            }
            int valueCount = in.getInt();
            int listCount = in.getInt();
            if (valueCount < 0 || listCount < 0) {
                throw new IllegalArgumentException("kv snapshot has negative counts " + valueCount + "/" + listCount);
            }
            for (int i = 0; i < valueCount; i++) {
                String key = readKey(in);
                need(in, 4, "value length");
                int length = in.getInt();
                if (length < 0 || length > in.remaining()) {
                    throw new IllegalArgumentException("kv snapshot value length " + length + " exceeds remaining "
                            + in.remaining());
                }
                byte[] value = new byte[length];
                in.get(value);
                newValues.put(key, value);
                if (version >= 2) {
                    need(in, 8, "value version");
                    long v = in.getLong();
                    if (v < 0) {
                        throw new IllegalArgumentException("kv snapshot value version " + v + " is negative");
                    }
                    newVersions.put(key, v);
                }
            }
            for (int i = 0; i < listCount; i++) {
                String key = readKey(in);
                need(in, 4, "list length");
                int count = in.getInt();
                if (count < 0 || (long) count * 8 > in.remaining()) {
                    throw new IllegalArgumentException("kv snapshot list length " + count + " exceeds remaining "
                            + in.remaining());
                }
                LongList list = new LongList();
                for (int j = 0; j < count; j++) {
                    list.add(in.getLong());
                }
                newLists.put(key, list);
            }
            if (in.hasRemaining()) {
                restoredSessions = parseSessions(in, newValues, newVersions, newLists);
            }
        }
        values.clear();
        values.putAll(newValues);
        versions.clear();
        versions.putAll(newVersions);
        lists.clear();
        lists.putAll(newLists);
        sessions.copyFrom(restoredSessions);
        watchLog.restored();
    }

    /** Parses and checks the session section against the restored keys, before anything is replaced. */
    private KvSessions parseSessions(ByteBuffer section, TreeMap<String, byte[]> newValues, TreeMap<String, Long> newVersions,
            TreeMap<String, LongList> newLists) {
        KvSessions parsed = new KvSessions(newValues, newVersions, newLists, new KvWatchLog(1));
        parsed.readFrom(section);
        if (section.hasRemaining()) {
            throw new IllegalArgumentException("kv snapshot has " + section.remaining() + " trailing bytes");
        }
        try {
            parsed.checkInvariants();
        } catch (IllegalStateException e) {
            throw new IllegalArgumentException("kv snapshot session section is inconsistent: " + e.getMessage(), e);
        }
        return parsed;
    }

    private static String readKey(ByteBuffer in) {
        need(in, 2, "key length");
        int length = Short.toUnsignedInt(in.getShort());
        if (length == 0 || length > in.remaining()) {
            throw new IllegalArgumentException("kv snapshot key length " + length + " is invalid");
        }
        byte[] key = new byte[length];
        in.get(key);
        return new String(key, StandardCharsets.UTF_8);
    }

    private static void need(ByteBuffer in, int bytes, String what) {
        if (in.remaining() < bytes) {
            throw new IllegalArgumentException("kv snapshot truncated in " + what);
        }
    }

    /** A growable list of longs: list-append appends to the end, reads copy the whole list. */
    private static final class LongList {
        long[] elements = new long[4];
        int size;

        void add(long element) {
            if (size == elements.length) {
                elements = Arrays.copyOf(elements, size * 2);
            }
            elements[size++] = element;
        }

        long[] toArray() {
            return Arrays.copyOf(elements, size);
        }
    }
}
