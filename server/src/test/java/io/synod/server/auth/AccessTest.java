package io.synod.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientFrame;
import io.synod.protocol.KvCommand;
import io.synod.core.kv.ReservedKeys;
import io.synod.protocol.SessionCommand;
import io.synod.protocol.SessionOwnership;
import io.synod.server.security.CertIdentity;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The permission logic of the client port: prefix and range checks against a brute-force reference (every key of a
 * small alphabet up to a length), the table's parsing, and what each request needs.
 */
class AccessTest {
    /** The alphabet of the property tests: the byte values at the edges of comparisons, and a multi-byte char. */
    private static final String[] CHARS = {"", "\u0000", "a", "b", "/", "0", "\u00ff", "\u00e9"};

    /**
     * Only in the enumerated keys: the character after each of {@link #CHARS}, and the largest character (U+10FFFF),
     * so that between and above the bounds and prefixes the tests draw there are keys, as in the real key space.
     */
    private static final String[] BETWEEN = {"\u0001", "c", "1", "\u0100", "\u00ea", "\udbff\udfff"};

    private static List<String> allKeys(int maxLength) {
        List<String> keys = new ArrayList<>(List.of(""));
        List<String> frontier = List.of("");
        List<String> alphabet = new ArrayList<>(Arrays.asList(CHARS).subList(1, CHARS.length));
        alphabet.addAll(List.of(BETWEEN));
        String[] letters = alphabet.toArray(String[]::new);
        for (int len = 1; len <= maxLength; len++) {
            List<String> next = new ArrayList<>();
            for (String k : frontier) {
                for (String c : letters) {
                    next.add(k + c);
                }
            }
            keys.addAll(next);
            frontier = next;
        }
        return keys;
    }

    private static String random(Random r, int maxLength) {
        StringBuilder sb = new StringBuilder();
        int length = r.nextInt(maxLength + 1);
        for (int i = 0; i < length; i++) {
            sb.append(CHARS[1 + r.nextInt(CHARS.length - 1)]);
        }
        return sb.toString();
    }

    @Test
    void rangeChecksAgreeWithEnumeratingEveryKey() {
        // Keys up to length 3 decide every range of bounds and prefixes up to length 2: a counterexample key can be
        // shortened to at most one character past the longest of them.
        List<String> keys = allKeys(3);
        List<byte[]> keyBytes = keys.stream().map(k -> k.getBytes(StandardCharsets.UTF_8)).toList();
        Random r = new Random(22);
        for (int i = 0; i < 3_000; i++) {
            String prefix = random(r, 2);
            String start = random(r, 2);
            String end = r.nextInt(5) == 0 ? "" : random(r, 2);
            boolean within = true;
            boolean intersects = false;
            byte[] s = start.getBytes(StandardCharsets.UTF_8);
            byte[] e = end.getBytes(StandardCharsets.UTF_8);
            for (int j = 0; j < keys.size(); j++) {
                String k = keys.get(j);
                byte[] kb = keyBytes.get(j);
                boolean inRange = Arrays.compareUnsigned(kb, s) >= 0 && (e.length == 0 || Arrays.compareUnsigned(kb, e) < 0);
                if (inRange) {
                    within &= k.startsWith(prefix);
                    intersects |= k.startsWith(prefix);
                }
            }
            String what = "prefix '" + prefix + "' range ['" + start + "', '" + end + "')";
            assertEquals(within, KeyRanges.rangeWithin(start, end, prefix), "within: " + what);
            assertEquals(intersects, KeyRanges.intersects(start, end, prefix), "intersects: " + what);
        }
    }

    @Test
    void aKeyIsAllowedExactlyWhenAGrantCoveringItsPermissionIsAPrefixOfIt() {
        Random r = new Random(7);
        for (int i = 0; i < 2_000; i++) {
            List<AuthTable.Grant> grants = new ArrayList<>();
            for (int g = r.nextInt(3); g > 0; g--) {
                grants.add(new AuthTable.Grant(random(r, 2), Permission.values()[r.nextInt(3)]));
            }
            Access access = new Access("u", false, true, grants);
            String key = random(r, 3);
            Permission needed = r.nextBoolean() ? Permission.READ : Permission.WRITE;
            boolean reference = grants.stream().anyMatch(g -> key.startsWith(g.prefix())
                    && (g.permission() == needed || g.permission() == Permission.READWRITE));
            assertEquals(reference, access.allowsKey(key, needed), grants + " " + needed + " '" + key + "'");
        }
    }

