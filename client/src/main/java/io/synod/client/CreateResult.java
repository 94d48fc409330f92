package io.synod.client;

/**
 * The answer to a create: {@code created} (the key is new, made at {@code slot}, which is its {@code token}) or not
 * (it existed: {@code token} and {@code ownerSession} are the existing key's). {@code key} is the key made or found
 * (for a sequential create, with the sequence the server assigned). {@code slot}: the slot the answer reflects.
 */
public record CreateResult(boolean created, String key, long token, long ownerSession, long slot) {}
