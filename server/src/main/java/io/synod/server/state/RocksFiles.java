package io.synod.server.state;

import io.synod.server.log.DurableFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Directory helpers for RocksDB checkpoints: recursive delete, durable copy with hard links. */
final class RocksFiles {
    private RocksFiles() {}

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    static void syncDirectory(Path dir) throws IOException {
        DurableFiles.syncDirectory(dir);
    }

    /** fsyncs every regular file of {@code dir} and the directory itself. */
    static void syncTree(Path dir) throws IOException {
        for (Path f : files(dir)) {
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
        }
        syncDirectory(dir);
    }

    /**
     * Makes {@code to} a durable copy of checkpoint {@code from}: SST files (immutable in RocksDB) are
     * hard-linked, everything else (MANIFEST, CURRENT, OPTIONS, logs, which an opened RocksDB may
     * write to) is copied.
     */
    static void copyCheckpoint(Path from, Path to) throws IOException {
        deleteRecursively(to);
        Files.createDirectories(to);
        for (Path f : files(from)) {
            Path target = to.resolve(f.getFileName());
            boolean linked = false;
            if (f.getFileName().toString().endsWith(".sst")) {
                try {
                    Files.createLink(target, f);
                    linked = true;
                } catch (IOException | UnsupportedOperationException e) {
                    linked = false; // Another file system: copy instead.
                }
            }
            if (!linked) {
                Files.copy(f, target);
            }
        }
        syncTree(to);
    }

    static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isRegularFile).sorted().toList();
        }
    }
}
