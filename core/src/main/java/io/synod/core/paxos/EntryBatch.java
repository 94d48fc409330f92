package io.synod.core.paxos;

import java.util.ArrayList;
import java.util.List;

/**
 * The entries of one message, filled within a count and a byte bound: an Accept batch
 * ({@link ReplicaConfig#maxBatchEntries()}, {@link ReplicaConfig#maxBatchBytes()}) or a Promise
 * page ({@link ReplicaConfig#maxPromiseBytes()}). The first entry is always taken (commands are
 * bounded by {@link ReplicaConfig#maxCommandBytes()}), so a batch never stays empty.
 */
final class EntryBatch {
    private final int maxEntries;
    private final int maxBytes;
    private List<Entry> entries = new ArrayList<>();
    private int bytes;

    /** An Accept batch. */
    EntryBatch(ReplicaConfig config) {
        this(config.maxBatchEntries(), config.maxBatchBytes());
    }

    EntryBatch(int maxEntries, int maxBytes) {
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
    }

    /** Adds {@code entry} unless the batch is full; returns whether it was added. */
    boolean tryAdd(Entry entry) {
        if (!entries.isEmpty() && (entries.size() >= maxEntries || bytes + entry.sizeBytes() > maxBytes)) {
            return false;
        }
        entries.add(entry);
        bytes += entry.sizeBytes();
        return true;
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    /** The entries gathered so far; the batch starts empty again. */
    List<Entry> take() {
        List<Entry> taken = entries;
        entries = new ArrayList<>();
        bytes = 0;
        return taken;
    }
}
