package io.synod.core.kv;

import io.synod.core.paxos.SnapshotSource;
import io.synod.core.paxos.StateMachine;
import io.synod.core.util.Check;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import io.synod.protocol.SessionCommand;
import io.synod.protocol.SessionResult;
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
 *
 * <p>Deferred rebuild (RS-Paxos coded values, docs/erasure.md): a coded {@code Put} (or, with
 * {@code keepNotes}, {@code AppendNote}) can be applied from its header alone ({@link #applyDeferred}):
 * the key's version, list, watch event and result are those of the whole command, and its bytes stay
 * <em>unresolved</em> until {@link #resolve} supplies them. The replica rebuilds them before anything
 * reads them ({@link #unresolvedSlotsFor}); {@link #snapshot()} refuses to run while any key is
 * unresolved.
 *
 * <p>{@code keepNotes} (the simulator's coded workload): the CRC32C of the note of a list's last
 * {@code AppendNote} is state, so a replica that applies a coded note without its bytes has something to
 * rebuild, like a {@code Put}'s value (only the 4-byte digest is kept, so snapshots stay small);
 * {@code ReadList} results then end with it (4 bytes, big-endian; 0 for no note), which the simulated
 * clients check against the note they appended.
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
    private final boolean keepNotes;
    /** With {@code keepNotes}: per list key, the CRC32C of the note of its last element's append (absent: none). */
    private final TreeMap<String, byte[]> notes = new TreeMap<>();
    /** Keys whose bytes were applied deferred and not yet resolved (value keys: the value; list keys: the note). */
    private final TreeMap<String, Deferred> deferred = new TreeMap<>();
    private final KvData data = new Maps();

    private record Deferred(long slot, byte[] header, int length, int checksum) {}

    private static final byte[] EMPTY = new byte[0];

    /** The key-value machine; {@code AppendNote}'s note is not kept. */
    public KvStateMachine() {
        this(false);
    }

    /** With {@code keepNotes}, the note of each list's last append is state (see the class comment). */
    public KvStateMachine(boolean keepNotes) {
        this.keepNotes = keepNotes;
    }

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
        KvResult result = KvCommands.apply(data, watchLog, slot, command);
        if (keepNotes && result instanceof KvResult.Done) {
            if (command instanceof KvCommand.AppendNote n) {
                notes.put(n.key(), noteDigest(n.note()));
                deferred.remove(n.key());
            } else if (command instanceof KvCommand.Append a) {
                notes.remove(a.key());
                deferred.remove(a.key());
            }
        }
        return encodeResult(command, result);
    }

    // ---- deferred rebuild --------------------------------------------------------------------

    @Override
    public byte[] deferralHeader(byte[] payload) {
        return KvDeferral.header(payload);
    }

    @Override
    public byte[] applyDeferred(long slot, byte[] header, int payloadLength, int payloadChecksum, SessionWrite session) {
        KvCommand partial = KvDeferral.parseHeader(header, payloadLength);
        String key = partial.key();
        // The same rules as the whole command (the value's bytes play no part in them); the bytes themselves
        // are recorded as unresolved, and a note kept before stays until they arrive (never read meanwhile).
        KvResult result = KvCommands.apply(data, watchLog, slot, partial);
        if (result instanceof KvResult.Done && (partial instanceof KvCommand.Put || keepNotes)) {
            deferred.put(key, new Deferred(slot, header.clone(), payloadLength, payloadChecksum));
        }
        return result.encode();
    }

    @Override
    public long[] unresolvedSlotsFor(byte[] payload) {
        // A scan reads only value keys: a list's note (kept with keepNotes) is not in a scan's results.
        return KvDeferral.slotsRead(payload, deferred, Deferred::slot, values::containsKey);
    }

    @Override
    public long[] unresolvedSlots() {
        return KvDeferral.allSlots(deferred, Deferred::slot);
    }

    @Override
    public void resolve(long slot, byte[] payload) {
        KvCommand command;
        try {
            command = KvCommand.decode(payload);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the value rebuilt for slot " + slot + " is not a kv command: " + e.getMessage(), e);
        }
        Deferred d = deferred.get(command.key());
        if (d == null || d.slot() != slot) {
            return; // Overwritten or resolved since.
        }
        Check.state(payload.length == d.length() && KvDeferral.checksum(payload, EMPTY) == d.checksum()
                && Arrays.equals(d.header(), Arrays.copyOf(payload, d.header().length)),
                "the value rebuilt for slot %d does not match the header and checksum applied there", slot);
        if (command instanceof KvCommand.Put p) {
            values.put(p.key(), p.value().clone());
        } else {
            notes.put(command.key(), noteDigest(((KvCommand.AppendNote) command).note()));
        }
        deferred.remove(command.key());
    }

    @Override
    public void resolveFrom(long snapshotSlot, SnapshotSource snapshot) {
        KvStateMachine peer = new KvStateMachine(keepNotes);
        peer.restore(snapshot.readAll());
        List<String> done = new ArrayList<>();
        for (Map.Entry<String, Deferred> e : deferred.entrySet()) {
            Deferred d = e.getValue();
            if (d.slot() > snapshotSlot) {
                continue;
            }
            boolean put = d.header()[0] == KvCommand.TAG_PUT;
            byte[] bytes = put ? peer.values.get(e.getKey()) : peer.notes.get(e.getKey());
            // A value is checked against the length and CRC32C of the command that wrote it; a note's digest
            // (4 bytes) cannot be, the snapshot being chosen state is what vouches for it.
            Check.state(bytes != null && (put ? d.header().length + bytes.length == d.length()
                    && KvDeferral.checksum(d.header(), bytes) == d.checksum() : bytes.length == 4),
                    "a peer's snapshot through slot %d does not hold the bytes of key %s written at slot %d", snapshotSlot,
                    e.getKey(), d.slot());
            (put ? values : notes).put(e.getKey(), bytes.clone());
            done.add(e.getKey());
        }
        for (String key : done) {
            deferred.remove(key);
        }
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
        KvCommand command = KvCommands.decodeData(payload);
        if (command == null) {
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

    private KvResult query(KvCommand command) {
        return KvCommands.query(data, command);
    }

    /** A ReadList's encoded result; with {@code keepNotes} followed by the CRC32C of the list's last note. */
    private byte[] encodeResult(KvCommand command, KvResult result) {
        byte[] encoded = result.encode();
        if (!keepNotes || !(command instanceof KvCommand.ReadList) || !(result instanceof KvResult.ListValue)) {
            return encoded;
        }
        byte[] digest = notes.get(command.key());
        return ByteBuffer.allocate(encoded.length + 4).put(encoded).put(digest == null ? noteDigest(EMPTY) : digest).array();
    }

    /** What {@code keepNotes} keeps of a note: its CRC32C (4 bytes, big-endian); computing it needs the note's bytes. */
    private static byte[] noteDigest(byte[] note) {
        return ByteBuffer.allocate(4).putInt(KvDeferral.checksum(note, EMPTY)).array();
    }

    /** The machine's maps as {@link KvCommands} reads and writes them. */
    private final class Maps implements KvData {
        @Override
        public byte[] value(String key) {
            byte[] value = values.get(key);
            return value == null ? null : value.clone();
        }

        @Override
        public boolean holdsValue(String key) {
            return values.containsKey(key);
        }

        @Override
        public long version(String key) {
            return versions.getOrDefault(key, 0L);
        }

        @Override
        public boolean holdsList(String key) {
            return lists.containsKey(key);
        }

        @Override
        public long[] list(String key) {
            LongList list = lists.get(key);
            return list == null ? new long[0] : list.toArray();
        }

        @Override
        public void write(String key, byte[] value, long slot) {
            values.put(key, value.clone());
            versions.put(key, slot);
            deferred.remove(key);
        }

        @Override
        public void delete(String key) {
            values.remove(key);
            versions.remove(key);
            lists.remove(key);
            notes.remove(key);
            deferred.remove(key);
            sessions.forget(key);
        }

        @Override
        public void append(String key, long element) {
            lists.computeIfAbsent(key, k -> new LongList()).add(element);
        }

        /**
         * In UTF-8 byte order (the order of the shard map and of RocksDB; Java's String order differs for characters
         * outside the BMP, so the range is filtered and sorted by bytes).
         */
        @Override
        public void scanValues(KvCommand.Scan scan, ValueVisitor visitor) {
            List<String> keys = new ArrayList<>();
            for (String k : values.keySet()) {
                if (scan.contains(k.getBytes(StandardCharsets.UTF_8))) {
                    keys.add(k);
                }
            }
            keys.sort((a, b) -> Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
            for (String k : keys) {
                if (!visitor.visit(k, values.get(k).clone(), versions.getOrDefault(k, 0L))) {
                    return;
                }
            }
        }
    }

    @Override
    public boolean isReadOnly(byte[] payload) {
        return KvCommands.isReadOnly(payload);
    }

    @Override
    public byte[] read(byte[] payload) {
        Object command = KvCommands.decodeRead(payload);
        return command instanceof SessionCommand session ? sessions.query(session).encode()
                : encodeResult((KvCommand) command, query((KvCommand) command));
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
        Check.state(deferred.isEmpty(), "snapshot taken while %d key(s) are unresolved (deferred rebuild): %s", deferred.size(),
                deferred.keySet());
        int size = 4 + 4 + 4;
        for (Map.Entry<String, byte[]> e : values.entrySet()) {
            size += 2 + e.getKey().getBytes(StandardCharsets.UTF_8).length + 4 + e.getValue().length + 8;
        }
        for (Map.Entry<String, LongList> e : lists.entrySet()) {
            size += 2 + e.getKey().getBytes(StandardCharsets.UTF_8).length + 4 + 8 * e.getValue().size;
        }
        if (keepNotes) {
            size += 4;
            for (Map.Entry<String, byte[]> e : notes.entrySet()) {
                size += 2 + e.getKey().getBytes(StandardCharsets.UTF_8).length + 4 + e.getValue().length;
            }
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
        if (keepNotes) {
            out.putInt(notes.size());
            for (Map.Entry<String, byte[]> e : notes.entrySet()) {
                putKey(out, e.getKey());
                out.putInt(e.getValue().length).put(e.getValue());
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
        TreeMap<String, byte[]> newNotes = new TreeMap<>();
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
            if (keepNotes) {
                need(in, 4, "note count");
                int noteCount = in.getInt();
                if (noteCount < 0 || noteCount > listCount) {
                    throw new IllegalArgumentException("kv snapshot note count " + noteCount + " is invalid");
                }
                for (int i = 0; i < noteCount; i++) {
                    String key = readKey(in);
                    need(in, 4, "note length");
                    int length = in.getInt();
                    if (length < 0 || length > in.remaining()) {
                        throw new IllegalArgumentException("kv snapshot note length " + length + " exceeds remaining "
                                + in.remaining());
                    }
                    byte[] note = new byte[length];
                    in.get(note);
                    newNotes.put(key, note);
                }
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
        notes.clear();
        notes.putAll(newNotes);
        deferred.clear();
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
