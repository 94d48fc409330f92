package io.synod.client;

/**
 * The answer to a compare-and-set.
 *
 * @param swapped whether the expectation held and the new value was written
 * @param slot    the log slot the command was applied in (the key's new version when swapped)
 */
public record CasResult(boolean swapped, long slot) {}
