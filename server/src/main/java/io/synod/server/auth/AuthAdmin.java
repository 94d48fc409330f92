package io.synod.server.auth;

import io.synod.client.BlockingSynodClient;
import io.synod.client.KeyValue;
import io.synod.client.ScanResult;
import io.synod.protocol.KvCommand;
import io.synod.core.kv.ReservedKeys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The auth commands ({@code synod auth ...}) as writes of the table's keys ({@link AuthKeys}) through an SDK client:
 * each is one put or delete in the log of the group owning the table, so every node that applies it enforces it.
 * Only an administrator's client may make them (the client port refuses anyone else with the {@code admin}
 * permission missing).
 */
public final class AuthAdmin {
    private static final byte[] EXISTS = new byte[0];

    private final BlockingSynodClient client;

    public AuthAdmin(BlockingSynodClient client) {
        this.client = client;
    }

    public void addUser(String user) {
        client.put(AuthKeys.user(user), EXISTS);
    }

    /** Removes the user's role bindings, then the user (re-run it if it fails midway: each step is idempotent). */
    public void removeUser(String user) {
        String prefix = AuthKeys.user(user) + AuthKeys.USER_ROLES;
        for (String key : read(prefix).keySet()) {
            client.delete(key);
        }
        client.delete(AuthKeys.user(user));
    }

    public void addRole(String role) {
        if (AuthKeys.ADMIN_ROLE.equals(role)) {
            throw new IllegalArgumentException("role 'admin' is built in: grant it to a user with user grant-role");
        }
        client.put(AuthKeys.role(role), EXISTS);
    }

    /** Grants {@code permission} on keys starting with {@code prefix} to an existing role (replacing its grant there). */
    public void grant(String role, Permission permission, String prefix) {
        requireExisting(AuthKeys.role(role), "role '" + role + "'");
        checkPrefix(prefix);
        client.put(AuthKeys.rolePermission(role, prefix), permission.text().getBytes(StandardCharsets.UTF_8));
    }

    public void revoke(String role, String prefix) {
        checkPrefix(prefix);
        client.delete(AuthKeys.rolePermission(role, prefix));
    }

    /** Gives an existing user an existing role (or the built-in {@code admin}). */
    public void grantRole(String user, String role) {
        requireExisting(AuthKeys.user(user), "user '" + user + "'");
        if (!AuthKeys.ADMIN_ROLE.equals(role)) {
            requireExisting(AuthKeys.role(role), "role '" + role + "'");
        }
        client.put(AuthKeys.userRole(user, role), EXISTS);
    }

    public void revokeRole(String user, String role) {
        client.delete(AuthKeys.userRole(user, role));
    }

    /** The whole table, as the group that holds it has applied it (linearizable read). */
    public AuthTable table() {
        return AuthTable.parse(read(ReservedKeys.AUTH_PREFIX));
    }

    /** Every table entry whose key starts with {@code prefix}, read in pages. */
    private Map<String, byte[]> read(String prefix) {
        Map<String, byte[]> out = new TreeMap<>();
        String start = prefix;
        while (true) {
            ScanResult page = client.scan(start, AuthService.AUTH_END, KvCommand.MAX_SCAN_LIMIT);
            List<KeyValue> entries = new ArrayList<>(page.entries());
            for (KeyValue kv : entries) {
                if (kv.key().startsWith(prefix)) {
                    out.put(kv.key(), kv.value());
                }
            }
            if (!page.more() || entries.isEmpty()) {
                return out;
            }
            start = entries.get(entries.size() - 1).key() + "\u0000";
        }
    }

    private void requireExisting(String key, String what) {
        if (client.get(key).value() == null) {
            throw new IllegalArgumentException(what + " does not exist");
        }
    }

    private static void checkPrefix(String prefix) {
        if (prefix.getBytes(StandardCharsets.UTF_8).length > KvCommand.MAX_KEY_BYTES / 2) {
            throw new IllegalArgumentException("prefix must be at most " + KvCommand.MAX_KEY_BYTES / 2 + " UTF-8 bytes");
        }
    }
}
