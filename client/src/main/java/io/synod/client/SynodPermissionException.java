package io.synod.client;

import java.nio.charset.StandardCharsets;

/**
 * The server refused the request: this client's user (its certificate's CN) lacks a permission. {@link #permission()}
 * names it ({@code read}, {@code write}, {@code admin}, {@code owner} of a session, {@code user}: not a defined user,
 * {@code replica}: only the replicas may), {@link #key()} the key it was missing on ("" if the request names none).
 * Retrying will not help until an administrator grants it (docs/security.md).
 */
public class SynodPermissionException extends SynodException {
    private static final long serialVersionUID = 1L;

    private final String permission;
    private final String key;

    public SynodPermissionException(String permission, String key, String message) {
        super(message);
        this.permission = permission;
        this.key = key;
    }

    /** Reads the body of a permission-denied response: permission NUL message NUL key (the key may hold NULs). */
    public static SynodPermissionException fromResponse(byte[] body) {
        String[] parts = new String(body, StandardCharsets.UTF_8).split("\u0000", 3);
        if (parts.length < 3) {
            return new SynodPermissionException("", "", "permission denied: " + String.join(" ", parts));
        }
        return new SynodPermissionException(parts[0], parts[2], parts[1]);
    }

    public String permission() {
        return permission;
    }

    public String key() {
        return key;
    }
}
