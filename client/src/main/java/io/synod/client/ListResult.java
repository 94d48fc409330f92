package io.synod.client;

/**
 * The answer to a list read: the elements appended to the key, in order.
 *
 * @param slot the log slot of the key's group this answer reflects
 * @param servedBy which path answered: the log, the leader's lease, or a replica's local state (STALE)
 */
public record ListResult(String key, long[] elements, long slot, ServedBy servedBy) {}
