package io.synod.server.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.Snapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node's groups over one node log (or log shards); a data directory of the previous layout (a log per group) converts on open. */
class NodeStorageTest {
    @TempDir
    Path data;

    static Entry entry(int group, long slot) {
        return new Entry(slot, new Ballot(2, 1), new Command(7, slot, ("g" + group + "-" + slot + "x".repeat(150)).getBytes()));
    }

    private static Ready ready(List<Entry> entries) {
        return new Ready(null, entries, null, 0, List.of(), List.of(), List.of(), false);
    }

    /** Writes the previous layout with the previous code: group g has slots 1..40, group 1 compacted through 10. */
    private void writeOldLayout(int groups) throws Exception {
        for (int g = 0; g < groups; g++) {
            Path groupDir = data.resolve("group-" + g);
            try (SegmentedLog log = SegmentedLog.open(groupDir.resolve("log"), 4096);
                    PromiseStore promise = PromiseStore.open(Files.createDirectories(groupDir).resolve("promise"))) {
                promise.write(new Ballot(2, 1));
                for (long s = 1; s <= 40; s++) {
                    log.append(entry(g, s));
                }
                if (g == 1) {
                    new SnapshotStore(groupDir.resolve("snapshot")).write(new Snapshot(10, new byte[] {1}, new byte[0]));
                    log.appendCompaction(10);
                    log.deleteThrough(10);
                }
                log.sync();
                assertTrue(log.segmentCount() > 1, "the old log rolled over several segments");
            }
        }
    }

