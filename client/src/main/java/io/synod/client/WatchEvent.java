package io.synod.client;

/**
 * One change to a watched key: at {@code slot} (its position in the total write order), the {@code index}-th change
 * that slot made (a session's end deletes several keys in one slot). Resume a watch after this event from
 * ({@code slot}, {@code index + 1}).
 */
public record WatchEvent(long slot, int index, String key, Type type) {
    /** What happened to the key. */
    public enum Type { PUT, DELETE }
}
