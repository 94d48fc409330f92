package io.synod.core.store;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The changes one {@link KvStore#write} applies at once: at most one range deletion (applied first, how a snapshot
 * replaces a key space), then puts and deletes by key (the last change of a key wins), and the applied slot that
 * the batch brings the store to. A state machine stages a pass's changes here and reads its own writes back through
 * {@link #contains}/{@link #get} before the batch is written.
 */
public final class StoreBatch {
    private final TreeMap<byte[], byte[]> changes = new TreeMap<>(Arrays::compareUnsigned);
    private byte[] rangeFrom;
    private byte[] rangeTo;
    private long appliedSlot = -1;

    /** Stages {@code value} under {@code key} (the arrays are the batch's from now on). */
    public StoreBatch put(byte[] key, byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("a put needs a value (delete removes a key)");
        }
        changes.put(key, value);
        return this;
    }

    /** Stages the removal of {@code key}. */
    public StoreBatch delete(byte[] key) {
        changes.put(key, null);
        return this;
    }

    /**
     * Deletes every key in {@code [from, to)} before the batch's puts and deletes; a batch has at most one range and
     * it must be set before any other change (it would otherwise hide them from {@link #get}).
     */
    public StoreBatch deleteRange(byte[] from, byte[] to) {
        if (rangeFrom != null || !changes.isEmpty()) {
            throw new IllegalStateException("a batch's range deletion comes first and only once");
        }
        if (Arrays.compareUnsigned(from, to) >= 0) {
            throw new IllegalArgumentException("an empty or reversed range");
        }
        rangeFrom = from.clone();
        rangeTo = to.clone();
        return this;
    }

    /** The slot the store reaches with this batch (a batch may carry none: -1). */
    public StoreBatch appliedSlot(long slot) {
        if (slot < 0) {
            throw new IllegalArgumentException("applied slot " + slot + " is negative");
        }
        appliedSlot = slot;
        return this;
    }

    /** The applied slot this batch carries, or -1. */
    public long appliedSlot() {
        return appliedSlot;
    }

    /** Whether the batch decides {@code key}: a staged put or delete, or the range deletion covers it. */
    public boolean contains(byte[] key) {
        return changes.containsKey(key) || inRange(key);
    }

    /** What the batch makes of {@code key}: its staged value, or null for a delete; only meaningful if {@link #contains}. */
    public byte[] get(byte[] key) {
        return changes.get(key);
    }

    /** The staged puts (non-null values) and deletes (null values) in key order, read-only. */
    public Map<byte[], byte[]> changes() {
        return Collections.unmodifiableMap(changes);
    }

    /** The range deletion's start, or null. */
    public byte[] rangeFrom() {
        return rangeFrom == null ? null : rangeFrom.clone();
    }

    /** The range deletion's end (exclusive), or null. */
    public byte[] rangeTo() {
        return rangeTo == null ? null : rangeTo.clone();
    }

    /** Whether there is nothing to write (no change and no applied slot). */
    public boolean isEmpty() {
        return changes.isEmpty() && rangeFrom == null && appliedSlot < 0;
    }

    /** Number of keys staged (puts and deletes). */
    public int size() {
        return changes.size();
    }

    /** Empties the batch (after it was written, or to drop it). */
    public void clear() {
        changes.clear();
        rangeFrom = null;
        rangeTo = null;
        appliedSlot = -1;
    }

    private boolean inRange(byte[] key) {
        return rangeFrom != null && Arrays.compareUnsigned(key, rangeFrom) >= 0 && Arrays.compareUnsigned(key, rangeTo) < 0;
    }

    /** The first key after every key starting with {@code prefix} (null: no such key, the prefix is all 0xFF). */
    public static byte[] prefixEnd(byte[] prefix) {
        byte[] end = prefix.clone();
        for (int i = end.length - 1; i >= 0; i--) {
            if (end[i] != (byte) 0xFF) {
                end[i]++;
                return Arrays.copyOf(end, i + 1);
            }
        }
        return null;
    }
}
