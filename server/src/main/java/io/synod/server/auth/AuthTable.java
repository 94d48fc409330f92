package io.synod.server.auth;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One node's applied copy of the authorization table (the {@link AuthKeys} entries of the group that owns them,
 * as of the slot it read them at), parsed into what each user may do. Immutable; a newer copy replaces it whole.
 * Entries that do not parse (an unknown permission, a binding to a user or role that does not exist) grant
 * nothing.
 */
public final class AuthTable {
    /** No users, no roles: only the bootstrap administrators may do anything. */
    public static final AuthTable EMPTY = new AuthTable(Map.of(), Map.of());

    private final Map<String, Set<String>> userRoles;
    private final Map<String, List<Grant>> roleGrants;

    /** One permission on one prefix. */
    public record Grant(String prefix, Permission permission) {}

    private AuthTable(Map<String, Set<String>> userRoles, Map<String, List<Grant>> roleGrants) {
        this.userRoles = userRoles;
        this.roleGrants = roleGrants;
    }

    /** Parses the table's entries (reserved key to value). */
    public static AuthTable parse(Map<String, byte[]> entries) {
        Set<String> users = new HashSet<>();
        Set<String> roles = new HashSet<>();
        Map<String, Set<String>> userRoles = new HashMap<>();
        Map<String, List<Grant>> roleGrants = new HashMap<>();
        for (String key : entries.keySet()) {
            if (key.startsWith(AuthKeys.USERS) && key.indexOf('/', AuthKeys.USERS.length()) < 0) {
                users.add(key.substring(AuthKeys.USERS.length()));
            } else if (key.startsWith(AuthKeys.ROLES) && key.indexOf('/', AuthKeys.ROLES.length()) < 0) {
                roles.add(key.substring(AuthKeys.ROLES.length()));
            }
        }
        roles.add(AuthKeys.ADMIN_ROLE);
        for (Map.Entry<String, byte[]> e : entries.entrySet()) {
            String key = e.getKey();
            if (key.startsWith(AuthKeys.USERS)) {
                String rest = key.substring(AuthKeys.USERS.length());
                int at = rest.indexOf(AuthKeys.USER_ROLES);
                if (at > 0 && users.contains(rest.substring(0, at))) {
                    String role = rest.substring(at + AuthKeys.USER_ROLES.length());
                    if (roles.contains(role)) {
                        userRoles.computeIfAbsent(rest.substring(0, at), u -> new HashSet<>()).add(role);
                    }
                }
            } else if (key.startsWith(AuthKeys.ROLES)) {
                String rest = key.substring(AuthKeys.ROLES.length());
                int at = rest.indexOf(AuthKeys.ROLE_PERMS);
                if (at > 0 && roles.contains(rest.substring(0, at))) {
                    try {
                        Permission p = Permission.parse(new String(e.getValue(), StandardCharsets.UTF_8));
                        roleGrants.computeIfAbsent(rest.substring(0, at), r -> new ArrayList<>())
                                .add(new Grant(rest.substring(at + AuthKeys.ROLE_PERMS.length()), p));
                    } catch (IllegalArgumentException ignored) {
                        // A value no command of ours writes: it grants nothing.
                    }
                }
            }
        }
        for (String user : users) {
            userRoles.putIfAbsent(user, Set.of());
        }
        return new AuthTable(Map.copyOf(userRoles), Map.copyOf(roleGrants));
    }

    /** The users defined, in name order. */
    public List<String> users() {
        return userRoles.keySet().stream().sorted().toList();
    }

    /** Whether {@code user} exists in the table. */
    public boolean hasUser(String user) {
        return userRoles.containsKey(user);
    }

    /** Whether {@code user} holds the built-in admin role through the table. */
    public boolean isAdmin(String user) {
        return userRoles.getOrDefault(user, Set.of()).contains(AuthKeys.ADMIN_ROLE);
    }

    /** Every grant {@code user}'s roles give (none for an unknown user). */
    public List<Grant> grants(String user) {
        List<Grant> out = new ArrayList<>();
        for (String role : userRoles.getOrDefault(user, Set.of())) {
            out.addAll(roleGrants.getOrDefault(role, List.of()));
        }
        return out;
    }
}
