package io.synod.core.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.KeyChange;
import io.synod.protocol.KeyChangeBatch;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import io.synod.protocol.SessionCommand;
import io.synod.protocol.SessionResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Random command sequences applied to {@link KvStateMachine} and to a deliberately naive reference model of
 * sessions, ephemeral and sequential keys, tokens and watch events: every result, the watch stream and the final
 * state must agree; snapshots must restore to the same bytes and the invariants must hold throughout.
 */
class KvSessionsPropertyTest {

    private static final String[] KEYS = {"/l/a", "/l/b", "/l/c", "/m/x", "/l/q-"};

    /** The reference: plain maps, no indexes, every rule written out once more. */
    private static final class Model {
        record Key(byte[] value, long token, long owner) {}
        record Session(long ttl, long renew) {}
        record Event(long slot, String key, KeyChange.Type type) {}

        final TreeMap<String, Key> keys = new TreeMap<>();
        final TreeMap<Long, Session> sessions = new TreeMap<>();
        final Map<String, Long> counters = new HashMap<>();
        final List<Event> events = new ArrayList<>();

        SessionResult apply(long slot, SessionCommand c) {
            if (c instanceof SessionCommand.Grant g) {
                sessions.put(slot, new Session(g.ttlMillis(), slot));
                return new SessionResult.Granted(slot, g.ttlMillis());
            }
            if (c instanceof SessionCommand.KeepAlive k) {
                Session s = sessions.get(k.sessionId());
                if (s == null) {
                    return new SessionResult.NoSession(k.sessionId());
                }
                sessions.put(k.sessionId(), new Session(s.ttl(), slot));
                return new SessionResult.Applied(true);
            }
            if (c instanceof SessionCommand.Expire e) {
                Session s = sessions.get(e.sessionId());
                if (s == null || s.renew() != e.renewSlot()) {
                    return new SessionResult.Applied(false);
                }
                return new SessionResult.Applied(end(slot, e.sessionId()));
            }
            if (c instanceof SessionCommand.Revoke r) {
                return new SessionResult.Applied(end(slot, r.sessionId()));
            }
            if (c instanceof SessionCommand.Create cr) {
                if (cr.sessionId() != 0 && !sessions.containsKey(cr.sessionId())) {
                    return new SessionResult.NoSession(cr.sessionId());
                }
                String key = cr.key();
                if (cr.sequential()) {
                    String parent = key.substring(0, key.lastIndexOf('/') + 1);
                    long n = counters.getOrDefault(parent, 0L);
                    counters.put(parent, n + 1);
                    key = key + String.format("%010d", n);
                }
                Key existing = keys.get(key);
                if (existing != null) {
                    return new SessionResult.Exists(key, existing.token(), existing.owner());
                }
                keys.put(key, new Key(cr.value(), slot, cr.sessionId()));
                events.add(new Event(slot, key, KeyChange.Type.PUT));
                return new SessionResult.Created(key, slot);
            }
            if (c instanceof SessionCommand.DeleteIf d) {
                Key existing = keys.get(d.key());
                if (existing == null || (d.expectedToken() != SessionCommand.ANY_TOKEN && d.expectedToken() != existing.token())) {
                    return new SessionResult.Applied(false);
                }
                keys.remove(d.key());
                events.add(new Event(slot, d.key(), KeyChange.Type.DELETE));
                return new SessionResult.Applied(true);
            }
            if (c instanceof SessionCommand.GetEntry g) {
                Key k = keys.get(g.key());
                return k == null ? new SessionResult.Entry(g.key(), null, 0, 0) : new SessionResult.Entry(g.key(), k.value(), k.token(), k.owner());
            }
            SessionCommand.ListPrefix l = (SessionCommand.ListPrefix) c;
            List<SessionResult.Listed> found = new ArrayList<>();
            boolean more = false;
            for (Map.Entry<String, Key> e : keys.entrySet()) {
                if (e.getKey().startsWith(l.prefix())) {
                    if (found.size() == l.limit()) {
                        more = true;
                        break;
                    }
                    found.add(new SessionResult.Listed(e.getKey(), e.getValue().token(), e.getValue().owner()));
                }
            }
            return new SessionResult.Listing(found, more);
        }

        boolean end(long slot, long session) {
            if (sessions.remove(session) == null) {
                return false;
            }
            List<String> owned = new ArrayList<>();
            keys.forEach((k, v) -> {
                if (v.owner() == session) {
                    owned.add(k);
                }
            });
            for (String k : owned) {
                keys.remove(k);
                events.add(new Event(slot, k, KeyChange.Type.DELETE));
            }
            return true;
        }

        void put(long slot, String key, byte[] value) {
            Key existing = keys.get(key);
            keys.put(key, existing == null ? new Key(value, 0, 0) : new Key(value, existing.token(), existing.owner()));
            events.add(new Event(slot, key, KeyChange.Type.PUT));
        }

