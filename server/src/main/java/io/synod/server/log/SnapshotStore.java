package io.synod.server.log;

import io.synod.core.paxos.Snapshot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Durable snapshots of one group, {@code snapshot-<slot>.snap}: {@code [magic][crc32c][Snapshot.encode()]}, each
 * written to a temporary file, fsynced and renamed. The newest two are kept, so a damaged newest
 * one still leaves an older one (the log hole that may leave is repaired from peers).
 */
public final class SnapshotStore {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotStore.class);
    private static final int MAGIC = 0x53594E53; // "SYNS"
    private static final int KEEP = 2;

    private final Path dir;

    public SnapshotStore(Path dir) throws IOException {
        this.dir = dir;
        Files.createDirectories(dir);
    }

    public record Loaded(Snapshot snapshot, List<String> problems) {}

    public void write(Snapshot snapshot) {
        byte[] b = snapshot.encode();
        ByteBuffer out = ByteBuffer.allocate(8 + b.length);
        out.putInt(MAGIC).putInt(Crc.of(b, 0, b.length)).put(b);
        try {
            DurableFiles.writeAtomically(dir.resolve(String.format("snapshot-%020d.snap", snapshot.lastIncludedSlot())),
                    out.array());
            List<Path> all = list();
            for (int i = 0; i < all.size() - KEEP; i++) {
                Files.deleteIfExists(all.get(i));
            }
        } catch (IOException e) {
            throw new StorageFailure("writing snapshot at slot " + snapshot.lastIncludedSlot() + " failed: " + e, e);
        }
    }

    /** The newest snapshot that checks out (or {@link Snapshot#EMPTY}), and what was wrong with newer ones. */
    public Loaded load() throws IOException {
        List<Path> all = list();
        List<String> problems = new ArrayList<>();
        for (int i = all.size() - 1; i >= 0; i--) {
            Path p = all.get(i);
            byte[] bytes = Files.readAllBytes(p);
            String problem = null;
            if (bytes.length < 8 || ByteBuffer.wrap(bytes).getInt(0) != MAGIC) {
                problem = "bad header";
            } else if (ByteBuffer.wrap(bytes).getInt(4) != Crc.of(bytes, 8, bytes.length - 8)) {
                problem = "CRC32C mismatch";
            } else {
                try {
                    return new Loaded(Snapshot.decode(java.util.Arrays.copyOfRange(bytes, 8, bytes.length)), problems);
                } catch (IllegalArgumentException e) {
                    problem = e.getMessage();
                }
            }
            LOG.error("snapshot {} is corrupt ({}); trying an older one", p, problem);
            problems.add(p.getFileName() + ": " + problem);
        }
        return new Loaded(Snapshot.EMPTY, problems);
    }

    private List<Path> list() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().matches("snapshot-\\d{20}\\.snap")).sorted().toList();
        }
    }
}
