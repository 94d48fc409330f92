package io.synod.client;

/**
 * The answer to a list read: the elements appended to the key, in order.
 *
 * @param slot the log slot of the key's group this answer reflects
 */
public record ListResult(String key, long[] elements, long slot) {}
