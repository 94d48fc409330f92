package io.synod.client;

import java.util.List;

/** Keys under a prefix in key order, each with token and owner; {@code more}: the listing was cut at its limit. */
public record KeyListing(List<Listed> keys, boolean more, long slot) {
    public KeyListing {
        keys = List.copyOf(keys);
    }

    /** One listed key. */
    public record Listed(String key, long token, long ownerSession) {}
}
