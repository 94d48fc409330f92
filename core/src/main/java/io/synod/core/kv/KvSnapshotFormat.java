package io.synod.core.kv;

import static io.synod.core.kv.KvLayout.*;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one byte format of {@link KvStateMachine#snapshot()}, written and read here only: the snapshot's pairs
 * ({@link KvLayout#isSnapshotKey}) in key order, {@code [version i32][count i32]} then per pair {@code [key length
 * i32][key][value length i32][value]}.
 *
 * <p>Versions, each number used by one format only:
 * <ul>
 *   <li>2: the RocksDB machine's first snapshots, data pairs only; read.
 *   <li>3: plus the session tables; read.
 *   <li>4 (written): plus the list notes of a machine that keeps them. A server's machine keeps none, so its
 *       snapshots hold what 3 held.
 * </ul>
 * The in-memory machine's former map formats (numbered 1 and 2, colliding with the RocksDB 2) were only ever held in
 * memory (the simulator, tests) and are not read.
 */
final class KvSnapshotFormat {
    private KvSnapshotFormat() {}

    static final int VERSION = 4;

    /** The pairs, in their (key) order, as snapshot bytes. */
    static byte[] encode(TreeMap<byte[], byte[]> pairs) {
        long size = 8;
        for (Map.Entry<byte[], byte[]> e : pairs.entrySet()) {
            size += 8L + e.getKey().length + e.getValue().length;
        }
        if (size > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("a byte snapshot of " + size + " bytes exceeds 2 GiB");
        }
        ByteBuffer out = ByteBuffer.allocate((int) size).putInt(VERSION).putInt(pairs.size());
        for (Map.Entry<byte[], byte[]> e : pairs.entrySet()) {
            out.putInt(e.getKey().length).put(e.getKey()).putInt(e.getValue().length).put(e.getValue());
        }
        return out.array();
    }

    /** The pairs of snapshot bytes (empty bytes: an empty state); {@link IllegalArgumentException} naming the problem. */
    static TreeMap<byte[], byte[]> parse(byte[] snapshot) {
        TreeMap<byte[], byte[]> pairs = new TreeMap<>(Arrays::compareUnsigned);
        if (snapshot.length == 0) {
            return pairs;
        }
        ByteBuffer in = ByteBuffer.wrap(snapshot);
        try {
            int version = in.getInt();
            if (version < 2 || version > VERSION) {
                throw new IllegalArgumentException("kv snapshot version " + version + " is not supported (this machine reads 2 to "
                        + VERSION + ")");
            }
            int count = in.getInt();
            if (count < 0 || (long) count * 8 > in.remaining()) {
                throw new IllegalArgumentException("kv snapshot pair count " + count + " cannot fit in the " + in.remaining()
                        + " bytes left");
            }
            for (int i = 0; i < count; i++) {
                byte[] k = lengthPrefixed(in, "kv snapshot key");
                byte[] v = lengthPrefixed(in, "kv snapshot value");
                boolean allowed = isDataKey(k) || (version >= 3 && isSessionStateKey(k)) || (version >= 4 && isNoteKey(k));
                if (!allowed) {
                    throw new IllegalArgumentException("kv snapshot key " + i + " is not a key a version " + version
                            + " snapshot holds");
                }
                pairs.put(k, v);
            }
            if (in.hasRemaining()) {
                throw new IllegalArgumentException("kv snapshot has " + in.remaining() + " trailing bytes");
            }
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("kv snapshot is truncated", e);
        }
        return pairs;
    }
}
