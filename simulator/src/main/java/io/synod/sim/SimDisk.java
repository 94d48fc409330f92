package io.synod.sim;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.DurableState;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.Snapshot;
import io.synod.core.util.Check;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * One group's durable image on a node: what survives a crash. Only completed fsyncs are durable. A crash during an
 * fsync loses that Ready's writes, or keeps a prefix of its records (promised ballot, then entries in slot order, then
 * the snapshot) with the record being written torn, which recovery discards; the node's log ({@link SimNodeLog}),
 * shared by the groups, decides which records reach which image.
 */
final class SimDisk {
    private Ballot promised = Ballot.ZERO;
    private Snapshot snapshot = Snapshot.EMPTY;
    private final TreeMap<Long, Entry> entries = new TreeMap<>();
    private final boolean dropsPromises;

    /** @param dropsPromises the {@link Mutation#PROMISE_NOT_PERSISTED} negative control */
    SimDisk(boolean dropsPromises) {
        this.dropsPromises = dropsPromises;
    }

    /** The fsync of {@code ready} completed. */
    void persist(Ready ready) {
        List<Object> records = records(ready);
        writeRecords(records, records.size());
    }

    /** A crash during the fsync of {@code ready} after its first {@code records} records reached the disk. */
    void keepPrefix(Ready ready, int records) {
        List<Object> all = records(ready);
        Check.argument(records >= 0 && records < all.size(), "a torn write keeps 0..%d records, not %d", all.size() - 1, records);
        writeRecords(all, records);
    }

    void compactThrough(long slot) {
        if (slot > 0) {
            entries.headMap(slot, true).clear();
        }
    }

    DurableState state() {
        return new DurableState(promised, snapshot, new ArrayList<>(entries.values()));
    }

    /**
     * Whether the command (clientId, sequence) is durable here at {@code slot}: its entry is on disk there, or a
     * snapshot past the slot is (compaction drops only what a durable snapshot covers).
     */
    boolean holds(long slot, long clientId, long sequence) {
        if (snapshot.lastIncludedSlot() >= slot) {
            return true;
        }
        Entry entry = entries.get(slot);
        return entry != null && entry.command().clientId() == clientId && entry.command().sequence() == sequence;
    }

    int entryCount() {
        return entries.size();
    }

    /** Records of {@code ready} in write order: the promised ballot, the entries by slot, the snapshot. */
    static List<Object> records(Ready ready) {
        List<Object> records = new ArrayList<>(ready.entries().size() + 2);
        if (ready.promised() != null) {
            records.add(ready.promised());
        }
        List<Entry> sorted = new ArrayList<>(ready.entries());
        sorted.sort((a, b) -> Long.compare(a.slot(), b.slot()));
        records.addAll(sorted);
        if (ready.snapshot() != null) {
            records.add(ready.snapshot());
        }
        return records;
    }

    private void writeRecords(List<Object> records, int count) {
        for (int i = 0; i < count; i++) {
            write(records.get(i));
        }
    }

    /** One record of a Ready ({@link #records}) reached the disk whole. */
    void write(Object record) {
        if (record instanceof Ballot ballot) {
            if (!dropsPromises) {
                promised = ballot;
            }
        } else if (record instanceof Entry entry) {
            entries.put(entry.slot(), entry);
        } else {
            snapshot = (Snapshot) record;
        }
    }
}
