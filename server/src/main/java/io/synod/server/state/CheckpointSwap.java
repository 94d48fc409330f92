package io.synod.server.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The directory renames of {@link RocksKvStateMachine}'s checkpoint swap ({@code <db>.next} in, {@code <db>.old}
 * out) and the recovery of a swap a crash interrupted.
 */
final class CheckpointSwap {
    private CheckpointSwap() {}

    static Path next(Path dir) {
        return dir.resolveSibling(dir.getFileName() + ".next");
    }

    static Path old(Path dir) {
        return dir.resolveSibling(dir.getFileName() + ".old");
    }

    /**
     * A swap renames {@code <db>} to {@code <db>.old}, then the complete, durable {@code <db>.next}
     * to {@code <db>}. A crash between the renames leaves no {@code <db>}: the new one is taken if
     * present, else the old one. Any other leftover is discarded.
     */
    static void recover(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            if (Files.exists(next(dir))) {
                Files.move(next(dir), dir, StandardCopyOption.ATOMIC_MOVE);
            } else if (Files.exists(old(dir))) {
                Files.move(old(dir), dir, StandardCopyOption.ATOMIC_MOVE);
            }
        }
        RocksFiles.deleteRecursively(next(dir));
        RocksFiles.deleteRecursively(old(dir));
    }

    /** With the database closed and {@code <db>.next} complete: {@code <db>} out to {@code <db>.old}, {@code <db>.next} in. */
    static void renameIn(Path dir) throws IOException {
        RocksFiles.deleteRecursively(old(dir));
        Files.move(dir, old(dir), StandardCopyOption.ATOMIC_MOVE);
        Files.move(next(dir), dir, StandardCopyOption.ATOMIC_MOVE);
        RocksFiles.syncDirectory(dir.getParent());
        RocksFiles.deleteRecursively(old(dir));
    }
}
