package io.synod.protocol;

/**
 * One change a replica applied to a key, as watches see it: at {@code slot}, the {@code index}-th change that slot
 * made (a session's end deletes several keys in one slot). The pair (slot, index) is the change's position in the
 * total write order, the same on every replica since each applies the same log.
 */
public record KeyChange(long slot, int index, String key, Type type) {
    /** What happened to the key. */
    public enum Type { PUT, DELETE }
}
