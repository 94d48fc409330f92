package io.synod.server.state;

import io.synod.core.kv.KvStateMachine;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Core's key-value machine ({@link KvStateMachine}: every command's meaning, sessions, deferred values, the
 * snapshot format) over the group's RocksDB ({@link RocksKvStore}: the database, its batches, the applied slot,
 * checkpoints and their swap-in), as the durable source of the group's applied state. This class only opens the
 * store; the group loop calls {@link #commitApplied()} after each Ready pass.
 */
public final class RocksKvStateMachine extends KvStateMachine {
    /** A machine whose checkpoints go to {@code <dir>-snapshots} (tests; a node passes its group's snapshot directory). */
    public RocksKvStateMachine(Path dir) throws IOException {
        this(dir, dir.resolveSibling(dir.getFileName() + "-snapshots"));
    }

    /**
     * Opens (or creates) the RocksDB in {@code dir}, first finishing or discarding a checkpoint swap a crash
     * interrupted; checkpoints are created under {@code checkpointDir}.
     */
    public RocksKvStateMachine(Path dir, Path checkpointDir) throws IOException {
        super(new RocksKvStore(dir, checkpointDir), false);
    }

    /** Closes RocksDB without writing what is staged: what a process death between two batches leaves (tests). */
    @Override
    protected void closeWithoutWriting() {
        super.closeWithoutWriting();
    }
}
