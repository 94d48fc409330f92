package io.synod.server.auth;

import io.synod.core.kv.ReservedKeys;
import java.util.List;

/**
 * What one user may do, as of one copy of the table: the check of a key, a key range or a prefix against the
 * grants of its roles. The table's own keys ({@link ReservedKeys#AUTH_PREFIX}) need {@code admin}, whatever
 * prefix a role grants: a grant on "" (every key) must not let a user grant itself more.
 */
public record Access(String user, boolean admin, boolean known, List<AuthTable.Grant> grants) {
    public Access {
        grants = List.copyOf(grants);
    }

    /** Whether {@code needed} (READ or WRITE) on {@code key} is allowed. */
    public boolean allowsKey(String key, Permission needed) {
        if (admin) {
            return true;
        }
        if (KeyRanges.hasPrefix(key, ReservedKeys.AUTH_PREFIX)) {
            return false;
        }
        for (AuthTable.Grant g : grants) {
            if (g.permission().covers(needed) && KeyRanges.hasPrefix(key, g.prefix())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code needed} on every key of {@code [start, end)} ({@code end} empty: unbounded) is allowed: one
     * grant's prefix must hold the whole range.
     */
    public boolean allowsRange(String start, String end, Permission needed) {
        if (admin) {
            return true;
        }
        if (KeyRanges.intersects(start, end, ReservedKeys.AUTH_PREFIX)) {
            return false;
        }
        for (AuthTable.Grant g : grants) {
            if (g.permission().covers(needed) && KeyRanges.rangeWithin(start, end, g.prefix())) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code needed} on every key starting with {@code prefix} is allowed. */
    public boolean allowsPrefix(String prefix, Permission needed) {
        if (admin) {
            return true;
        }
        if (prefix.startsWith(ReservedKeys.AUTH_PREFIX) || ReservedKeys.AUTH_PREFIX.startsWith(prefix)) {
            return false;
        }
        for (AuthTable.Grant g : grants) {
            if (g.permission().covers(needed) && prefix.startsWith(g.prefix())) {
                return true;
            }
        }
        return false;
    }
}
