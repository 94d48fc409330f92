package io.synod.core.kv;

import io.synod.core.util.Check;
import io.synod.protocol.KeyChange;
import io.synod.protocol.KvCommand;
import io.synod.protocol.SessionCommand;
import io.synod.protocol.SessionResult;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The deterministic part of sessions, ephemeral and sequential keys ({@link SessionCommand}), kept beside the
 * key-value maps of {@link KvStateMachine}: the live sessions (TTL, newest renewal slot, owned keys), each key's
 * creation slot (its fencing token) and owner, and each parent prefix's sequence counter. Sorted maps throughout, so the
 * snapshot section is byte-identical on every replica.
 *
 * <p>Invariants, checked on every apply: a key's owner is a live session, and a live session's key set is exactly
 * the keys whose owner it is.
 */
public final class KvSessions {
    /** Most live sessions at once; a grant beyond it is refused (a bound on the table, like every other). */
    public static final int MAX_SESSIONS = 100_000;
    /** Largest value of a prefix's sequence counter (10 digits, as ZooKeeper's sequential names). */
    public static final long MAX_SEQUENCE = 9_999_999_999L;

    /** A live session. */
    public record Session(long id, long ttlMillis, long renewSlot, int keyCount) {}

    private static final class SessionState {
        final long ttlMillis;
        long renewSlot;
        final TreeSet<String> keys = new TreeSet<>();

        SessionState(long ttlMillis, long renewSlot) {
            this.ttlMillis = ttlMillis;
            this.renewSlot = renewSlot;
        }
    }

    /** Creation slot and owner of a key made by {@link SessionCommand.Create}. */
    private record Meta(long token, long owner) {}

    private final TreeMap<Long, SessionState> sessions = new TreeMap<>();
    private final TreeMap<String, Meta> meta = new TreeMap<>();
    private final TreeMap<String, Long> sequences = new TreeMap<>();
    private final TreeMap<String, byte[]> values;
    /** The machine's per-key versions (slot of the last write), kept in step with {@link #values}. */
    private final TreeMap<String, Long> versions;
    private final TreeMap<String, ?> lists;
    private final KvWatchLog watches;

    KvSessions(TreeMap<String, byte[]> values, TreeMap<String, Long> versions, TreeMap<String, ?> lists, KvWatchLog watches) {
        this.values = values;
        this.versions = versions;
        this.lists = lists;
        this.watches = watches;
    }

    SessionResult apply(long slot, SessionCommand command) {
        if (command instanceof SessionCommand.Grant g) {
            return grant(slot, g);
        } else if (command instanceof SessionCommand.KeepAlive k) {
            return keepAlive(slot, k.sessionId());
        } else if (command instanceof SessionCommand.Expire e) {
            return expire(slot, e);
        } else if (command instanceof SessionCommand.Revoke r) {
            return new SessionResult.Applied(end(slot, r.sessionId()));
        } else if (command instanceof SessionCommand.Create c) {
            return create(slot, c);
        } else if (command instanceof SessionCommand.DeleteIf d) {
            return deleteIf(slot, d);
        }
        return query(command);
    }

    private SessionResult grant(long slot, SessionCommand.Grant grant) {
        if (sessions.size() >= MAX_SESSIONS) {
            return new SessionResult.Refused("too many sessions (" + MAX_SESSIONS + ")");
        }
        Check.state(!sessions.containsKey(slot), "session id %d (a slot) granted twice", slot);
        sessions.put(slot, new SessionState(grant.ttlMillis(), slot));
        return new SessionResult.Granted(slot, grant.ttlMillis());
    }

    private SessionResult keepAlive(long slot, long sessionId) {
        SessionState session = sessions.get(sessionId);
        if (session == null) {
            return new SessionResult.NoSession(sessionId);
        }
        session.renewSlot = slot;
        return new SessionResult.Applied(true);
    }

    private SessionResult expire(long slot, SessionCommand.Expire expire) {
        SessionState session = sessions.get(expire.sessionId());
        if (session == null || session.renewSlot != expire.renewSlot()) {
            return new SessionResult.Applied(false); // already gone, or kept alive after the leader decided
        }
        return new SessionResult.Applied(end(slot, expire.sessionId()));
    }

    /** Ends a session: deletes it and every key it owns, at {@code slot}. */
    private boolean end(long slot, long sessionId) {
        SessionState session = sessions.remove(sessionId);
        if (session == null) {
            return false;
        }
        for (String key : session.keys) {
            Meta removed = meta.remove(key);
            Check.state(removed != null && removed.owner() == sessionId, "key %s in session %d's set is not its own", key, sessionId);
            values.remove(key);
            versions.remove(key);
            watches.record(slot, key, KeyChange.Type.DELETE);
        }
        return true;
    }

