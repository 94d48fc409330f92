package io.synod.server.state;

import static io.synod.server.state.RocksKeys.*;

import io.synod.core.kv.KvSessions;
import io.synod.core.kv.KvWatchLog;
import io.synod.protocol.KeyChange;
import io.synod.protocol.KvCommand;
import io.synod.protocol.SessionCommand;
import io.synod.protocol.SessionResult;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The session tables of {@link RocksKvStateMachine} (sessions, ephemeral and sequential keys: the same decisions
 * as core's KvSessions): applies and answers session commands, reading and staging through the machine.
 */
final class RocksSessionTables {
    private final RocksKvStateMachine machine;
    private final KvWatchLog watchLog;

    RocksSessionTables(RocksKvStateMachine machine, KvWatchLog watchLog) {
        this.machine = machine;
        this.watchLog = watchLog;
    }

    SessionResult applySession(long slot, SessionCommand command) {
        if (command instanceof SessionCommand.Grant g) {
            if (countPrefix(LEASE_PREFIX) >= KvSessions.MAX_SESSIONS) {
                return new SessionResult.Refused("too many sessions (" + KvSessions.MAX_SESSIONS + ")");
            }
            if (machine.get(leaseKey(slot)) != null) {
                throw new IllegalStateException("session id " + slot + " (a slot) granted twice");
            }
            machine.stage(leaseKey(slot), lease(g.ttlMillis(), slot, 0));
            return new SessionResult.Granted(slot, g.ttlMillis());
        } else if (command instanceof SessionCommand.KeepAlive k) {
            long[] lease = lease(k.sessionId());
            if (lease == null) {
                return new SessionResult.NoSession(k.sessionId());
            }
            machine.stage(leaseKey(k.sessionId()), lease(lease[0], slot, lease[2]));
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
            byte[] valueKey = key(VALUE, d.key());
            if (machine.get(valueKey) == null) {
                return new SessionResult.Applied(false);
            }
            long[] meta = meta(d.key());
            long token = meta == null ? 0 : meta[0];
            if (d.expectedToken() != SessionCommand.ANY_TOKEN && d.expectedToken() != token) {
                return new SessionResult.Applied(false);
            }
            machine.stage(valueKey, null);
            forget(d.key());
            watchLog.record(slot, d.key(), KeyChange.Type.DELETE);
            return new SessionResult.Applied(true);
        }
        return querySession(command);
    }

    SessionResult create(long slot, SessionCommand.Create create) {
        long owner = create.sessionId();
        long[] lease = owner == 0 ? null : lease(owner);
        if (owner != 0 && lease == null) {
            return new SessionResult.NoSession(owner);
        }
        String key = create.key();
        if (create.sequential()) {
            String scope = sequenceScope(key);
            byte[] counterKey = prefixed(SEQUENCE_PREFIX, scope.getBytes(StandardCharsets.UTF_8));
            byte[] counter = machine.get(counterKey);
            long next = counter == null ? 0 : ByteBuffer.wrap(counter).getLong();
            if (next > KvSessions.MAX_SEQUENCE) {
                return new SessionResult.Refused("sequence of " + scope + " is exhausted");
            }
            String digits = Long.toString(next);
            key = create.key() + "0".repeat(10 - digits.length()) + digits;
            if (key.getBytes(StandardCharsets.UTF_8).length > KvCommand.MAX_KEY_BYTES) {
                return new SessionResult.Refused("sequential key would exceed " + KvCommand.MAX_KEY_BYTES + " bytes");
            }
            machine.stage(counterKey, ByteBuffer.allocate(8).putLong(next + 1).array());
        }
        if (machine.get(key(LIST, key)) != null) {
            return new SessionResult.Refused("key " + key + " holds a list, not a value");
        }
        if (machine.get(key(VALUE, key)) != null) {
            long[] meta = meta(key);
            return new SessionResult.Exists(key, meta == null ? 0 : meta[0], meta == null ? 0 : meta[1]);
        }
        machine.stage(key(VALUE, key), stored(slot, create.value()));
        machine.stage(metaKey(key), ByteBuffer.allocate(16).putLong(slot).putLong(owner).array());
        if (owner != 0) {
            machine.stage(ownedKey(owner, key), new byte[0]);
            machine.stage(leaseKey(owner), lease(lease[0], lease[1], lease[2] + 1));
        }
        watchLog.record(slot, key, KeyChange.Type.PUT);
        return new SessionResult.Created(key, slot);
    }

    /** Which counter numbers a sequential key: its parent, up to and including the last '/' (core's rule). */
    private static String sequenceScope(String key) {
        int slash = key.lastIndexOf('/');
        return slash < 0 ? key : key.substring(0, slash + 1);
    }

    /**
     * Ends a session: deletes it and every key it owns, at {@code slot}. The deletions are recorded in the order of
     * core's machine (Java string order of the keys), so both produce the same watch events.
     */
    private boolean end(long slot, long sessionId) {
        if (lease(sessionId) == null) {
            return false;
        }
        byte[] prefix = ownedKey(sessionId, "");
        List<String> keys = new ArrayList<>();
        for (byte[] k : machine.prefixKeys(prefix)) {
            keys.add(new String(k, prefix.length, k.length - prefix.length, StandardCharsets.UTF_8));
        }
        keys.sort(null);
        for (String key : keys) {
            long[] meta = meta(key);
            if (meta == null || meta[1] != sessionId) {
                throw new IllegalStateException("key " + key + " in session " + sessionId + "'s set is not its own");
            }
            machine.stage(metaKey(key), null);
            machine.stage(ownedKey(sessionId, key), null);
            machine.stage(key(VALUE, key), null);
            watchLog.record(slot, key, KeyChange.Type.DELETE);
        }
        machine.stage(leaseKey(sessionId), null);
        return true;
    }

    /** The key's value was deleted (by any command): drop its token and owner. */
    void forget(String key) {
        long[] meta = meta(key);
        if (meta == null) {
            return;
        }
        machine.stage(metaKey(key), null);
        long owner = meta[1];
        if (owner != 0) {
            long[] lease = lease(owner);
            if (lease == null || machine.get(ownedKey(owner, key)) == null) {
                throw new IllegalStateException("key " + key + " owned by session " + owner + ", which does not list it");
            }
            machine.stage(ownedKey(owner, key), null);
            machine.stage(leaseKey(owner), lease(lease[0], lease[1], lease[2] - 1));
        }
    }

    SessionResult querySession(SessionCommand command) {
        if (command instanceof SessionCommand.GetEntry g) {
            byte[] stored = machine.get(key(VALUE, g.key()));
            if (stored == null) {
                return new SessionResult.Entry(g.key(), null, 0, 0);
            }
            long[] meta = meta(g.key());
            return new SessionResult.Entry(g.key(), valueOf(stored), meta == null ? 0 : meta[0], meta == null ? 0 : meta[1]);
        }
        SessionCommand.ListPrefix list = (SessionCommand.ListPrefix) command;
        machine.commitApplied(); // iterate RocksDB itself: write what this pass staged first (as scan does)
        byte[] prefix = key(VALUE, list.prefix());
        List<SessionResult.Listed> found = new ArrayList<>();
        boolean[] more = {false};
        machine.store().scanPrefix(prefix, (k, value) -> {
            if (found.size() == list.limit()) {
                more[0] = true;
                return false;
            }
            String key = new String(k, 1, k.length - 1, StandardCharsets.UTF_8);
            long[] meta = meta(key);
            found.add(new SessionResult.Listed(key, meta == null ? 0 : meta[0], meta == null ? 0 : meta[1]));
            return true;
        });
        return new SessionResult.Listing(List.copyOf(found), more[0]);
    }

    /** The live sessions, by id, staged changes included (what the leader's expiry timer reads). */
    List<KvSessions.Session> liveSessions() {
        List<KvSessions.Session> out = new ArrayList<>();
        for (byte[] k : machine.prefixKeys(LEASE_PREFIX)) {
            long id = ByteBuffer.wrap(k, LEASE_PREFIX.length, 8).getLong();
            long[] lease = lease(id);
            out.add(new KvSessions.Session(id, lease[0], lease[1], (int) lease[2]));
        }
        return out;
    }

    private int countPrefix(byte[] prefix) {
        return machine.prefixKeys(prefix).size();
    }

    /** {ttl, renewal slot, owned keys} of a live session, or null. */
    private long[] lease(long id) {
        byte[] v = machine.get(leaseKey(id));
        if (v == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(v);
        return new long[] {b.getLong(), b.getLong(), b.getLong()};
    }

    private static byte[] lease(long ttl, long renewSlot, long keyCount) {
        return ByteBuffer.allocate(24).putLong(ttl).putLong(renewSlot).putLong(keyCount).array();
    }

    /** {token, owner} of a created key, or null. */
    private long[] meta(String key) {
        byte[] v = machine.get(metaKey(key));
        if (v == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(v);
        return new long[] {b.getLong(), b.getLong()};
    }
}
