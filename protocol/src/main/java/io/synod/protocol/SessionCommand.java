package io.synod.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The lock primitives of the key-value state machine: sessions with a TTL, keys owned by a session (ephemeral),
 * keys named by a per-parent counter (sequential), deletes checked against a key's creation slot, and reads that
 * return a key's creation slot and owner. Applied by the key-value state machine in core ({@code KvSessions}).
 *
 * <p>Every decision is made at apply time from the log alone, so all replicas agree: a session's id is the slot
 * of its grant; a sequential key's number is its parent prefix's counter at apply; a key's token (fencing token) is the
 * slot of the write that created it. Time never enters the state machine: a session ends only by an
 * {@link Expire} the <em>leader</em> proposes when its own timer ran out (core's {@code SessionExpiryTimer}), or by a
 * {@link Revoke} from its client.
 *
 * <p>Encoding: one tag byte ({@link #TAG_FIRST}..{@link #TAG_LAST}, distinct from {@link KvCommand}'s tags), then
 * the fields: 8-byte integers, keys as u16 length + UTF-8, values as u32 length + bytes, flags as one byte. Every
 * length is checked before allocating; decoding fails with {@link IllegalArgumentException} naming the problem.
 */
public sealed interface SessionCommand {
    byte TAG_GRANT = 32;
    byte TAG_KEEP_ALIVE = 33;
    byte TAG_EXPIRE = 34;
    byte TAG_REVOKE = 35;
    byte TAG_CREATE = 36;
    byte TAG_DELETE_IF = 37;
    byte TAG_GET_ENTRY = 38;
    byte TAG_LIST_PREFIX = 39;
    byte TAG_FIRST = TAG_GRANT;
    byte TAG_LAST = TAG_LIST_PREFIX;

    /** Largest TTL a session may ask for (one day): a bound, so that a forgotten session cannot hold keys for ever. */
    long MAX_TTL_MILLIS = 86_400_000L;
    /** Largest number of keys one {@link ListPrefix} returns. */
    int MAX_LIST = 4096;
    /** Pass as {@link DeleteIf#expectedToken()} to delete whatever key is there. */
    long ANY_TOKEN = -1;

    /** Whether this command only reads. */
    default boolean isReadOnly() {
        return this instanceof GetEntry || this instanceof ListPrefix;
    }

    /** Opens a session that lives while kept alive at least every {@code ttlMillis}; its id is the grant's slot. */
    record Grant(long ttlMillis) implements SessionCommand {}

    /** The client is alive: records the slot of this keep-alive as the session's renewal. */
    record KeepAlive(long sessionId) implements SessionCommand {}

    /**
     * Proposed only by the leader, when {@code renewSlot} was the session's newest renewal it knew of and the TTL has
     * passed on the leader's clock since it learned of it. Takes effect only if the session still exists and was not
     * renewed since {@code renewSlot} (a keep-alive ordered before this command in the log wins): then the session
     * and every key it owns are deleted, at this slot.
     */
    record Expire(long sessionId, long renewSlot) implements SessionCommand {}

    /** The client closes its session: the session and its keys are deleted. */
    record Revoke(long sessionId) implements SessionCommand {}

    /**
     * Creates {@code key} (with {@code sequential}: {@code key} followed by its parent's counter, 10 digits; the
     * parent is the key up to its last '/') if absent, owned by session {@code sessionId} (0: not owned, persistent). Refused if the session does not exist.
     */
    record Create(String key, byte[] value, long sessionId, boolean sequential) implements SessionCommand {}

    /** Deletes {@code key} if it exists and was created at slot {@code expectedToken} ({@link #ANY_TOKEN}: any). */
    record DeleteIf(String key, long expectedToken) implements SessionCommand {}

    /** Reads a key with its creation slot and owner. */
    record GetEntry(String key) implements SessionCommand {}

    /** Lists the keys that start with {@code prefix}, in key order, at most {@code limit} ({@code <= MAX_LIST}). */
    record ListPrefix(String prefix, int limit) implements SessionCommand {}

    /** Whether {@code payload} is a session command (by its tag). */
    static boolean isSessionCommand(byte[] payload) {
        return payload != null && payload.length > 0 && payload[0] >= TAG_FIRST && payload[0] <= TAG_LAST;
    }

    default byte[] encode() {
        Writer out = new Writer();
        if (this instanceof Grant g) {
            out.tag(TAG_GRANT).i64(g.ttlMillis());
        } else if (this instanceof KeepAlive k) {
            out.tag(TAG_KEEP_ALIVE).i64(k.sessionId());
        } else if (this instanceof Expire e) {
            out.tag(TAG_EXPIRE).i64(e.sessionId()).i64(e.renewSlot());
        } else if (this instanceof Revoke r) {
            out.tag(TAG_REVOKE).i64(r.sessionId());
        } else if (this instanceof Create c) {
            out.tag(TAG_CREATE).key(c.key()).bytes(c.value()).i64(c.sessionId()).flag(c.sequential());
        } else if (this instanceof DeleteIf d) {
            out.tag(TAG_DELETE_IF).key(d.key()).i64(d.expectedToken());
        } else if (this instanceof GetEntry g) {
            out.tag(TAG_GET_ENTRY).key(g.key());
        } else {
            ListPrefix l = (ListPrefix) this;
            out.tag(TAG_LIST_PREFIX).key(l.prefix()).i32(l.limit());
        }
        return out.toBytes();
    }

    /** Decodes a session command; throws {@link IllegalArgumentException} naming what is wrong. */
    static SessionCommand decode(byte[] bytes) {
        if (!isSessionCommand(bytes)) {
            throw new IllegalArgumentException("not a session command: " + (bytes == null || bytes.length == 0 ? "empty" : "tag " + bytes[0]));
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        byte tag = in.get();
        SessionCommand command = switch (tag) {
            case TAG_GRANT -> new Grant(ttl(Codec.i64(in, "grant ttl")));
            case TAG_KEEP_ALIVE -> new KeepAlive(Codec.i64(in, "keep-alive session"));
            case TAG_EXPIRE -> new Expire(Codec.i64(in, "expire session"), Codec.i64(in, "expire renew slot"));
            case TAG_REVOKE -> new Revoke(Codec.i64(in, "revoke session"));
            case TAG_CREATE -> new Create(Codec.key(in, "create key"), Codec.bytes(in, "create value"),
                    nonNegative(Codec.i64(in, "create session"), "create session"), Codec.flag(in, "create sequential flag"));
            case TAG_DELETE_IF -> new DeleteIf(Codec.key(in, "delete key"), Codec.i64(in, "delete expected token"));
            case TAG_GET_ENTRY -> new GetEntry(Codec.key(in, "get key"));
            case TAG_LIST_PREFIX -> new ListPrefix(Codec.key(in, "list prefix"), limit(Codec.i32(in, "list limit")));
            default -> throw new IllegalArgumentException("unknown session command tag " + tag);
        };
        if (in.hasRemaining()) {
            throw new IllegalArgumentException("session command has " + in.remaining() + " trailing bytes");
        }
        return command;
    }

    private static long ttl(long millis) {
        if (millis < 1 || millis > MAX_TTL_MILLIS) {
            throw new IllegalArgumentException("session ttl must be 1.." + MAX_TTL_MILLIS + " ms, got " + millis);
        }
        return millis;
    }

    private static int limit(int limit) {
        if (limit < 1 || limit > MAX_LIST) {
            throw new IllegalArgumentException("list limit must be 1.." + MAX_LIST + ", got " + limit);
        }
        return limit;
    }

    private static long nonNegative(long value, String what) {
        if (value < 0) {
            throw new IllegalArgumentException(what + " must be >= 0, got " + value);
        }
        return value;
    }

    /** Length-checked field codec shared by session commands, results and snapshots. */
    final class Codec {
        private Codec() {}

        public static void need(ByteBuffer in, int bytes, String what) {
            if (in.remaining() < bytes) {
                throw new IllegalArgumentException("truncated in " + what + ": need " + bytes + " bytes, have " + in.remaining());
            }
        }

        public static long i64(ByteBuffer in, String what) {
            need(in, 8, what);
            return in.getLong();
        }

        public static int i32(ByteBuffer in, String what) {
            need(in, 4, what);
            return in.getInt();
        }

        public static boolean flag(ByteBuffer in, String what) {
            need(in, 1, what);
            byte b = in.get();
            if (b != 0 && b != 1) {
                throw new IllegalArgumentException(what + " must be 0 or 1, got " + b);
            }
            return b == 1;
        }

        public static String key(ByteBuffer in, String what) {
            need(in, 2, what + " length");
            int length = Short.toUnsignedInt(in.getShort());
            if (length == 0 || length > KvCommand.MAX_KEY_BYTES) {
                throw new IllegalArgumentException(what + " length " + length + " is invalid (1.." + KvCommand.MAX_KEY_BYTES + ")");
            }
            need(in, length, what);
            byte[] key = new byte[length];
            in.get(key);
            return new String(key, StandardCharsets.UTF_8);
        }

        public static byte[] bytes(ByteBuffer in, String what) {
            int length = i32(in, what + " length");
            if (length < 0 || length > in.remaining()) {
                throw new IllegalArgumentException(what + " length " + length + " exceeds the " + in.remaining() + " remaining bytes");
            }
            byte[] value = new byte[length];
            in.get(value);
            return value;
        }
    }

    /** A growable big-endian writer (commands and results are small; snapshots use it too). */
    final class Writer {
        private ByteBuffer out = ByteBuffer.allocate(64);

        private void room(int bytes) {
            if (out.remaining() < bytes) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(out.capacity() * 2, out.position() + bytes));
                out.flip();
                bigger.put(out);
                out = bigger;
            }
        }

        public Writer tag(byte tag) {
            room(1);
            out.put(tag);
            return this;
        }

        public Writer flag(boolean value) {
            return tag((byte) (value ? 1 : 0));
        }

        public Writer i64(long value) {
            room(8);
            out.putLong(value);
            return this;
        }

        public Writer i32(int value) {
            room(4);
            out.putInt(value);
            return this;
        }

        public Writer key(String key) {
            byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
            if (bytes.length == 0 || bytes.length > KvCommand.MAX_KEY_BYTES) {
                throw new IllegalArgumentException("key must be 1.." + KvCommand.MAX_KEY_BYTES + " UTF-8 bytes, got " + bytes.length);
            }
            room(2 + bytes.length);
            out.putShort((short) bytes.length).put(bytes);
            return this;
        }

        public Writer bytes(byte[] value) {
            room(4 + value.length);
            out.putInt(value.length).put(value);
            return this;
        }

        public byte[] toBytes() {
            byte[] result = new byte[out.position()];
            out.flip();
            out.get(result);
            return result;
        }
    }
}