    private SessionResult create(long slot, SessionCommand.Create create) {
        if (create.sessionId() != 0 && !sessions.containsKey(create.sessionId())) {
            return new SessionResult.NoSession(create.sessionId());
        }
        String key = create.key();
        if (create.sequential()) {
            String scope = sequenceScope(create.key());
            long next = sequences.getOrDefault(scope, 0L);
            if (next > MAX_SEQUENCE) {
                return new SessionResult.Refused("sequence of " + scope + " is exhausted");
            }
            key = create.key() + sequenceSuffix(next);
            if (key.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > KvCommand.MAX_KEY_BYTES) {
                return new SessionResult.Refused("sequential key would exceed " + KvCommand.MAX_KEY_BYTES + " bytes");
            }
            sequences.put(scope, next + 1);
        }
        if (lists.containsKey(key)) {
            return new SessionResult.Refused("key " + key + " holds a list, not a value");
        }
        if (values.containsKey(key)) {
            Meta existing = meta.get(key);
            return new SessionResult.Exists(key, existing == null ? 0 : existing.token(), existing == null ? 0 : existing.owner());
        }
        values.put(key, create.value().clone());
        versions.put(key, slot);
        meta.put(key, new Meta(slot, create.sessionId()));
        if (create.sessionId() != 0) {
            sessions.get(create.sessionId()).keys.add(key);
        }
        watches.record(slot, key, KeyChange.Type.PUT);
        return new SessionResult.Created(key, slot);
    }

    /**
     * Which counter numbers a sequential key: its parent prefix, up to and including the last '/' (the whole key if
     * it has none). Per parent, as ZooKeeper's sequential nodes: queue-lock contenders name their nodes differently
     * (each with its attempt id) and must still share one order.
     */
    static String sequenceScope(String key) {
        int slash = key.lastIndexOf('/');
        return slash < 0 ? key : key.substring(0, slash + 1);
    }

    /** The 10-digit, zero-padded suffix of a sequential key (names sort in sequence order). */
    static String sequenceSuffix(long sequence) {
        String digits = Long.toString(sequence);
        return "0".repeat(10 - digits.length()) + digits;
    }

    private SessionResult deleteIf(long slot, SessionCommand.DeleteIf delete) {
        String key = delete.key();
        if (!values.containsKey(key)) {
            return new SessionResult.Applied(false);
        }
        Meta existing = meta.get(key);
        long token = existing == null ? 0 : existing.token();
        if (delete.expectedToken() != SessionCommand.ANY_TOKEN && delete.expectedToken() != token) {
            return new SessionResult.Applied(false);
        }
        values.remove(key);
        versions.remove(key);
        forget(key);
        watches.record(slot, key, KeyChange.Type.DELETE);
        return new SessionResult.Applied(true);
    }

    /** The key's value was deleted (by any command): drop its token and owner. */
    void forget(String key) {
        Meta removed = meta.remove(key);
        if (removed != null && removed.owner() != 0) {
            SessionState owner = sessions.get(removed.owner());
            Check.state(owner != null && owner.keys.remove(key), "key %s owned by session %d, which does not list it", key, removed.owner());
        }
    }

    SessionResult query(SessionCommand command) {
        if (command instanceof SessionCommand.GetEntry get) {
            byte[] value = values.get(get.key());
            if (value == null) {
                return new SessionResult.Entry(get.key(), null, 0, 0);
            }
            Meta m = meta.get(get.key());
            return new SessionResult.Entry(get.key(), value.clone(), m == null ? 0 : m.token(), m == null ? 0 : m.owner());
        }
        SessionCommand.ListPrefix list = (SessionCommand.ListPrefix) command;
        List<SessionResult.Listed> found = new ArrayList<>();
        boolean more = false;
        for (String key : values.tailMap(list.prefix(), true).keySet()) {
            if (!key.startsWith(list.prefix())) {
                break;
            }
            if (found.size() == list.limit()) {
                more = true;
                break;
            }
            Meta m = meta.get(key);
            found.add(new SessionResult.Listed(key, m == null ? 0 : m.token(), m == null ? 0 : m.owner()));
        }
        return new SessionResult.Listing(List.copyOf(found), more);
    }

    // ---- what the leader's timer and the checks read ----------------------------------------------------------

    /** The live sessions, by id. */
    public List<Session> sessions() {
        List<Session> out = new ArrayList<>(sessions.size());
        for (Map.Entry<Long, SessionState> e : sessions.entrySet()) {
            out.add(new Session(e.getKey(), e.getValue().ttlMillis, e.getValue().renewSlot, e.getValue().keys.size()));
        }
        return out;
    }

