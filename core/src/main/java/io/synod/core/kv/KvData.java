package io.synod.core.kv;

import io.synod.protocol.KvCommand;

/**
 * The data a key-value command reads and writes, as {@link KvCommands} sees it: value keys (bytes and the version,
 * the slot of the key's last write) and list keys (longs). A machine implements it over its own storage and attaches
 * its per-key bookkeeping to the writes (a delete also drops the key's token and owner, its unresolved record, its
 * note): the rules of the commands stay in {@link KvCommands}, once.
 */
public interface KvData {
    /** The value of a value key (the caller's copy), or null. */
    byte[] value(String key);

    /** Whether {@code key} holds a value. */
    default boolean holdsValue(String key) {
        return value(key) != null;
    }

    /** The version of a value key (0: none). */
    long version(String key);

    /** Whether {@code key} holds a list. */
    boolean holdsList(String key);

    /** The elements of a list key (empty: none). */
    long[] list(String key);

    /** Sets a value key to {@code value} at version {@code slot}. */
    void write(String key, byte[] value, long slot);

    /** Removes the key, value or list, with everything kept about it. */
    void delete(String key);

    /** Appends {@code element} to a list key (creating it). */
    void append(String key, long element);

    /**
     * Visits the value keys in {@code scan}'s range in UTF-8 byte order from its start (key, value, version) until the
     * visitor returns false.
     */
    void scanValues(KvCommand.Scan scan, ValueVisitor visitor);

    /** A scan's callback: returns whether to go on. */
    @FunctionalInterface
    interface ValueVisitor {
        boolean visit(String key, byte[] value, long version);
    }
}
