package io.synod.core.store;

import io.synod.core.paxos.SnapshotSink;
import io.synod.core.paxos.SnapshotSource;
import java.util.List;

/**
 * A durable {@link KvStore} whose snapshots are file checkpoints rather than bytes (the server's RocksDB store): a
 * checkpoint is made, shipped, received and swapped in as a whole, never read into memory. The key-value machine
 * asks for these instead of serializing its pairs; a source that is not one of the store's checkpoints (snapshot
 * bytes) is still read through the machine's snapshot format.
 */
public interface CheckpointStore extends KvStore {
    /** A checkpoint of everything written (the caller writes its pending batch first) at applied slot {@code slot}. */
    SnapshotSource checkpoint(long slot);

    /** Receives a peer's checkpoint for slot {@code slot}. */
    SnapshotSink snapshotSink(long slot);

    /**
     * Installs {@code source} as the store's whole content if it is one of this kind of store's checkpoints, and says
     * whether it was (false: the caller restores the source as snapshot bytes).
     */
    boolean swapIn(SnapshotSource source);

    /**
     * The values under {@code keys} (null where absent) in {@code source} if it is one of this kind of store's
     * checkpoints, read without installing it; null if it is not one.
     */
    List<byte[]> readCheckpoint(SnapshotSource source, List<byte[]> keys);
}