    /** Whether session {@code id} is live. */
    public boolean isLive(long id) {
        return sessions.containsKey(id);
    }

    /** The owner of {@code key} (0: none, or not a key made by a create). */
    public long ownerOf(String key) {
        Meta m = meta.get(key);
        return m == null ? 0 : m.owner();
    }

    /** Every key owned by a session, with its owner. */
    public NavigableMap<String, Long> ownedKeys() {
        TreeMap<String, Long> out = new TreeMap<>();
        meta.forEach((key, m) -> {
            if (m.owner() != 0) {
                out.put(key, m.owner());
            }
        });
        return out;
    }

    /**
     * Re-checks the invariants (every owned key's owner is live and lists it, every listed key is owned by its
     * session and has a value); throws {@link IllegalStateException} naming the first break.
     */
    public void checkInvariants() {
        meta.forEach((key, m) -> {
            Check.state(values.containsKey(key), "key %s has a token but no value", key);
            if (m.owner() != 0) {
                SessionState owner = sessions.get(m.owner());
                Check.state(owner != null, "key %s outlives its session %d", key, m.owner());
                Check.state(owner.keys.contains(key), "session %d does not list its key %s", m.owner(), key);
            }
        });
        sessions.forEach((id, s) -> s.keys.forEach(key -> {
            Meta m = meta.get(key);
            Check.state(m != null && m.owner() == id, "session %d lists key %s, which it does not own", id, key);
        }));
    }

    // ---- snapshot section ------------------------------------------------------------------------------------

    void writeTo(SessionCommand.Writer out) {
        out.i32(sessions.size());
        sessions.forEach((id, s) -> out.i64(id).i64(s.ttlMillis).i64(s.renewSlot));
        out.i32(meta.size());
        meta.forEach((key, m) -> out.key(key).i64(m.token()).i64(m.owner()));
        out.i32(sequences.size());
        sequences.forEach((prefix, next) -> out.key(prefix).i64(next));
    }

    void readFrom(ByteBuffer in) {
        TreeMap<Long, SessionState> newSessions = new TreeMap<>();
        TreeMap<String, Meta> newMeta = new TreeMap<>();
        TreeMap<String, Long> newSequences = new TreeMap<>();
        int sessionCount = count(in, 24, "session count");
        for (int i = 0; i < sessionCount; i++) {
            long id = SessionCommand.Codec.i64(in, "session id");
            newSessions.put(id, new SessionState(SessionCommand.Codec.i64(in, "session ttl"), SessionCommand.Codec.i64(in, "session renew slot")));
        }
        int metaCount = count(in, 19, "key meta count");
        for (int i = 0; i < metaCount; i++) {
            String key = SessionCommand.Codec.key(in, "meta key");
            Meta m = new Meta(SessionCommand.Codec.i64(in, "key token"), SessionCommand.Codec.i64(in, "key owner"));
            if (m.owner() != 0) {
                SessionState owner = newSessions.get(m.owner());
                if (owner == null) {
                    throw new IllegalArgumentException("kv snapshot: key " + key + " is owned by unknown session " + m.owner());
                }
                owner.keys.add(key);
            }
            newMeta.put(key, m);
        }
        int sequenceCount = count(in, 11, "sequence count");
        for (int i = 0; i < sequenceCount; i++) {
            newSequences.put(SessionCommand.Codec.key(in, "sequence prefix"), SessionCommand.Codec.i64(in, "sequence next"));
        }
        sessions.clear();
        sessions.putAll(newSessions);
        meta.clear();
        meta.putAll(newMeta);
        sequences.clear();
        sequences.putAll(newSequences);
    }

    /** Takes over the tables of {@code other} (a parsed snapshot section), or empties them ({@code null}). */
    void copyFrom(KvSessions other) {
        sessions.clear();
        meta.clear();
        sequences.clear();
        if (other != null) {
            sessions.putAll(other.sessions);
            meta.putAll(other.meta);
            sequences.putAll(other.sequences);
        }
    }

    boolean isEmpty() {
        return sessions.isEmpty() && meta.isEmpty() && sequences.isEmpty();
    }

    private static int count(ByteBuffer in, int minBytesEach, String what) {
        int count = SessionCommand.Codec.i32(in, what);
        if (count < 0 || (long) count * minBytesEach > in.remaining()) {
            throw new IllegalArgumentException("kv snapshot " + what + " " + count + " is invalid for " + in.remaining() + " remaining bytes");
        }
        return count;
    }
}
