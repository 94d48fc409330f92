package io.synod.client;

import java.nio.charset.StandardCharsets;

/**
 * The answer to a get.
 *
 * @param key     the key read
 * @param value   its value, or null if the key is absent (a copy the caller owns)
 * @param version the slot of the key's last write (0 if absent): the expected version of
 *                {@link SynodClient#compareAndSetVersion}
 * @param slot    the log slot of the key's group this answer reflects
 * @param servedBy which path answered: the log, the leader's lease, or a replica's local state (STALE)
 */
public record GetResult(String key, byte[] value, long version, long slot, ServedBy servedBy) {
    public boolean exists() {
        return value != null;
    }

    /** The value decoded as UTF-8, or null if absent. */
    public String valueUtf8() {
        return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }
}
