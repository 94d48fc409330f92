package io.synod.server.state;

import static io.synod.server.state.RocksKeys.isDataKey;
import static io.synod.server.state.RocksKeys.isSessionStateKey;

import io.synod.server.wire.ByteReader;
import io.synod.server.wire.ByteWriter;
import io.synod.server.wire.MalformedInputException;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The byte format of {@link RocksKvStateMachine#snapshot()}: its data and session-table pairs in key order,
 * written and parsed (versions 2 and 3 are read).
 */
final class RocksSnapshotFormat {
    private RocksSnapshotFormat() {}

    /** 2: values stored as [version][value]; 3: plus the session tables (2 is still read: no sessions). */
    static final int SNAPSHOT_VERSION = 3;

    /** The pairs, in their (key) order, as snapshot bytes. */
    static byte[] encode(TreeMap<byte[], byte[]> data) {
        ByteWriter w = new ByteWriter(1024);
        w.i32(SNAPSHOT_VERSION).i32(data.size());
        for (Map.Entry<byte[], byte[]> e : data.entrySet()) {
            w.bytes(e.getKey()).bytes(e.getValue());
        }
        return w.toByteArray();
    }

    static TreeMap<byte[], byte[]> parse(byte[] snapshot) {
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
}
