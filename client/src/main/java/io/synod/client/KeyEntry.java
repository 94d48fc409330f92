package io.synod.client;

/**
 * A key's value with its fencing token (the slot of the create that made it; 0 for keys written by a plain put) and
 * owner session (0: none). {@code value} is null when the key is absent. {@code slot}: the slot the read reflects.
 */
public record KeyEntry(String key, byte[] value, long token, long ownerSession, long slot) {
    public boolean exists() {
        return value != null;
    }
}