    @Test
    void theTablesKeysNeedAdminEvenUnderAGrantOnEveryKey() {
        Access everything = new Access("u", false, true, List.of(new AuthTable.Grant("", Permission.READWRITE)));
        String authKey = AuthKeys.rolePermission("r", "x/");
        assertTrue(everything.allowsKey("anything", Permission.WRITE));
        assertTrue(everything.allowsKey(ReservedKeys.PREFIX + "lease", Permission.READ), "other reserved keys: by prefix");
        assertFalse(everything.allowsKey(authKey, Permission.READ));
        assertFalse(everything.allowsKey(authKey, Permission.WRITE));
        assertFalse(everything.allowsRange("", "", Permission.READ), "a scan of every key includes the table");
        assertTrue(everything.allowsRange("a", "", Permission.READ), "a scan above the reserved keys does not");
        assertFalse(everything.allowsPrefix(ReservedKeys.PREFIX, Permission.READ));
        assertTrue(new Access("root", true, true, List.of()).allowsKey(authKey, Permission.WRITE));
    }

    @Test
    void theTableGrantsOnlyWhatExistingUsersAndRolesHold() {
        Map<String, byte[]> entries = new TreeMap<>();
        entries.put(AuthKeys.user("alice"), new byte[0]);
        entries.put(AuthKeys.userRole("alice", "rw"), new byte[0]);
        entries.put(AuthKeys.userRole("alice", "ghost"), new byte[0]); // a role that does not exist
        entries.put(AuthKeys.role("rw"), new byte[0]);
        entries.put(AuthKeys.rolePermission("rw", "a/"), "readwrite".getBytes(StandardCharsets.UTF_8));
        entries.put(AuthKeys.rolePermission("rw", "odd/"), "everything".getBytes(StandardCharsets.UTF_8));
        entries.put(AuthKeys.userRole("bob", "rw"), new byte[0]); // bob is not a user
        entries.put(AuthKeys.user("carol"), new byte[0]);
        entries.put(AuthKeys.userRole("carol", AuthKeys.ADMIN_ROLE), new byte[0]);
        AuthTable table = AuthTable.parse(entries);
        assertEquals(List.of(new AuthTable.Grant("a/", Permission.READWRITE)), table.grants("alice"));
        assertEquals(List.of(), table.grants("bob"));
        assertFalse(table.hasUser("bob"));
        assertTrue(table.isAdmin("carol"));
        assertFalse(table.isAdmin("alice"));
        assertEquals(List.of("alice", "carol"), table.users());
    }

