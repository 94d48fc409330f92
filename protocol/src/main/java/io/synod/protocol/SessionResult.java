package io.synod.protocol;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Results of {@link SessionCommand}s, with their encoding (tag byte {@code 32..}, distinct from {@link KvResult}'s,
 * then the fields as in {@link SessionCommand}). Decoding checks every length before allocating.
 */
public sealed interface SessionResult {
    /** A session was opened: its id is the grant's slot. */
    record Granted(long sessionId, long ttlMillis) implements SessionResult {}

    /** Keep-alive, expire, revoke, delete: whether it took effect. */
    record Applied(boolean applied) implements SessionResult {}

    /** A key was created (sequential: its full name); its token is the creating slot. */
    record Created(String key, long token) implements SessionResult {}

    /** A create found the key present: its token and owner (0: persistent). */
    record Exists(String key, long token, long ownerSession) implements SessionResult {}

    /** The session named does not exist (never granted, expired or revoked). */
    record NoSession(long sessionId) implements SessionResult {}

    /** A key with its value, token and owner; {@code value} null: absent. */
    record Entry(String key, byte[] value, long token, long ownerSession) implements SessionResult {}

    /** Keys under a prefix, in key order; {@code more}: the limit cut the listing. */
    record Listing(List<Listed> keys, boolean more) implements SessionResult {}

    /** One listed key. */
    record Listed(String key, long token, long ownerSession) {}

    /** The command was refused (a bound, a key of the wrong kind); every replica refuses alike. */
    record Refused(String message) implements SessionResult {}

    byte TAG_GRANTED = 32;
    byte TAG_APPLIED = 33;
    byte TAG_CREATED = 34;
    byte TAG_EXISTS = 35;
    byte TAG_NO_SESSION = 36;
    byte TAG_ENTRY = 37;
    byte TAG_ABSENT = 38;
    byte TAG_LISTING = 39;
    byte TAG_REFUSED = 40;

    /** Whether {@code bytes} is a session result (by its tag; {@link KvResult}'s tags are below 32). */
    static boolean isSessionResult(byte[] bytes) {
        return bytes != null && bytes.length > 0 && bytes[0] >= TAG_GRANTED && bytes[0] <= TAG_REFUSED;
    }

    default byte[] encode() {
        SessionCommand.Writer out = new SessionCommand.Writer();
        if (this instanceof Granted g) {
            out.tag(TAG_GRANTED).i64(g.sessionId()).i64(g.ttlMillis());
        } else if (this instanceof Applied a) {
            out.tag(TAG_APPLIED).flag(a.applied());
        } else if (this instanceof Created c) {
            out.tag(TAG_CREATED).key(c.key()).i64(c.token());
        } else if (this instanceof Exists e) {
            out.tag(TAG_EXISTS).key(e.key()).i64(e.token()).i64(e.ownerSession());
        } else if (this instanceof NoSession n) {
            out.tag(TAG_NO_SESSION).i64(n.sessionId());
        } else if (this instanceof Entry e) {
            if (e.value() == null) {
                out.tag(TAG_ABSENT).key(e.key());
            } else {
                out.tag(TAG_ENTRY).key(e.key()).bytes(e.value()).i64(e.token()).i64(e.ownerSession());
            }
        } else if (this instanceof Listing l) {
            out.tag(TAG_LISTING).flag(l.more()).i32(l.keys().size());
            for (Listed listed : l.keys()) {
                out.key(listed.key()).i64(listed.token()).i64(listed.ownerSession());
            }
        } else {
            out.tag(TAG_REFUSED).bytes(((Refused) this).message().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        return out.toBytes();
    }

    static SessionResult decode(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            throw new IllegalArgumentException("session result is empty");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        byte tag = in.get();
        SessionResult result = switch (tag) {
            case TAG_GRANTED -> new Granted(SessionCommand.Codec.i64(in, "session id"), SessionCommand.Codec.i64(in, "ttl"));
            case TAG_APPLIED -> new Applied(SessionCommand.Codec.flag(in, "applied flag"));
            case TAG_CREATED -> new Created(SessionCommand.Codec.key(in, "created key"), SessionCommand.Codec.i64(in, "token"));
            case TAG_EXISTS -> new Exists(SessionCommand.Codec.key(in, "existing key"), SessionCommand.Codec.i64(in, "token"),
                    SessionCommand.Codec.i64(in, "owner"));
            case TAG_NO_SESSION -> new NoSession(SessionCommand.Codec.i64(in, "session id"));
            case TAG_ABSENT -> new Entry(SessionCommand.Codec.key(in, "key"), null, 0, 0);
            case TAG_ENTRY -> new Entry(SessionCommand.Codec.key(in, "key"), SessionCommand.Codec.bytes(in, "value"),
                    SessionCommand.Codec.i64(in, "token"), SessionCommand.Codec.i64(in, "owner"));
            case TAG_LISTING -> {
                boolean more = SessionCommand.Codec.flag(in, "listing more flag");
                int count = SessionCommand.Codec.i32(in, "listing count");
                // Each listed key takes at least 2 + 1 + 16 bytes: bound the count by what remains before allocating.
                if (count < 0 || count > SessionCommand.MAX_LIST || (long) count * 19 > in.remaining()) {
                    throw new IllegalArgumentException("listing count " + count + " is invalid for " + in.remaining() + " remaining bytes");
                }
                List<Listed> keys = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    keys.add(new Listed(SessionCommand.Codec.key(in, "listed key"), SessionCommand.Codec.i64(in, "token"),
                            SessionCommand.Codec.i64(in, "owner")));
                }
                yield new Listing(List.copyOf(keys), more);
            }
            case TAG_REFUSED -> new Refused(new String(SessionCommand.Codec.bytes(in, "message"), java.nio.charset.StandardCharsets.UTF_8));
            default -> throw new IllegalArgumentException("unknown session result tag " + tag);
        };
        if (in.hasRemaining()) {
            throw new IllegalArgumentException("session result has " + in.remaining() + " trailing bytes");
        }
        return result;
    }
}
