package io.synod.server.state;

import io.synod.server.wire.ByteWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The RocksDB key layout of {@link RocksKvStateMachine}: the key prefixes of the data, the client-session table, the
 * session tables and the coding, and the encoding of keys, stored values and session records (the applied slot's key
 * is the store's, {@link RocksKvStore#APPLIED_KEY}).
 */
final class RocksKeys {
    private RocksKeys() {}

    static final byte VALUE = 'v';
    static final byte LIST = 'l';
    static final byte[] SESSION_PREFIX = {0, 's'};
    /** The coding in force after the applied slot, once a coding change was applied: {@code 0 "coding"} -> core's parameters. */
    static final byte[] CODING_KEY = {0, 'c', 'o', 'd', 'i', 'n', 'g'};
    /** Session table: {@code 0 'S' id} -> ttl, renewal slot, number of owned keys. */
    static final byte[] LEASE_PREFIX = {0, 'S'};
    /** Token and owner of a created key: {@code 0 'M' key} -> token, owner. */
    static final byte[] META_PREFIX = {0, 'M'};
    /** Per-parent sequence counters: {@code 0 'Q' parent} -> next. */
    static final byte[] SEQUENCE_PREFIX = {0, 'Q'};
    /** Session -> keys index: {@code 0 'O' owner key} -> empty. */
    static final byte[] OWNED_PREFIX = {0, 'O'};
    /** The whole key space (every key here starts below 0xFF). */
    static final byte[] FIRST_KEY = {0};
    static final byte[] PAST_LAST_KEY = {(byte) 0xFF, (byte) 0xFF};

    /** A stored value: {@code [version u64][value bytes]}, the version being the slot of the key's last write. */
    static byte[] stored(long version, byte[] value) {
        return ByteBuffer.allocate(8 + value.length).putLong(version).put(value).array();
    }

    static long versionOf(byte[] stored) {
        return ByteBuffer.wrap(stored).getLong();
    }

    static byte[] valueOf(byte[] stored) {
        return Arrays.copyOfRange(stored, 8, stored.length);
    }

    static boolean startsWith(byte[] k, byte[] prefix) {
        return k.length >= prefix.length && Arrays.equals(k, 0, prefix.length, prefix, 0, prefix.length);
    }

    static byte[] leaseKey(long id) {
        return ByteBuffer.allocate(LEASE_PREFIX.length + 8).put(LEASE_PREFIX).putLong(id).array();
    }

    static byte[] metaKey(String key) {
        return prefixed(META_PREFIX, key.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] ownedKey(long owner, String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(OWNED_PREFIX.length + 8 + k.length).put(OWNED_PREFIX).putLong(owner).put(k).array();
    }

    static byte[] prefixed(byte[] prefix, byte[] rest) {
        return ByteBuffer.allocate(prefix.length + rest.length).put(prefix).put(rest).array();
    }

    /** Keys of the session tables (part of the snapshot, unlike the client-session table and the applied slot). */
    static boolean isSessionStateKey(byte[] k) {
        return k.length >= 2 && k[0] == 0 && (k[1] == 'S' || k[1] == 'M' || k[1] == 'Q' || k[1] == 'O');
    }

    static byte[] sessionRecord(long sequence, long slot, byte[] result) {
        return new ByteWriter(20 + result.length).i64(sequence).i64(slot).bytes(result).toByteArray();
    }

    static boolean isDataKey(byte[] k) {
        return k.length > 0 && (k[0] == VALUE || k[0] == LIST);
    }

    static boolean isSessionKey(byte[] k) {
        return k.length == SESSION_PREFIX.length + 8 && k[0] == SESSION_PREFIX[0] && k[1] == SESSION_PREFIX[1];
    }

    static byte[] sessionKey(long clientId) {
        return ByteBuffer.allocate(SESSION_PREFIX.length + 8).put(SESSION_PREFIX).putLong(clientId).array();
    }

    static byte[] key(byte kind, String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[k.length + 1];
        out[0] = kind;
        System.arraycopy(k, 0, out, 1, k.length);
        return out;
    }
}
