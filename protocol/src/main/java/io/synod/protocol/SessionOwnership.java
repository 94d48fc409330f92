package io.synod.protocol;

import java.nio.charset.StandardCharsets;

/**
 * Sessions belong to their creator. The client port stamps a {@link SessionCommand.Grant} with the user it
 * authenticated, and each {@link SessionCommand.KeepAlive} and {@link SessionCommand.Revoke} with the user who asks
 * ({@link #ANY} for an administrator, or when authorization is off); the machine records the owner at the grant, in
 * the reserved key {@link #ownerKey} (so snapshots carry it like any value), and applies a keep-alive or revoke only
 * if the stamp is the owner or {@link #ANY}. The decision is made at apply time from the log alone, so every replica
 * agrees, whichever node received the command. A session granted without an owner (authorization off) is anyone's.
 * An {@link SessionCommand.Expire} carries no stamp: only the replicas' own expiry path proposes it (the client port
 * refuses one from a client).
 */
public final class SessionOwnership {
    /** The stamp of a principal that may keep alive or revoke any session. */
    public static final String ANY = "*";
    /**
     * Where a session's owner is kept: this prefix and the session id. It lies under the replicas' reserved prefix
     * ({@code ReservedKeys.PREFIX} in core, checked by its test), so no client command can write it.
     */
    public static final String OWNER_PREFIX = "\u0000synod/sessions/";

    private SessionOwnership() {}

    public static String ownerKey(long sessionId) {
        return OWNER_PREFIX + sessionId;
    }

    /** The owner's name as stored. */
    public static byte[] ownerValue(String owner) {
        return owner.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Why {@code principal} may not keep alive or revoke session {@code sessionId} whose stored owner is
     * {@code ownerValue} (null: none), or null if it may. The message starts with {@link #DENIED}.
     */
    public static String refusal(long sessionId, byte[] ownerValue, String principal) {
        if (ownerValue == null || ANY.equals(principal)) {
            return null;
        }
        String owner = new String(ownerValue, StandardCharsets.UTF_8);
        if (owner.equals(principal)) {
            return null;
        }
        return DENIED + "user '" + principal + "' needs owner of session " + sessionId + " (it belongs to '" + owner
                + "') or admin";
    }

    /** How a refusal for want of ownership begins (the SDK maps it to its permission exception). */
    public static final String DENIED = "permission denied: ";
}
