package io.synod.core.store;

import java.util.Arrays;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The {@link KvStore} in memory (the simulator's replicas and unit tests): a sorted map in unsigned byte order and the
 * applied slot. A write is atomic because nothing else runs while it is applied; "durable" means for the life of the
 * object (a simulated restart starts from a fresh store and the replica's snapshot).
 */
public final class MemoryKvStore implements KvStore {
    private final TreeMap<byte[], byte[]> pairs = new TreeMap<>(Arrays::compareUnsigned);
    private long appliedSlot;
    private boolean closed;

    @Override
    public byte[] get(byte[] key) {
        checkOpen();
        byte[] value = pairs.get(key);
        return value == null ? null : value.clone();
    }

    @Override
    public void scan(byte[] from, byte[] to, Visitor visitor) {
        checkOpen();
        if (to != null && Arrays.compareUnsigned(from, to) >= 0) {
            return; // An empty range (a scan may end before it starts).
        }
        NavigableMap<byte[], byte[]> range = to == null ? pairs.tailMap(from, true) : pairs.subMap(from, true, to, false);
        for (Map.Entry<byte[], byte[]> e : range.entrySet()) {
            if (!visitor.visit(e.getKey().clone(), e.getValue().clone())) {
                return;
            }
        }
    }

    @Override
    public long appliedSlot() {
        checkOpen();
        return appliedSlot;
    }

    @Override
    public void write(StoreBatch batch) {
        checkOpen();
        byte[] from = batch.rangeFrom();
        if (from != null) {
            pairs.subMap(from, true, batch.rangeTo(), false).clear();
        }
        for (Map.Entry<byte[], byte[]> e : batch.changes().entrySet()) {
            if (e.getValue() == null) {
                pairs.remove(e.getKey());
            } else {
                pairs.put(e.getKey().clone(), e.getValue().clone());
            }
        }
        if (batch.appliedSlot() >= 0) {
            appliedSlot = batch.appliedSlot();
        }
    }

    /** Number of pairs held. */
    public int size() {
        return pairs.size();
    }

    @Override
    public boolean isOpen() {
        return !closed;
    }

    @Override
    public void close() {
        closed = true;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the store is closed");
        }
    }
}
