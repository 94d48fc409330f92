package io.synod.core.kv;

import io.synod.core.store.KvStore;
import io.synod.core.store.StoreBatch;
import java.util.ArrayList;
import java.util.List;

/**
 * The applied state as the machine's parts read and change it: the store with the changes not yet written laid
 * over it. Changes are staged in one {@link StoreBatch} and written by {@link #commit}, so a durable store shows all
 * of a pass's changes (with their applied slot and client sessions) or none. A scan iterates the store itself, so it
 * writes the staged batch first: everything staged belongs to slots already applied, so the store still only ever
 * shows a whole prefix of the applied state.
 */
final class KvView {
    private final KvStore store;
    private final StoreBatch staged = new StoreBatch();

    KvView(KvStore store) {
        this.store = store;
    }

    KvStore store() {
        return store;
    }

    /** The staged batch (the machine adds its applied slot and client-session records to it). */
    StoreBatch staged() {
        return staged;
    }

    /** A key as the machine sees it: staged, else the store's. */
    byte[] get(byte[] key) {
        return staged.contains(key) ? staged.get(key) : store.get(key);
    }

    /** Stages {@code value} (null: a delete) under {@code key}, for the next {@link #commit}. */
    void stage(byte[] key, byte[] value) {
        if (value == null) {
            staged.delete(key);
        } else {
            staged.put(key, value);
        }
    }

    /** Writes everything staged in one batch. */
    void commit() {
        store.write(staged);
        staged.clear();
    }

    /** Drops what is staged (the state is being replaced). */
    void discard() {
        staged.clear();
    }

    /** The slot of the last command applied, staged or written (0 if none). */
    long appliedSlot() {
        return staged.appliedSlot() >= 0 ? staged.appliedSlot() : store.appliedSlot();
    }

    /** Visits {@code [from, to)} after writing what is staged. */
    void scan(byte[] from, byte[] to, KvStore.Visitor visitor) {
        commit();
        store.scan(from, to, visitor);
    }

    /** Visits the keys under {@code prefix} after writing what is staged. */
    void scanPrefix(byte[] prefix, KvStore.Visitor visitor) {
        commit();
        store.scanPrefix(prefix, visitor);
    }

    /** The keys under {@code prefix}, after writing what is staged. */
    List<byte[]> prefixKeys(byte[] prefix) {
        List<byte[]> out = new ArrayList<>();
        scanPrefix(prefix, (key, value) -> out.add(key));
        return out;
    }
}
