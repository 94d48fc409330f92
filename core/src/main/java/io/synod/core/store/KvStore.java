package io.synod.core.store;

/**
 * An ordered map of byte keys to byte values with atomic batches: what the key-value state is kept in, as in etcd's
 * backend or Pebble, cut down to what a replica's applied state needs.
 *
 * <ul>
 *   <li><b>Order.</b> Keys compare as unsigned bytes (RocksDB's bytewise order); every scan visits keys in that
 *       order.
 *   <li><b>Atomicity.</b> {@link #write} applies a {@link StoreBatch} whole or not at all, and the batch's applied
 *       slot with it: after a crash the store shows the state of some batch boundary and the slot of that batch, so
 *       what it holds is a prefix of the applied commands and {@link #appliedSlot()} names its end.
 *   <li><b>Bounds.</b> A scan is bounded by the caller: the visitor stops it by returning false, and a range has an
 *       end. Nothing here loads the whole store at once.
 *   <li><b>Reads see written batches only.</b> Staging (reads of a batch not yet written) is the caller's: a state
 *       machine keeps its pending batch and looks there first.
 * </ul>
 *
 * Checkpoints and their swap-in are file operations and belong to a durable store itself (the server's RocksDB
 * store); restoring a snapshot through this interface is one batch that {@link StoreBatch#deleteRange clears} the
 * key space and writes the snapshot's pairs. Not thread-safe: a group's single applying thread is the only caller.
 */
public interface KvStore extends AutoCloseable {
    /** The value under {@code key}, or null. */
    byte[] get(byte[] key);

    /**
     * Visits the pairs with {@code from <= key < to} ({@code to} null: to the end of the key space) in key order,
     * until {@code visitor} returns false. The arrays passed are the visitor's (copies or fresh reads).
     */
    void scan(byte[] from, byte[] to, Visitor visitor);

    /** Visits the pairs whose key starts with {@code prefix}, in key order, until {@code visitor} returns false. */
    default void scanPrefix(byte[] prefix, Visitor visitor) {
        scan(prefix, StoreBatch.prefixEnd(prefix), visitor);
    }

    /** The applied slot of the last batch written with one (0: none yet). */
    long appliedSlot();

    /** Applies {@code batch} atomically, with its applied slot (if it carries one). */
    void write(StoreBatch batch);

    /**
     * Whether what is written survives the process: a durable store's machine keeps its applied slot, client
     * sessions and coding there and starts from them after a restart; an in-memory one leaves all of that to the
     * replica's snapshots.
     */
    default boolean durable() {
        return false;
    }

    /** Whether the store can be read and written (false once closed, or after a failed swap-in). */
    boolean isOpen();

    /** Releases the store (a durable store closes its files); later calls fail. */
    @Override
    void close();

    /** A scan's callback: returns whether to go on. */
    @FunctionalInterface
    interface Visitor {
        boolean visit(byte[] key, byte[] value);
    }
}
