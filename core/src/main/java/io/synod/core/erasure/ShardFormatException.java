package io.synod.core.erasure;

/**
 * Thrown when bytes that should hold an encoded {@link ValueShard} do not: wrong magic or version,
 * impossible header fields, a length that disagrees with the header, or a checksum mismatch
 * (the shard was corrupted in flight or on disk). Callers rebuilding a value treat such a shard
 * as missing.
 */
public final class ShardFormatException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** @param message what is wrong with the bytes */
    public ShardFormatException(String message) {
        super(message);
    }
}
