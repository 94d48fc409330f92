package io.synod.core.kv;

import static io.synod.core.kv.KvLayout.*;

import io.synod.core.util.Check;
import io.synod.protocol.KvCommand;
import io.synod.protocol.SessionCommand;
import io.synod.protocol.SessionResult;
import io.synod.protocol.KeyChange;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Sessions, ephemeral and sequential keys ({@link SessionCommand}) of {@link KvStateMachine}, kept in its store
 * beside the values ({@link KvLayout}): the live sessions (TTL, newest renewal slot, number of owned keys), each
 * created key's creation slot (its fencing token) and owner, the session-to-keys index, and each parent prefix's
 * sequence counter.
 *
 * <p>Invariants ({@link #checkInvariants}): a key's owner is a live session, and a live session's key set is exactly
 * the keys whose owner it is.
 */
public final class KvSessions {
    /** Most live sessions at once; a grant beyond it is refused (a bound on the table, like every other). */
    public static final int MAX_SESSIONS = 100_000;
    /** Largest value of a prefix's sequence counter (10 digits, as ZooKeeper's sequential names). */
    public static final long MAX_SEQUENCE = 9_999_999_999L;

    /** A live session. */
    public record Session(long id, long ttlMillis, long renewSlot, int keyCount) {}

    private final KvView view;
    private final KvWatchLog watches;

    KvSessions(KvView view, KvWatchLog watches) {
        this.view = view;
        this.watches = watches;
    }

    SessionResult apply(long slot, SessionCommand command) {
        if (command instanceof SessionCommand.Grant g) {
            if (view.prefixKeys(LEASE_PREFIX).size() >= MAX_SESSIONS) {
                return new SessionResult.Refused("too many sessions (" + MAX_SESSIONS + ")");
            }
            Check.state(view.get(leaseKey(slot)) == null, "session id %d (a slot) granted twice", slot);
            view.stage(leaseKey(slot), longs(g.ttlMillis(), slot, 0));
            return new SessionResult.Granted(slot, g.ttlMillis());
        } else if (command instanceof SessionCommand.KeepAlive k) {
            long[] lease = lease(k.sessionId());
            if (lease == null) {
                return new SessionResult.NoSession(k.sessionId());
            }
            view.stage(leaseKey(k.sessionId()), longs(lease[0], slot, lease[2]));
            return new SessionResult.Applied(true);
        } else if (command instanceof SessionCommand.Expire e) {
            long[] lease = lease(e.sessionId());
            if (lease == null || lease[1] != e.renewSlot()) {
                return new SessionResult.Applied(false); // already gone, or kept alive after the leader decided
            }
            return new SessionResult.Applied(end(slot, e.sessionId()));
        } else if (command instanceof SessionCommand.Revoke r) {
            return new SessionResult.Applied(end(slot, r.sessionId()));
        } else if (command instanceof SessionCommand.Create c) {
            return create(slot, c);
        } else if (command instanceof SessionCommand.DeleteIf d) {
            return deleteIf(slot, d);
        }
        return query(command);
    }

    private SessionResult create(long slot, SessionCommand.Create create) {
        long owner = create.sessionId();
        long[] lease = owner == 0 ? null : lease(owner);
        if (owner != 0 && lease == null) {
            return new SessionResult.NoSession(owner);
        }
        String key = create.key();
        if (create.sequential()) {
            String scope = sequenceScope(key);
            byte[] counterKey = prefixed(SEQUENCE_PREFIX, scope);
            byte[] counter = view.get(counterKey);
            long next = counter == null ? 0 : longs(counter, 1, "sequence counter")[0];
            if (next > MAX_SEQUENCE) {
                return new SessionResult.Refused("sequence of " + scope + " is exhausted");
            }
            key = create.key() + sequenceSuffix(next);
            if (key.getBytes(StandardCharsets.UTF_8).length > KvCommand.MAX_KEY_BYTES) {
                return new SessionResult.Refused("sequential key would exceed " + KvCommand.MAX_KEY_BYTES + " bytes");
            }
            view.stage(counterKey, longs(next + 1));
        }
        if (view.get(key(LIST, key)) != null) {
            return new SessionResult.Refused("key " + key + " holds a list, not a value");
        }
        if (view.get(key(VALUE, key)) != null) {
            long[] meta = meta(key);
            return new SessionResult.Exists(key, meta == null ? 0 : meta[0], meta == null ? 0 : meta[1]);
        }
        view.stage(key(VALUE, key), stored(slot, create.value()));
        view.stage(prefixed(META_PREFIX, key), longs(slot, owner));
        if (owner != 0) {
            view.stage(ownedKey(owner, key), new byte[0]);
            view.stage(leaseKey(owner), longs(lease[0], lease[1], lease[2] + 1));
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
        byte[] valueKey = key(VALUE, delete.key());
        if (view.get(valueKey) == null) {
            return new SessionResult.Applied(false);
        }
        long[] meta = meta(delete.key());
        long token = meta == null ? 0 : meta[0];
        if (delete.expectedToken() != SessionCommand.ANY_TOKEN && delete.expectedToken() != token) {
            return new SessionResult.Applied(false);
        }
        view.stage(valueKey, null);
        forget(delete.key());
        watches.record(slot, delete.key(), KeyChange.Type.DELETE);
        return new SessionResult.Applied(true);
    }

    /**
     * Ends a session: deletes it and every key it owns, at {@code slot}, recording the deletions in Java string order
     * of the keys (the order every replica has used since sessions exist, so watch events stay the same).
     */
    private boolean end(long slot, long sessionId) {
        if (lease(sessionId) == null) {
            return false;
        }
        byte[] prefix = ownedKey(sessionId, "");
        List<String> keys = new ArrayList<>();
        for (byte[] k : view.prefixKeys(prefix)) {
            keys.add(userKey(k, prefix.length));
        }
        keys.sort(null);
        for (String key : keys) {
            long[] meta = meta(key);
            Check.state(meta != null && meta[1] == sessionId, "key %s in session %d's set is not its own", key, sessionId);
            view.stage(prefixed(META_PREFIX, key), null);
            view.stage(ownedKey(sessionId, key), null);
            view.stage(key(VALUE, key), null);
            watches.record(slot, key, KeyChange.Type.DELETE);
        }
        view.stage(leaseKey(sessionId), null);
        return true;
    }

    /** The key's value was deleted (by any command): drop its token and owner. */
    void forget(String key) {
        long[] meta = meta(key);
        if (meta == null) {
            return;
        }
        view.stage(prefixed(META_PREFIX, key), null);
        long owner = meta[1];
        if (owner != 0) {
            long[] lease = lease(owner);
            Check.state(lease != null && view.get(ownedKey(owner, key)) != null,
                    "key %s owned by session %d, which does not list it", key, owner);
            view.stage(ownedKey(owner, key), null);
            view.stage(leaseKey(owner), longs(lease[0], lease[1], lease[2] - 1));
        }
    }

    SessionResult query(SessionCommand command) {
        if (command instanceof SessionCommand.GetEntry g) {
            byte[] stored = view.get(key(VALUE, g.key()));
            if (stored == null) {
                return new SessionResult.Entry(g.key(), null, 0, 0);
            }
            long[] meta = meta(g.key());
            return new SessionResult.Entry(g.key(), valueOf(stored), meta == null ? 0 : meta[0], meta == null ? 0 : meta[1]);
        }
        SessionCommand.ListPrefix list = (SessionCommand.ListPrefix) command;
        List<SessionResult.Listed> found = new ArrayList<>();
        boolean[] more = {false};
        view.scanPrefix(key(VALUE, list.prefix()), (k, value) -> {
            if (found.size() == list.limit()) {
                more[0] = true;
                return false;
            }
            String key = userKey(k, 1);
            long[] meta = meta(key);
            found.add(new SessionResult.Listed(key, meta == null ? 0 : meta[0], meta == null ? 0 : meta[1]));
            return true;
        });
        return new SessionResult.Listing(List.copyOf(found), more[0]);
    }

    // ---- what the leader's timer and the checks read ----------------------------------------------------------

    /** The live sessions, by id, staged changes included. */
    public List<Session> sessions() {
        List<Session> out = new ArrayList<>();
        view.scanPrefix(LEASE_PREFIX, (k, v) -> {
            long[] lease = longs(v, 3, "session");
            out.add(new Session(ByteBuffer.wrap(k, LEASE_PREFIX.length, 8).getLong(), lease[0], lease[1], (int) lease[2]));
            return true;
        });
        return out;
    }

    /** Whether session {@code id} is live. */
    public boolean isLive(long id) {
        return lease(id) != null;
    }

    /** The owner of {@code key} (0: none, or not a key made by a create). */
    public long ownerOf(String key) {
        long[] meta = meta(key);
        return meta == null ? 0 : meta[1];
    }

    /** Every key owned by a session, with its owner. */
    public NavigableMap<String, Long> ownedKeys() {
        TreeMap<String, Long> out = new TreeMap<>();
        view.scanPrefix(META_PREFIX, (k, v) -> {
            long owner = longs(v, 2, "key meta")[1];
            if (owner != 0) {
                out.put(userKey(k, META_PREFIX.length), owner);
            }
            return true;
        });
        return out;
    }

    /**
     * Re-checks the invariants (every owned key's owner is live and lists it, every listed key is owned by its
     * session and has a value, each session's key count is its index's size); throws {@link IllegalStateException}
     * naming the first break.
     */
    public void checkInvariants() {
        Map<Long, Integer> listed = new HashMap<>();
        view.scanPrefix(OWNED_PREFIX, (k, v) -> {
            Check.state(k.length > OWNED_PREFIX.length + 8, "an owned-key index entry of %d bytes", k.length);
            long id = ByteBuffer.wrap(k, OWNED_PREFIX.length, 8).getLong();
            String key = userKey(k, OWNED_PREFIX.length + 8);
            long[] meta = meta(key);
            Check.state(meta != null && meta[1] == id, "session %d lists key %s, which it does not own", id, key);
            listed.merge(id, 1, Integer::sum);
            return true;
        });
        view.scanPrefix(META_PREFIX, (k, v) -> {
            String key = userKey(k, META_PREFIX.length);
            long owner = longs(v, 2, "key meta")[1];
            Check.state(view.get(key(VALUE, key)) != null, "key %s has a token but no value", key);
            if (owner != 0) {
                Check.state(lease(owner) != null, "key %s outlives its session %d", key, owner);
                Check.state(view.get(ownedKey(owner, key)) != null, "session %d does not list its key %s", owner, key);
            }
            return true;
        });
        for (Session s : sessions()) {
            Check.state(s.keyCount() == listed.getOrDefault(s.id(), 0), "session %d counts %d keys, lists %d", s.id(),
                    s.keyCount(), listed.getOrDefault(s.id(), 0));
        }
    }

    /** {ttl, renewal slot, owned keys} of a live session, or null. */
    private long[] lease(long id) {
        byte[] v = view.get(leaseKey(id));
        return v == null ? null : longs(v, 3, "session");
    }

    /** {token, owner} of a created key, or null. */
    private long[] meta(String key) {
        byte[] v = view.get(prefixed(META_PREFIX, key));
        return v == null ? null : longs(v, 2, "key meta");
    }
}
