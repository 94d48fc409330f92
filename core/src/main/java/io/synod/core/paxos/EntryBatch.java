package io.synod.core.paxos;

import java.util.ArrayList;
import java.util.List;

/**
 * The entries of one Accept message, filled within {@link ReplicaConfig#maxBatchEntries()} and
 * {@link ReplicaConfig#maxBatchBytes()}. A single entry always fits (commands are bounded by
 * {@link ReplicaConfig#maxCommandBytes()}), so a batch never stays empty.
 */
final class EntryBatch {
    private final int maxEntries;
    private final int maxBytes;
    private List<Entry> entries = new ArrayList<>();
    private int bytes;

    EntryBatch(ReplicaConfig config) {
        this.maxEntries = config.maxBatchEntries();
        this.maxBytes = config.maxBatchBytes();
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
