package io.synod.server.log;

import io.synod.core.paxos.Snapshot;
import io.synod.core.paxos.SnapshotSource;
import io.synod.server.state.CheckpointSource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Durable snapshots of one group. Each is a file {@code snapshot-<slot>.snap}, written to a
 * temporary file, fsynced and renamed, in one of two forms:
 * <ul>
 *   <li>{@code [magic "SYNC"][crc32c][slot u64][sessions length u32][sessions][path length u16][path]}:
 *       the state part is the RocksDB checkpoint directory at {@code path} (relative to this
 *       directory, normally {@code checkpoint-<slot>-...}), which holds data, applied slot and
 *       sessions; the file adds core's session table;</li>
 *   <li>{@code [magic "SYNS"][crc32c][Snapshot.encode()]}: a state machine without checkpoints
 *       (its whole state inline).</li>
 * </ul>
 * The newest two are kept, so a damaged newest one still leaves an older one (the log hole that may
 * leave is repaired from peers). Checkpoint directories no kept file names are deleted once they are
 * older than the oldest kept snapshot, and at open; so are transfers ({@code incoming-*}) a crash
 * left behind.
 */
public final class SnapshotStore {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotStore.class);
    private static final int MAGIC = 0x53594E53; // "SYNS"
    private static final int CHECKPOINT_MAGIC = 0x53594E43; // "SYNC"
    private static final int KEEP = 2;
    private static final Pattern CHECKPOINT_DIR = Pattern.compile("(checkpoint|incoming)-(\\d{20})-.*");

    private final Path dir;

    public SnapshotStore(Path dir) throws IOException {
        this.dir = dir;
        Files.createDirectories(dir);
    }

    public Path dir() {
        return dir;
    }

    public record Loaded(Snapshot snapshot, List<String> problems) {}

    public void write(Snapshot snapshot) {
        byte[] b = encode(snapshot);
        ByteBuffer out = ByteBuffer.allocate(8 + b.length);
        out.putInt(snapshot.stateMachine() instanceof CheckpointSource ? CHECKPOINT_MAGIC : MAGIC)
                .putInt(Crc.of(b, 0, b.length)).put(b);
        try {
            DurableFiles.writeAtomically(dir.resolve(String.format("snapshot-%020d.snap", snapshot.lastIncludedSlot())),
                    out.array());
            List<Path> all = list();
            for (int i = 0; i < all.size() - KEEP; i++) {
                Files.deleteIfExists(all.get(i));
            }
            List<Path> kept = list();
            long oldestKept = kept.isEmpty() ? 0 : slotOf(kept.get(0));
            deleteCheckpointsExcept(referenced(kept), oldestKept, false);
        } catch (IOException e) {
            throw new StorageFailure("writing snapshot at slot " + snapshot.lastIncludedSlot() + " failed: " + e, e);
        }
    }

    private byte[] encode(Snapshot snapshot) {
        if (!(snapshot.stateMachine() instanceof CheckpointSource c)) {
            return snapshot.encode();
        }
        byte[] path = dir.relativize(c.dir()).toString().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + 4 + snapshot.sessions().length + 2 + path.length).putLong(snapshot.lastIncludedSlot())
                .putInt(snapshot.sessions().length).put(snapshot.sessions()).putShort((short) path.length).put(path).array();
    }

    /** The newest snapshot that checks out (or {@link Snapshot#EMPTY}), and what was wrong with newer ones. */
    public Loaded load() throws IOException {
        List<Path> all = list();
        List<String> problems = new ArrayList<>();
        Loaded loaded = null;
        for (int i = all.size() - 1; i >= 0 && loaded == null; i--) {
            Path p = all.get(i);
            byte[] bytes = Files.readAllBytes(p);
            String problem;
            int magic = bytes.length < 8 ? 0 : ByteBuffer.wrap(bytes).getInt(0);
            if (magic != MAGIC && magic != CHECKPOINT_MAGIC) {
                problem = "bad header";
            } else if (ByteBuffer.wrap(bytes).getInt(4) != Crc.of(bytes, 8, bytes.length - 8)) {
                problem = "CRC32C mismatch";
            } else {
                try {
                    byte[] body = Arrays.copyOfRange(bytes, 8, bytes.length);
                    loaded = new Loaded(magic == MAGIC ? Snapshot.decode(body) : decodeCheckpoint(body), problems);
                    continue;
                } catch (IllegalArgumentException e) {
                    problem = e.getMessage();
                }
            }
            LOG.error("snapshot {} is corrupt ({}); trying an older one", p, problem);
            problems.add(p.getFileName() + ": " + problem);
        }
        // Transfers and checkpoints no snapshot file names are leftovers of a crash.
        deleteCheckpointsExcept(referenced(list()), Long.MAX_VALUE, true);
        return loaded != null ? loaded : new Loaded(Snapshot.EMPTY, problems);
    }

    private Snapshot decodeCheckpoint(byte[] body) throws IOException {
        ByteBuffer in = ByteBuffer.wrap(body);
        if (in.remaining() < 12) {
            throw new IllegalArgumentException("checkpoint snapshot record truncated");
        }
        long slot = in.getLong();
        int sessionsLength = in.getInt();
        if (sessionsLength < 0 || sessionsLength > in.remaining() - 2) {
            throw new IllegalArgumentException("checkpoint snapshot session length " + sessionsLength + " is invalid");
        }
        byte[] sessions = new byte[sessionsLength];
        in.get(sessions);
        int pathLength = in.getShort() & 0xFFFF;
        if (pathLength != in.remaining()) {
            throw new IllegalArgumentException("checkpoint snapshot path length " + pathLength + " does not match the record");
        }
        byte[] path = new byte[pathLength];
        in.get(path);
        Path checkpoint = dir.resolve(new String(path, StandardCharsets.UTF_8));
        if (!Files.isDirectory(checkpoint)) {
            throw new IllegalArgumentException("checkpoint directory " + checkpoint + " is missing");
        }
        SnapshotSource source = new CheckpointSource(checkpoint, slot);
        return new Snapshot(slot, source, sessions);
    }

    /** Checkpoint directories named by the snapshot files {@code files}. */
    private Set<Path> referenced(List<Path> files) throws IOException {
        Set<Path> out = new HashSet<>();
        for (Path p : files) {
            try {
                byte[] bytes = Files.readAllBytes(p);
                if (bytes.length >= 8 && ByteBuffer.wrap(bytes).getInt(0) == CHECKPOINT_MAGIC
                        && ByteBuffer.wrap(bytes).getInt(4) == Crc.of(bytes, 8, bytes.length - 8)) {
                    ByteBuffer in = ByteBuffer.wrap(bytes, 8, bytes.length - 8);
                    in.getLong();
                    int sessionsLength = in.getInt();
                    in.position(in.position() + sessionsLength);
                    byte[] path = new byte[in.getShort() & 0xFFFF];
                    in.get(path);
                    out.add(dir.resolve(new String(path, StandardCharsets.UTF_8)).normalize());
                }
            } catch (RuntimeException e) {
                // A record that does not parse names nothing.
            }
        }
        return out;
    }

    /**
     * Deletes checkpoint directories of this store not in {@code keep} whose slot is below
     * {@code belowSlot}; with {@code transfers}, also every unfinished transfer.
     */
    private void deleteCheckpointsExcept(Set<Path> keep, long belowSlot, boolean transfers) throws IOException {
        List<Path> dirs;
        try (Stream<Path> s = Files.list(dir)) {
            dirs = s.filter(Files::isDirectory).toList();
        }
        for (Path d : dirs) {
            Matcher m = CHECKPOINT_DIR.matcher(d.getFileName().toString());
            if (!m.matches() || keep.contains(d.normalize())) {
                continue;
            }
            boolean transfer = m.group(1).equals("incoming");
            if (transfer ? transfers : Long.parseLong(m.group(2)) < belowSlot) {
                deleteTree(d);
            }
        }
    }

    private static void deleteTree(Path d) throws IOException {
        try (Stream<Path> s = Files.walk(d)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static long slotOf(Path snapshotFile) {
        String n = snapshotFile.getFileName().toString();
        return Long.parseLong(n.substring("snapshot-".length(), n.length() - ".snap".length()));
    }

    private List<Path> list() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().matches("snapshot-\\d{20}\\.snap")).sorted().toList();
        }
    }
}
