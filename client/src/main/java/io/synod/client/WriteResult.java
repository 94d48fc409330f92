package io.synod.client;

/**
 * The answer to a put, delete or append.
 *
 * @param slot the log slot the write was applied in; after a put it is the key's new version
 */
public record WriteResult(long slot) {}
