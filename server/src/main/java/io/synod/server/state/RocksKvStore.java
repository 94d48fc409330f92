package io.synod.server.state;

import io.synod.core.paxos.SnapshotSource;
import io.synod.core.store.CheckpointStore;
import io.synod.core.store.StoreBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.rocksdb.Checkpoint;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The {@link KvStore} in RocksDB: one database (the default column family) per group, bytewise key order, a
 * {@link StoreBatch} written as one {@link WriteBatch}, and the applied slot kept in the same key space under
 * {@code 0 "applied"} (8 bytes, big-endian), written in each batch that carries one. That key is the store's own:
 * scans skip it and the layout above it is the state machine's. This is the layout every existing data directory has.
 *
 * <p><b>Checkpoints.</b> {@link #checkpoint} creates a RocksDB checkpoint (SST files hard-linked) under the group's
 * snapshot directory, fsynced; {@link #snapshotSink} receives a peer's into a temporary directory; {@link #swapIn}
 * installs one as the database: a durable copy ({@code <db>.next}) is built, the database closed, {@code <db>} renamed
 * to {@code <db>.old} and {@code <db>.next} to {@code <db>}, and it is reopened; opening finishes or discards a swap
 * a crash interrupted ({@link CheckpointSwap}).
 *
 * <p><b>No RocksDB write-ahead log.</b> Batches are written with the WAL off: the group's Paxos log already holds
 * every applied entry until a snapshot covers it, so RocksDB's own log was a second copy of the same stream. Restart
 * stays correct because: (1) the applied slot is written in the same batch as the changes, in the one (default)
 * column family, so whatever prefix of batches a flush persisted carries its own slot (a crash loses whole batches
 * from the end, never half of one; one column family needs no atomic flush); (2) after a kill -9 the database opens
 * at its last flush, and the replica starts from that slot ({@code Learner}: a durable applied slot at or above the
 * snapshot's), re-applying the log above it, or learning from peers what its log lacks, as any lagging replica does;
 * (3) the log is compacted only through a snapshot's slot, and a snapshot is a {@link #checkpoint}, which flushes
 * first, so the flushed slot is never below what compaction dropped (and if it were, the replica would restore the
 * snapshot instead); (4) a clean {@link #close} and a {@link #swapIn} flush or replace the memtable. What a crash
 * costs is re-applying up to a memtable's worth of entries, instead of a WAL write per batch in steady state.
 */
public final class RocksKvStore implements CheckpointStore {
    static {
        RocksDB.loadLibrary();
    }

    /** Where the applied slot is kept: among the 0-prefixed keys of the machine's layout, one the machine never uses. */
    static final byte[] APPLIED_KEY = {0, 'a', 'p', 'p', 'l', 'i', 'e', 'd'};

    private final Path dir;
    private final Path checkpointDir;
    private final Options options;
    /** The WAL off (see the class comment: the Paxos log is the write-ahead log). */
    private final WriteOptions writeOptions = new WriteOptions().setDisableWAL(true);
    private RocksDB db;
    /** Makes checkpoint and transfer directory names unique within this process. */
    private long nameCounter;
    private final String nameEpoch = Long.toHexString(System.currentTimeMillis());

    /**
     * Opens (or creates) the RocksDB in {@code dir}, first finishing or discarding a checkpoint swap a crash
     * interrupted; checkpoints are created under {@code checkpointDir}.
     */
    public RocksKvStore(Path dir, Path checkpointDir) throws IOException {
        this.dir = dir;
        this.checkpointDir = checkpointDir;
        Files.createDirectories(checkpointDir);
        CheckpointSwap.recover(dir);
        Files.createDirectories(dir);
        options = new Options().setCreateIfMissing(true);
        try {
            db = RocksDB.open(options, dir.toString());
        } catch (RocksDBException e) {
            options.close();
            writeOptions.close();
            throw new IOException("cannot open RocksDB in " + dir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean durable() {
        return true;
    }

    @Override
    public byte[] get(byte[] key) {
        try {
            return db.get(key);
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB read failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void scan(byte[] from, byte[] to, Visitor visitor) {
        try (RocksIterator it = db.newIterator()) {
            for (it.seek(from); it.isValid(); it.next()) {
                byte[] key = it.key();
                if (to != null && Arrays.compareUnsigned(key, to) >= 0) {
                    return;
                }
                if (!Arrays.equals(key, APPLIED_KEY) && !visitor.visit(key, it.value())) {
                    return;
                }
            }
        }
    }

    @Override
    public long appliedSlot() {
        byte[] v = get(APPLIED_KEY);
        return v == null ? 0 : ByteBuffer.wrap(v).getLong();
    }

    /** One {@link WriteBatch}: the range deletion, the changes in key order, then the applied slot. */
    @Override
    public void write(StoreBatch batch) {
        if (batch.isEmpty()) {
            return;
        }
        try (WriteBatch out = new WriteBatch()) {
            byte[] from = batch.rangeFrom();
            long slot = batch.appliedSlot();
            if (from != null) {
                byte[] to = batch.rangeTo();
                if (slot < 0 && Arrays.compareUnsigned(from, APPLIED_KEY) <= 0 && Arrays.compareUnsigned(APPLIED_KEY, to) < 0) {
                    slot = appliedSlot(); // A range deletion never takes the store's own slot away.
                }
                out.deleteRange(from, to);
            }
            for (Map.Entry<byte[], byte[]> e : batch.changes().entrySet()) {
                if (e.getValue() == null) {
                    out.delete(e.getKey());
                } else {
                    out.put(e.getKey(), e.getValue());
                }
            }
            if (slot >= 0) {
                out.put(APPLIED_KEY, ByteBuffer.allocate(8).putLong(slot).array());
            }
            db.write(writeOptions, out);
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB write failed at slot " + batch.appliedSlot() + ": " + e.getMessage(), e);
        }
    }

    /** A checkpoint of everything written (the caller writes its staged batch first), fsynced, as a snapshot source. */
    @Override
    public CheckpointSource checkpoint(long slot) {
        Path target = checkpointDir.resolve(uniqueName("checkpoint", slot));
        try (Checkpoint checkpoint = Checkpoint.create(db)) {
            // Flushed first and explicitly (RocksDB's checkpoint flushes by default too): the log is compacted through
            // this slot next, so the database's own durable state must reach it before then.
            flush();
            checkpoint.createCheckpoint(target.toString());
            RocksFiles.syncTree(target);
            RocksFiles.syncDirectory(checkpointDir);
            return new CheckpointSource(target, slot);
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB checkpoint at slot " + slot + " failed: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("RocksDB checkpoint at slot " + slot + " failed: " + e.getMessage(), e);
        }
    }

    /** Receives a peer's checkpoint into {@code incoming-...} under the snapshot directory. */
    @Override
    public CheckpointSink snapshotSink(long slot) {
        return new CheckpointSink(checkpointDir.resolve(uniqueName("incoming", slot)),
                checkpointDir.resolve(uniqueName("checkpoint", slot)), slot);
    }

    private String uniqueName(String kind, long slot) {
        return String.format("%s-%020d-%s-%d", kind, slot, nameEpoch, nameCounter++);
    }

    /** A {@link CheckpointSource} is installed as this database (see the class comment); other sources are not. */
    @Override
    public boolean swapIn(SnapshotSource source) {
        if (!(source instanceof CheckpointSource checkpoint)) {
            return false;
        }
        swapIn(checkpoint.dir());
        return true;
    }

    /** Reads {@code keys} from a {@link CheckpointSource}'s directory, opened read-only; null for other sources. */
    @Override
    public List<byte[]> readCheckpoint(SnapshotSource source, List<byte[]> keys) {
        if (!(source instanceof CheckpointSource checkpoint)) {
            return null;
        }
        try (Options readOptions = new Options(); RocksDB peer = RocksDB.openReadOnly(readOptions, checkpoint.dir().toString())) {
            List<byte[]> out = new ArrayList<>(keys.size());
            for (byte[] key : keys) {
                out.add(peer.get(key));
            }
            return out;
        } catch (RocksDBException e) {
            throw new IllegalStateException("cannot read peer checkpoint " + checkpoint.dir() + ": " + e.getMessage(), e);
        }
    }

    /** Installs checkpoint {@code from} as this database (see the class comment). */
    void swapIn(Path from) {
        try {
            RocksFiles.copyCheckpoint(from, CheckpointSwap.next(dir));
            db.close();
            db = null;
            CheckpointSwap.renameIn(dir);
            db = RocksDB.open(options, dir.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("installing checkpoint " + from + " into " + dir + " failed: " + e.getMessage(), e);
        } catch (RocksDBException e) {
            throw new IllegalStateException("opening installed checkpoint " + dir + " failed: " + e.getMessage(), e);
        }
    }

    /** Whether the database is open (a failed swap-in leaves it closed). */
    @Override
    public boolean isOpen() {
        return db != null;
    }

    /** Persists the memtable (waiting for it): with the WAL off, what was written is durable only once flushed. */
    private void flush() throws RocksDBException {
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush);
        }
    }

    @Override
    public void close() {
        writeOptions.close();
        if (db != null) {
            try {
                flush(); // RocksDB flushes an unlogged memtable on close as well; explicit, so a restart re-applies nothing
            } catch (RocksDBException e) {
                // Nothing is lost: the log still holds every entry above the last flush, which the replica re-applies.
            }
            db.close();
            db = null;
        }
        options.close();
    }
}
