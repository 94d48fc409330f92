package io.synod.client;

import java.nio.charset.StandardCharsets;

/**
 * One entry of a scan.
 *
 * @param version the slot of the key's last write
 * @param slot    the log slot of the key's group the scan page reflects
 */
public record KeyValue(String key, byte[] value, long version, long slot) {
    public String valueUtf8() {
        return new String(value, StandardCharsets.UTF_8);
    }
}
