package io.synod.server.auth;

import io.synod.core.kv.ReservedKeys;
import io.synod.protocol.ClientFrame;
import java.nio.charset.StandardCharsets;

/**
 * A refused request: the permission missing ({@code read}, {@code write}, {@code admin}, {@code owner},
 * {@code user}, {@code replica}) and the key it was missing on ("" when the request names none). Sent as a
 * {@link ClientFrame#STATUS_PERMISSION_DENIED} response whose result is {@code permission NUL message NUL key}
 * (the key last: a reserved key holds a NUL), so the SDK can name both without parsing prose.
 */
public record Denial(String user, String permission, String key, String what) {
    /** The one-line message: who, what was missing, on which key or for what. */
    public String message() {
        String on = key.isEmpty() ? " for " + what : " on key '" + ReservedKeys.printable(key) + "' (" + what + ")";
        return "permission denied: user '" + user + "' needs " + permission + on;
    }

    public ClientFrame.Response response(long requestId) {
        byte[] body = (permission + "\u0000" + message() + "\u0000" + key).getBytes(StandardCharsets.UTF_8);
        return new ClientFrame.Response(requestId, -1, ClientFrame.STATUS_PERMISSION_DENIED, 0, -1, body);
    }
}
