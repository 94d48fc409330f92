package io.synod.core.kv;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The key layout of the key-value state in a {@code KvStore}, the same in memory and in RocksDB (every server data
 * directory has it): values under {@code 'v' + key} as {@code [version u64][value]} (the version is the slot of the
 * key's last write), lists (of longs) under {@code 'l' + key} as 8-byte elements, and below them, 0-prefixed, the
 * machine's own tables. A store may keep its own keys among the 0-prefixed ones (RocksDB's applied slot is
 * {@code 0 "applied"}) as long as they are none of these.
 */
final class KvLayout {
    private KvLayout() {}

    static final byte VALUE = 'v';
    static final byte LIST = 'l';
    /** Client-session table: {@code 0 's' client id} -> sequence, slot, result (durable stores only). */
    static final byte[] SESSION_PREFIX = {0, 's'};
    /** The coding in force after the applied slot, once a coding change was applied: {@code 0 "coding"} -> parameters. */
    static final byte[] CODING_KEY = {0, 'c', 'o', 'd', 'i', 'n', 'g'};
    /** The membership in force after the applied slot, once a membership change was applied: {@code 0 "members"} -> it. */
    static final byte[] MEMBERSHIP_KEY = {0, 'm', 'e', 'm', 'b', 'e', 'r', 's'};
    /** Session table: {@code 0 'S' id} -> ttl, renewal slot, number of owned keys. */
    static final byte[] LEASE_PREFIX = {0, 'S'};
    /** Token and owner of a created key: {@code 0 'M' key} -> token, owner. */
    static final byte[] META_PREFIX = {0, 'M'};
    /** Per-parent sequence counters: {@code 0 'Q' parent} -> next. */
    static final byte[] SEQUENCE_PREFIX = {0, 'Q'};
    /** Session -> keys index: {@code 0 'O' owner key} -> empty. */
    static final byte[] OWNED_PREFIX = {0, 'O'};
    /** With notes kept: the CRC32C of the note of a list's last append, {@code 0 'N' key} -> 4 bytes. */
    static final byte[] NOTE_PREFIX = {0, 'N'};
    /** Unresolved (deferred) writes: {@code 0 'U' key} -> slot, payload length, CRC32C, header. Never in a snapshot. */
    static final byte[] UNRESOLVED_PREFIX = {0, 'U'};
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

    static byte[] key(byte kind, String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[k.length + 1];
        out[0] = kind;
        System.arraycopy(k, 0, out, 1, k.length);
        return out;
    }

    /** The user key of a stored key: what follows a prefix of {@code prefixLength} bytes. */
    static String userKey(byte[] stored, int prefixLength) {
        return new String(stored, prefixLength, stored.length - prefixLength, StandardCharsets.UTF_8);
    }

    static byte[] prefixed(byte[] prefix, String rest) {
        return prefixed(prefix, rest.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] prefixed(byte[] prefix, byte[] rest) {
        return ByteBuffer.allocate(prefix.length + rest.length).put(prefix).put(rest).array();
    }

    static byte[] leaseKey(long id) {
        return ByteBuffer.allocate(LEASE_PREFIX.length + 8).put(LEASE_PREFIX).putLong(id).array();
    }

    static byte[] ownedKey(long owner, String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(OWNED_PREFIX.length + 8 + k.length).put(OWNED_PREFIX).putLong(owner).put(k).array();
    }

    static byte[] sessionKey(long clientId) {
        return ByteBuffer.allocate(SESSION_PREFIX.length + 8).put(SESSION_PREFIX).putLong(clientId).array();
    }

    static boolean isSessionKey(byte[] k) {
        return k.length == SESSION_PREFIX.length + 8 && startsWith(k, SESSION_PREFIX);
    }

    static boolean isDataKey(byte[] k) {
        return k.length > 0 && (k[0] == VALUE || k[0] == LIST);
    }

    /** Keys of the session tables (part of a snapshot, unlike the client-session table and the applied slot). */
    static boolean isSessionStateKey(byte[] k) {
        return k.length >= 2 && k[0] == 0 && (k[1] == 'S' || k[1] == 'M' || k[1] == 'Q' || k[1] == 'O');
    }

    static boolean isNoteKey(byte[] k) {
        return startsWith(k, NOTE_PREFIX);
    }

    /** What a snapshot holds: the data, the session tables and the notes. */
    static boolean isSnapshotKey(byte[] k) {
        return isDataKey(k) || isSessionStateKey(k) || isNoteKey(k);
    }

    /** A big-endian sequence of longs (lease and meta records, sequence counters). */
    static byte[] longs(long... values) {
        ByteBuffer out = ByteBuffer.allocate(8 * values.length);
        for (long v : values) {
            out.putLong(v);
        }
        return out.array();
    }

    /** The {@code count} longs a record holds; {@link IllegalStateException} naming {@code what} if it is not that. */
    static long[] longs(byte[] record, int count, String what) {
        if (record.length != 8 * count) {
            throw new IllegalStateException("the store holds a bad " + what + " record of " + record.length + " bytes");
        }
        long[] out = new long[count];
        ByteBuffer in = ByteBuffer.wrap(record);
        for (int i = 0; i < count; i++) {
            out[i] = in.getLong();
        }
        return out;
    }

    /** A client-session record: {@code [sequence u64][slot u64][result length i32][result]}. */
    static byte[] sessionRecord(long sequence, long slot, byte[] result) {
        return ByteBuffer.allocate(20 + result.length).putLong(sequence).putLong(slot).putInt(result.length).put(result).array();
    }

    /** A length-prefixed ({@code i32}) byte string from {@code in}; {@link IllegalArgumentException} naming {@code what}. */
    static byte[] lengthPrefixed(ByteBuffer in, String what) {
        try {
            int length = in.getInt();
            if (length < 0 || length > in.remaining()) {
                throw new IllegalArgumentException(what + " length " + length + " exceeds the " + in.remaining() + " bytes left");
            }
            byte[] out = new byte[length];
            in.get(out);
            return out;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException(what + " is truncated", e);
        }
    }
}