    private static List<Path> oldSegments(Path groupDir) throws Exception {
        Path logDir = groupDir.resolve("log");
        if (!Files.isDirectory(logDir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(logDir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("segment-")).sorted().toList();
        }
    }

    private void assertConverted(NodeStorage storage, int groups) throws Exception {
        for (int g = 0; g < groups; g++) {
            GroupStorage s = storage.group(g);
            List<Entry> entries = s.durableState().entries();
            long first = g == 1 ? 11 : 1;
            assertEquals(41 - first, entries.size(), "group " + g);
            for (Entry e : entries) {
                assertEquals(entry(g, e.slot()), e, "group " + g + " slot " + e.slot());
            }
            assertEquals(first, entries.get(0).slot());
            assertEquals(new Ballot(2, 1), s.durableState().promised());
            assertTrue(s.corruptions().isEmpty(), s.corruptions().toString());
            assertNull(s.repairAbove());
            assertTrue(oldSegments(data.resolve("group-" + g)).isEmpty(), "the old segments are removed");
        }
    }

    private static void close(NodeStorage storage, int groups) throws Exception {
        for (int g = 0; g < groups; g++) {
            storage.group(g).close();
        }
        storage.close();
    }

    @Test
    void aDataDirectoryOfThePreviousLayoutConvertsOnOpenAndStaysConverted() throws Exception {
        writeOldLayout(3);
        NodeStorage storage = NodeStorage.open(data, 4096, 3);
        assertConverted(storage, 3);
        assertFalse(Files.exists(data.resolve("group-0").resolve("log")), "the emptied per-group log directory is gone");
        close(storage, 3);
        storage = NodeStorage.open(data, 4096, 3);
        assertConverted(storage, 3);
        close(storage, 3);
    }

    @Test
    void aConversionCutShortByACrashIsRedoneOrFinishedOnTheNextStart() throws Exception {
        writeOldLayout(2);
        Path saved = Files.createDirectories(data.resolveSibling(data.getFileName() + "-saved"));
        for (int g = 0; g < 2; g++) {
            for (Path p : oldSegments(data.resolve("group-" + g))) {
                Files.copy(p, saved.resolve(g + "-" + p.getFileName()));
            }
        }
        close(NodeStorage.open(data, 4096, 2), 2);
        // A crash after the records were synced into the node log, before the conversion was marked done:
        // the old segments are all still there, and the next start converts them again.
        restore(saved, 0);
        restore(saved, 1);
        NodeStorage storage = NodeStorage.open(data, 4096, 2);
        assertConverted(storage, 2);
        close(storage, 2);
        // A crash after the CONVERTED marker, during the deletion: what is left of the old log is not read again,
        // only removed (here it holds a different slot 5 on purpose: reading it would replace the converted one).
        try (SegmentedLog stale = SegmentedLog.open(data.resolve("group-0").resolve("log"), 4096)) {
            stale.append(new Entry(5, new Ballot(9, 2), Command.NOOP));
            stale.sync();
        }
        Files.write(data.resolve("group-0").resolve("log").resolve(LegacyLogConversion.DONE_MARKER), new byte[0]);
        storage = NodeStorage.open(data, 4096, 2);
        assertConverted(storage, 2);
        assertFalse(Files.exists(data.resolve("group-0").resolve("log")));
        close(storage, 2);
    }

    private void restore(Path saved, int group) throws Exception {
        Path logDir = Files.createDirectories(data.resolve("group-" + group).resolve("log"));
        try (Stream<Path> s = Files.list(saved)) {
            for (Path p : s.filter(p -> p.getFileName().toString().startsWith(group + "-")).toList()) {
                Files.copy(p, logDir.resolve(p.getFileName().toString().substring(2)), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    @Test
    void groupsPersistingAtOnceShareFsyncsAndLoseNothing() throws Exception {
        int groups = 4;
        int readys = 300;
        NodeStorage storage = NodeStorage.open(data, 1 << 16, groups);
        ExecutorService pool = Executors.newFixedThreadPool(groups);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int g = 0; g < groups; g++) {
                GroupStorage s = storage.group(g);
                int group = g;
                done.add(pool.submit(() -> {
                    for (long slot = 1; slot <= readys; slot++) {
                        s.persist(ready(List.of(entry(group, slot))));
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        long fsyncs = storage.fsyncs();
        assertTrue(fsyncs <= (long) groups * readys, "at most one fsync per persist: " + fsyncs);
        System.out.printf("%d groups x %d persists: %d node log fsyncs%n", groups, readys, fsyncs);
        close(storage, groups);
        storage = NodeStorage.open(data, 1 << 16, groups);
        for (int g = 0; g < groups; g++) {
            List<Entry> entries = storage.group(g).durableState().entries();
            assertEquals(readys, entries.size(), "group " + g);
            for (Entry e : entries) {
                assertEquals(entry(g, e.slot()), e);
            }
        }
        close(storage, groups);
    }

    /**
     * Log shards: with two, the even groups' records go to {@code log/} and the odd ones' to {@code log-1/}; after a
     * restart every group recovers exactly what it persisted, and a crash-style reopen (no clean close of the groups)
     * loses nothing that was synced.
     */
    @Test
    void aNodeWithTwoLogShardsRestartsAndRecoversEveryGroup() throws Exception {
        int groups = 4;
        NodeStorage storage = NodeStorage.open(data, 1 << 16, groups, 2);
        for (long slot = 1; slot <= 30; slot++) {
            for (int g = 0; g < groups; g++) {
                storage.group(g).append(ready(List.of(entry(g, slot))));
            }
            for (int g = 0; g < groups; g++) {
                storage.group(g).sync();
            }
        }
        assertEquals(2, storage.shards().size());
        assertTrue(storage.shards().get(0).fsyncs() > 0 && storage.shards().get(1).fsyncs() > 0, "both shards were synced");
        storage.close(); // the group views are dropped without closing them, as after a crash
        assertTrue(Files.isDirectory(data.resolve("log")) && Files.isDirectory(data.resolve("log-1")));
        storage = NodeStorage.open(data, 1 << 16, groups, 2);
        for (int g = 0; g < groups; g++) {
            List<Entry> entries = storage.group(g).durableState().entries();
            assertEquals(30, entries.size(), "group " + g);
            for (Entry e : entries) {
                assertEquals(entry(g, e.slot()), e);
            }
            assertEquals(Math.floorMod(g, 2), storage.shards().indexOf(storage.group(g).log()), "group " + g + "'s shard");
        }
        close(storage, groups);
    }

    /** The shard count of a data directory is fixed: fewer or more shards than it was created with is refused, in one line. */
    @Test
    void aChangedShardCountIsRefusedNamingTheShardCountToUse() throws Exception {
        NodeStorage storage = NodeStorage.open(data, 1 << 16, 4, 2);
        for (int g = 0; g < 4; g++) {
            storage.group(g).persist(ready(List.of(entry(g, 1))));
        }
        close(storage, 4);
        IOException fewer = assertThrows(IOException.class,
                () -> NodeStorage.open(data, 1 << 16, 4, 1));
        assertTrue(fewer.getMessage().contains("log.shards >= 2") && !fewer.getMessage().contains("\n"), fewer.getMessage());
        IOException more = assertThrows(IOException.class,
                () -> NodeStorage.open(data, 1 << 16, 4, 3));
        assertTrue(more.getMessage().contains("holds records of group") && more.getMessage().contains("log.shards=3"),
                more.getMessage());
        // Refused without damage: the directory still opens with its own count, every record intact.
        storage = NodeStorage.open(data, 1 << 16, 4, 2);
        for (int g = 0; g < 4; g++) {
            assertEquals(List.of(entry(g, 1)), storage.group(g).durableState().entries());
        }
        close(storage, 4);
        assertThrows(IllegalArgumentException.class, () -> NodeStorage.open(data, 1 << 16, 4, 5));
    }
}
