package io.synod.coordination;

/**
 * A value read from a znode together with the znode's data version, which a later
 * compare-and-set must name.
 */
public record Versioned<T>(T value, int version) {}