    @Test
    void eachRequestNeedsItsPermission() {
        Map<String, byte[]> entries = new TreeMap<>();
        entries.put(AuthKeys.user("alice"), new byte[0]);
        entries.put(AuthKeys.role("r"), new byte[0]);
        entries.put(AuthKeys.userRole("alice", "r"), new byte[0]);
        entries.put(AuthKeys.rolePermission("r", "a/"), "read".getBytes(StandardCharsets.UTF_8));
        ClientAccess access = new ClientAccess(true, java.util.Set.of("root"), () -> AuthTable.parse(entries));
        CertIdentity alice = new CertIdentity(CertIdentity.CLIENT, "alice", "c");
        CertIdentity root = new CertIdentity(CertIdentity.CLIENT, "root", "c");
        CertIdentity stranger = new CertIdentity(CertIdentity.CLIENT, "mallory", "c");
        CertIdentity node = new CertIdentity(CertIdentity.NODE, "node-0", "c");

        assertNull(access.check(alice, command(new KvCommand.Get("a/1").encode())));
        assertEquals("write", access.check(alice, command(new KvCommand.Put("a/1", new byte[0]).encode())).permission());
        assertEquals("write", access.check(alice, command(new KvCommand.CasVersion("a/1", 0, new byte[0]).encode())).permission());
        assertEquals("read", access.check(alice, command(new KvCommand.Get("b/1").encode())).permission());
        assertNull(access.check(alice, new ClientFrame.StaleRead(1, new KvCommand.Scan("a/", "a0", 10).encode())));
        assertEquals("read", access.check(alice, new ClientFrame.StaleRead(1, new KvCommand.Scan("a/", "b", 10).encode()))
                .permission(), "the range reaches past a/");
        assertEquals("admin", access.check(alice, new ClientFrame.CodingChange(1, 0, 1, 1, 0)).permission());
        assertNull(access.check(root, new ClientFrame.CodingChange(1, 0, 1, 1, 0)), "a bootstrap administrator");
        assertNull(access.check(node, new ClientFrame.CodingChange(1, 0, 1, 1, 0)), "a node's certificate");
        assertEquals("write", access.check(alice, command(new SessionCommand.Create("b/x", new byte[0], 0, false).encode()))
                .permission());
        assertNull(access.check(alice, command(new SessionCommand.ListPrefix("a/q/", 10).encode())));
        assertEquals("replica", access.check(root, command(new SessionCommand.Expire(5, 5).encode())).permission(),
                "not even an administrator expires a session: only the replicas' expiry path");
        assertNull(access.check(alice, command(new SessionCommand.Grant(1000).encode())));
        assertEquals("user", access.check(stranger, command(new SessionCommand.Grant(1000).encode())).permission());
        assertEquals("write", access.check(stranger, command(new KvCommand.Put("a/1", new byte[0]).encode())).permission(),
                "a certificate whose user is not in the table may do nothing");

        // Status: whole for administrators, without ballots and slots for anyone else.
        ClientFrame.StatusReport report = new ClientFrame.StatusReport(1, 0,
                List.of(new ClientFrame.GroupStatus(0, 2, 7, 0, 40, 39, 10, 0, "none", ClientFrame.CodingStatus.OFF)));
        assertEquals(report, access.visibleStatus(root, report));
        ClientFrame.GroupStatus seen = access.visibleStatus(alice, report).groups().get(0);
        assertEquals(List.of(2, 0L, 0, 0L, 0L, 0L), List.of(seen.role(), seen.promisedEpoch(), seen.leaderHint(),
                seen.commitSlot(), seen.appliedSlot(), seen.snapshotSlot()));

        // Session commands are stamped with who asks, replacing what the client wrote there.
        assertEquals(new SessionCommand.Grant(1000, "alice"), stamped(access, alice, new SessionCommand.Grant(1000, "root")));
        assertEquals(new SessionCommand.Revoke(9, "alice"), stamped(access, alice, new SessionCommand.Revoke(9, "*")));
        assertEquals(new SessionCommand.KeepAlive(9, SessionOwnership.ANY), stamped(access, root, new SessionCommand.KeepAlive(9)));
        assertEquals(new SessionCommand.Grant(1000, ""), stamped(ClientAccess.ALLOW_ALL, alice, new SessionCommand.Grant(1000, "x")),
                "authorization off: no owner");
    }

    @Test
    void ownershipAppliesToKeepAliveAndRevoke() {
        byte[] bob = SessionOwnership.ownerValue("bob");
        assertNull(SessionOwnership.refusal(3, bob, "bob"));
        assertNull(SessionOwnership.refusal(3, bob, SessionOwnership.ANY));
        assertNull(SessionOwnership.refusal(3, null, "alice"), "a session without an owner is anyone's");
        assertTrue(SessionOwnership.refusal(3, bob, "alice").startsWith(SessionOwnership.DENIED));
        assertTrue(SessionOwnership.refusal(3, bob, "").startsWith(SessionOwnership.DENIED), "unstamped is not the owner");
    }

    private static ClientFrame.Command command(byte[] payload) {
        return new ClientFrame.Command(1, 1, 1, payload, 0);
    }

    private static SessionCommand stamped(ClientAccess access, CertIdentity who, SessionCommand command) {
        return SessionCommand.decode(((ClientFrame.Command) access.stamped(who, command(command.encode()))).payload());
    }
}