        void delete(long slot, String key) {
            if (keys.remove(key) != null) {
                events.add(new Event(slot, key, KeyChange.Type.DELETE));
            }
        }
    }

    @Test
    void randomSequencesAgreeWithTheReference() {
        for (long seed = 1; seed <= 300; seed++) {
            runSeed(seed, 400);
        }
    }

    private void runSeed(long seed, int steps) {
        SplittableRandom random = new SplittableRandom(seed);
        KvStateMachine machine = new KvStateMachine();
        Model model = new Model();
        long slot = 0;
        for (int step = 0; step < steps; step++) {
            slot += 1 + random.nextInt(3);
            String key = KEYS[random.nextInt(KEYS.length)];
            int what = random.nextInt(100);
            String context = "seed " + seed + " step " + step + " slot " + slot;
            if (what < 8) {
                byte[] value = bytes("p" + step);
                assertEquals(new KvResult.Done(), KvResult.decode(machine.apply(slot, new KvCommand.Put(key, value).encode())), context);
                model.put(slot, key, value);
                continue;
            }
            if (what < 14) {
                machine.apply(slot, new KvCommand.Delete(key).encode());
                model.delete(slot, key);
                continue;
            }
            SessionCommand command = randomCommand(random, model, key, step);
            byte[] payload = command.encode();
            assertArrayEquals(payload, SessionCommand.decode(payload).encode(), context + ": codec round trip");
            byte[] actual = command.isReadOnly() && random.nextBoolean() ? machine.read(payload) : machine.apply(slot, payload);
            SessionResult expected = model.apply(slot, command);
            assertArrayEquals(expected.encode(), actual, context + " " + command + ": expected " + expected + ", got "
                    + SessionResult.decode(actual));
            machine.sessions().checkInvariants();
            if (step % 50 == 49) {
                KvStateMachine restored = new KvStateMachine();
                restored.restore(machine.snapshot());
                assertArrayEquals(machine.snapshot(), restored.snapshot(), context + ": snapshot round trip");
                restored.sessions().checkInvariants();
            }
        }
        KeyChangeBatch all = machine.watchLog().read(1, 0, "/", true, 1_000_000);
        assertEquals(false, all.compacted());
        List<Model.Event> got = all.events().stream().map(e -> new Model.Event(e.slot(), e.key(), e.type())).toList();
        assertEquals(model.events, got, "seed " + seed + ": watch events");
        assertEquals(model.sessions.keySet(), machine.sessions().sessions().stream().map(KvSessions.Session::id)
                .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new)), "seed " + seed + ": live sessions");
    }

    private static SessionCommand randomCommand(SplittableRandom random, Model model, String key, int step) {
        List<Long> live = new ArrayList<>(model.sessions.keySet());
        long someSession = live.isEmpty() || random.nextInt(5) == 0 ? 1 + random.nextInt(50) : live.get(random.nextInt(live.size()));
        int what = random.nextInt(90);
        if (what < 12) {
            return new SessionCommand.Grant(1 + random.nextInt(10_000));
        } else if (what < 24) {
            return new SessionCommand.KeepAlive(someSession);
        } else if (what < 32) {
            Model.Session s = model.sessions.get(someSession);
            long renew = s != null && random.nextInt(3) > 0 ? s.renew() : random.nextInt(500);
            return new SessionCommand.Expire(someSession, renew);
        } else if (what < 36) {
            return new SessionCommand.Revoke(someSession);
        } else if (what < 62) {
            long owner = random.nextInt(4) == 0 ? 0 : someSession;
            return new SessionCommand.Create(key, bytes("c" + step), owner, key.endsWith("-") || random.nextInt(6) == 0);
        } else if (what < 74) {
            Model.Key existing = model.keys.get(key);
            long token = random.nextInt(3) == 0 ? SessionCommand.ANY_TOKEN
                    : existing != null && random.nextBoolean() ? existing.token() : random.nextInt(500);
            return new SessionCommand.DeleteIf(key, token);
        } else if (what < 82) {
            return new SessionCommand.GetEntry(key);
        }
        return new SessionCommand.ListPrefix(random.nextBoolean() ? "/l/" : "/", 1 + random.nextInt(4));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void sequentialKeysCountPerParentAndSortInOrder() {
        KvStateMachine machine = new KvStateMachine();
        long session = ((SessionResult.Granted) SessionResult.decode(machine.apply(1, new SessionCommand.Grant(1000).encode()))).sessionId();
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            SessionResult r = SessionResult.decode(machine.apply(2 + i, new SessionCommand.Create("/q/n-", new byte[0], session, true).encode()));
            made.add(((SessionResult.Created) r).key());
        }
        SessionResult other = SessionResult.decode(machine.apply(20, new SessionCommand.Create("/r/n-", new byte[0], session, true).encode()));
        assertEquals("/r/n-0000000000", ((SessionResult.Created) other).key());
        // Contenders name their queue nodes differently (attempt ids) but share their parent's counter.
        SessionResult sibling = SessionResult.decode(machine.apply(21, new SessionCommand.Create("/q/_c_other-lock-", new byte[0], session, true).encode()));
        assertEquals("/q/_c_other-lock-0000000012", ((SessionResult.Created) sibling).key());
        assertEquals("/q/n-0000000000", made.get(0));
        assertEquals("/q/n-0000000011", made.get(11));
        assertEquals(made.stream().sorted().toList(), made);
    }

    @Test
    void expiryDeletesTheSessionKeysAtItsSlotUnlessKeptAliveFirst() {
        KvStateMachine machine = new KvStateMachine();
        machine.apply(5, new SessionCommand.Grant(100).encode());
        machine.apply(6, new SessionCommand.Create("/lock/holder", new byte[] {1}, 5, false).encode());
        machine.apply(7, new SessionCommand.KeepAlive(5).encode());
        // The leader decided on renewal 5, but the keep-alive at 7 is ordered first: the expiry must not apply.
        assertEquals(new SessionResult.Applied(false), SessionResult.decode(machine.apply(8, new SessionCommand.Expire(5, 5).encode())));
        assertTrue(machine.sessions().isLive(5));
        assertEquals(new SessionResult.Applied(true), SessionResult.decode(machine.apply(9, new SessionCommand.Expire(5, 7).encode())));
        SessionResult.Entry gone = (SessionResult.Entry) SessionResult.decode(machine.read(new SessionCommand.GetEntry("/lock/holder").encode()));
        assertEquals(null, gone.value());
        assertEquals(new SessionResult.NoSession(5),
                SessionResult.decode(machine.apply(10, new SessionCommand.Create("/lock/holder", new byte[0], 5, false).encode())));
        KeyChangeBatch events = machine.watchLog().read(1, 0, "/lock/", true, 10);
        assertEquals(List.of(new KeyChange(6, 0, "/lock/holder", KeyChange.Type.PUT),
                new KeyChange(9, 0, "/lock/holder", KeyChange.Type.DELETE)), events.events());
    }

    @Test
    void watchReadsResumeFromAPositionAndReportCompaction() {
        KvStateMachine machine = new KvStateMachine();
        for (int slot = 1; slot <= 10; slot++) {
            machine.apply(slot, new KvCommand.Put(slot % 2 == 0 ? "/a/" + slot : "/b/" + slot, new byte[0]).encode());
        }
        KeyChangeBatch first = machine.watchLog().read(1, 0, "/a/", true, 2);
        assertEquals(List.of(2L, 4L), first.events().stream().map(KeyChange::slot).toList());
        KeyChangeBatch rest = machine.watchLog().read(first.nextSlot(), first.nextIndex(), "/a/", true, 100);
        assertEquals(List.of(6L, 8L, 10L), rest.events().stream().map(KeyChange::slot).toList());
        assertEquals(11, rest.nextSlot());
        KvStateMachine restored = new KvStateMachine();
        restored.restore(machine.snapshot());
        assertTrue(restored.watchLog().read(1, 0, "/", true, 10).compacted(), "events before a restore were never applied here");
        restored.apply(11, new KvCommand.Put("/a/11", new byte[0]).encode());
        KeyChangeBatch after = restored.watchLog().read(11, 0, "/a/", true, 10);
        assertEquals(false, after.compacted());
        assertEquals(1, after.events().size());
        KvWatchLog small = new KvWatchLog(2);
        small.record(1, "/k", KeyChange.Type.PUT);
        small.record(2, "/k", KeyChange.Type.PUT);
        small.record(3, "/k", KeyChange.Type.PUT);
        assertTrue(small.read(1, 0, "/k", false, 10).compacted());
        assertEquals(false, small.read(2, 0, "/k", false, 10).compacted());
    }

    @Test
    void malformedSessionCommandsAreRefusedWithAClearMessage() {
        KvStateMachine machine = new KvStateMachine();
        byte[] truncated = {SessionCommand.TAG_CREATE, 0, 5, 'a'};
        SessionResult r = SessionResult.decode(machine.apply(1, truncated));
        assertTrue(((SessionResult.Refused) r).message().contains("create key"), r.toString());
        byte[] badTtl = new SessionCommand.Grant(1).encode();
        badTtl[8] = 0; // ttl 0
        assertTrue(((SessionResult.Refused) SessionResult.decode(machine.apply(2, badTtl))).message().contains("ttl"));
        byte[] hugeCount = {SessionResult.TAG_LISTING, 0, 0x7f, 0, 0, 0};
        try {
            SessionResult.decode(hugeCount);
            throw new AssertionError("a listing count beyond the bytes must be refused");
        } catch (IllegalArgumentException expected) {
            assertTrue(expected.getMessage().contains("listing count"));
        }
    }
}
