package io.synod.client;

/** The answer to a checked delete: whether it deleted the key, and its slot. */
public record DeleteResult(boolean deleted, long slot) {}
