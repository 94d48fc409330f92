package io.synod.server.auth;

import io.synod.core.kv.ReservedKeys;
import java.util.regex.Pattern;

/**
 * Where the authorization table lives: reserved keys under {@link ReservedKeys#AUTH_PREFIX}, written through the
 * log of the group that owns them (only an administrator's commands reach them), one key per fact so that each
 * change is a single put or delete and never a read-modify-write:
 *
 * <pre>
 * \0synod/auth/users/USER                  ""                 the user exists
 * \0synod/auth/users/USER/roles/ROLE       ""                 USER holds ROLE
 * \0synod/auth/roles/ROLE                  ""                 the role exists
 * \0synod/auth/roles/ROLE/perms/PREFIX     read|write|readwrite   ROLE grants that on keys starting with PREFIX
 * </pre>
 */
public final class AuthKeys {
    /** The built-in role that may do everything: coding changes, status, the auth commands, any key. */
    public static final String ADMIN_ROLE = "admin";
    /** User and role names: what {@code synod cert create-client} allows in a CN. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    static final String USERS = ReservedKeys.AUTH_PREFIX + "users/";
    static final String ROLES = ReservedKeys.AUTH_PREFIX + "roles/";
    static final String USER_ROLES = "/roles/";
    static final String ROLE_PERMS = "/perms/";

    private AuthKeys() {}

    public static String user(String user) {
        return USERS + name(user, "user");
    }

    public static String userRole(String user, String role) {
        return user(user) + USER_ROLES + name(role, "role");
    }

    public static String role(String role) {
        return ROLES + name(role, "role");
    }

    public static String rolePermission(String role, String prefix) {
        return role(role) + ROLE_PERMS + prefix;
    }

    /** {@code name} if it is a valid user or role name; else {@link IllegalArgumentException} saying what is allowed. */
    public static String name(String name, String what) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " name must be 1..64 of [A-Za-z0-9_.-], got '" + name + "'");
        }
        return name;
    }
}
