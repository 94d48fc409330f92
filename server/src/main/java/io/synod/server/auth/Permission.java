package io.synod.server.auth;

import java.util.Locale;

/** What a role grants on a key prefix (etcd's model): reading, writing, or both. */
public enum Permission {
    READ, WRITE, READWRITE;

    /** Whether holding this permission allows an operation that needs {@code needed} (READ or WRITE). */
    public boolean covers(Permission needed) {
        return this == READWRITE || this == needed;
    }

    /** The lower-case name used in the table, the CLI and refusals. */
    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code read}, {@code write} or {@code readwrite}; throws {@link IllegalArgumentException} naming the choices. */
    public static Permission parse(String text) {
        for (Permission p : values()) {
            if (p.text().equals(text)) {
                return p;
            }
        }
        throw new IllegalArgumentException("permission must be read, write or readwrite, got '" + text + "'");
    }
}
