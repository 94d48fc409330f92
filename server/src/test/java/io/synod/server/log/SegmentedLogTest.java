package io.synod.server.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.CodedValue;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.Snapshot;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SegmentedLogTest {
    @TempDir
    Path dir;

    static Entry entry(long slot) {
        return new Entry(slot, new Ballot(3, 1), new Command(5, slot, ("value-" + slot).getBytes()));
    }

    private List<Path> segments() throws Exception {
        try (Stream<Path> s = Files.list(dir.resolve("log"))) {
            return s.filter(p -> p.toString().endsWith(".log")).sorted().toList();
        }
    }

    @Test
    void entriesSurviveReopenAndLaterWritesWin() throws Exception {
        try (SegmentedLog log = SegmentedLog.open(dir.resolve("log"), 4096)) {
            for (long s = 1; s <= 100; s++) {
                log.append(entry(s));
            }
            log.append(new Entry(7, new Ballot(4, 2), Command.NOOP));
            log.sync();
            assertTrue(log.segmentCount() > 1, "rolled into several preallocated segments");
        }
        try (SegmentedLog log = SegmentedLog.open(dir.resolve("log"), 4096)) {
            LogRecovery r = log.recovery();
            assertEquals(100, r.entries().size());
            assertEquals(new Ballot(4, 2), r.entries().get(7L).ballot());
            assertEquals(entry(100), r.entries().get(100L));
            assertTrue(r.tornTails().isEmpty());
            assertFalse(r.corrupted());
        }
        for (Path p : segments()) {
            assertEquals(4096, Files.size(p), "segments are preallocated to their full size");
        }
    }

    @Test
    void aBatchAppendedInOneWriteIsTheSameOnDiskAsEntryByEntry() throws Exception {
        // Batches that straddle segment boundaries, one record larger than a whole segment, mixed sizes.
        List<Entry> batch1 = new java.util.ArrayList<>();
        for (long s = 1; s <= 60; s++) {
            batch1.add(entry(s));
        }
        Entry big = new Entry(61, new Ballot(3, 1), new Command(5, 61, new byte[6000]));
        List<Entry> batch2 = new java.util.ArrayList<>(List.of(big));
        for (long s = 62; s <= 140; s++) {
            batch2.add(entry(s));
        }
        Path a = dir.resolve("batched");
        Path b = dir.resolve("single");
        try (SegmentedLog batched = SegmentedLog.open(a, 4096); SegmentedLog single = SegmentedLog.open(b, 4096)) {
            for (List<Entry> batch : List.of(batch1, batch2, List.of(entry(141)), List.<Entry>of())) {
                batched.appendAll(batch);
                batched.sync();
                for (Entry e : batch) {
                    single.append(e);
                }
                single.sync();
            }
            assertEquals(single.appendedBytes(), batched.appendedBytes());
            assertEquals(single.segmentCount(), batched.segmentCount());
            assertTrue(batched.segmentCount() > 3, "the batches rolled over several segments");
        }
        try (SegmentedLog batched = SegmentedLog.open(a, 4096); SegmentedLog single = SegmentedLog.open(b, 4096)) {
            assertEquals(141, batched.recovery().entries().size());
            assertEquals(single.recovery().entries(), batched.recovery().entries());
            assertEquals(big, batched.recovery().entries().get(61L));
            assertFalse(batched.recovery().corrupted());
            assertTrue(batched.recovery().tornTails().isEmpty());
        }
        try (Stream<Path> sa = Files.list(a); Stream<Path> sb = Files.list(b)) {
            List<Path> fa = sa.sorted().toList();
            List<Path> fb = sb.sorted().toList();
            assertEquals(fb.stream().map(Path::getFileName).toList(), fa.stream().map(Path::getFileName).toList());
            for (int i = 0; i < fa.size(); i++) {
                assertTrue(java.util.Arrays.equals(Files.readAllBytes(fb.get(i)), Files.readAllBytes(fa.get(i))),
                        "segment " + fa.get(i).getFileName() + " is byte for byte the same");
            }
        }
    }

    @Test
    void codedEntriesSurviveReopenWithTheirShardAndCoding() throws Exception {
        // RS-Paxos (Mu et al. 2014, section 4): an acceptor persists its shard and the entry's coding.
        Entry shard = new Entry(1, new Ballot(3, 1), new Command(5, 1, new byte[0]),
                new CodedValue(3, 5, 4096, 77, new byte[1400]));
        Entry stub = new Entry(2, new Ballot(3, 1), new Command(5, 2, new byte[0]), new CodedValue(3, 5, 4096, 78, null));
        Entry full = new Entry(3, new Ballot(3, 1), new Command(5, 3, new byte[4096]), new CodedValue(3, 5, 4096, 79, null));
        // Deferred follower rebuild: the entry's deferral header is persisted with its shard.
        Entry headed = new Entry(5, new Ballot(3, 1), new Command(5, 4, new byte[0]),
                new CodedValue(3, 5, 4096, 80, new byte[1400], new byte[] {1, 0, 1, 'k', 0, 0, 15, (byte) 0xf8}));
        try (SegmentedLog log = SegmentedLog.open(dir.resolve("log"), 8192)) {
            for (Entry e : List.of(shard, stub, full, entry(4), headed)) {
                log.append(e);
            }
            log.sync();
        }
        try (SegmentedLog log = SegmentedLog.open(dir.resolve("log"), 8192)) {
            LogRecovery r = log.recovery();
            assertEquals(5, r.entries().size());
            assertEquals(headed.coded(), r.entries().get(5L).coded());
            assertArrayEquals(headed.coded().header(), r.entries().get(5L).coded().header());
            assertNull(r.entries().get(1L).coded().header());
            assertEquals(shard, r.entries().get(1L));
            assertEquals(shard.coded(), r.entries().get(1L).coded());
            assertEquals(stub.coded(), r.entries().get(2L).coded());
            assertTrue(r.entries().get(3L).isComplete());
            assertEquals(full.coded(), r.entries().get(3L).coded());
            assertNull(r.entries().get(4L).coded());
            assertFalse(r.corrupted());
        }
    }

    @Test
    void compactionDeletesWholeSegmentsBelowTheSlot() throws Exception {
        try (SegmentedLog log = SegmentedLog.open(dir.resolve("log"), 4096)) {
            for (long s = 1; s <= 200; s++) {
                log.append(entry(s));
            }
            log.appendCompaction(150);
            log.sync();
            int before = log.segmentCount();
            log.deleteThrough(150);
            assertTrue(log.segmentCount() < before);
        }
        try (SegmentedLog log = SegmentedLog.open(dir.resolve("log"), 4096)) {
            LogRecovery r = log.recovery();
            assertEquals(150, r.compactedThrough());
            assertEquals(151L, r.entries().firstKey());
            assertEquals(200L, r.entries().lastKey());
        }
    }

    @Test
    void aTornTailIsTruncatedAndLogged() throws Exception {
        long end;
        try (SegmentedLog log = SegmentedLog.open(dir.resolve("log"), 1 << 16)) {
            for (long s = 1; s <= 10; s++) {
                log.append(entry(s));
            }
            log.sync();
        }
        Path seg = segments().get(0);
        byte[] bytes = Files.readAllBytes(seg);
        end = 0;
        while (end + 8 <= bytes.length && (bytes[(int) end] | bytes[(int) end + 1] | bytes[(int) end + 2] | bytes[(int) end + 3]) != 0) {
            int len = java.nio.ByteBuffer.wrap(bytes).getInt((int) end);
            end += (8 + len + 7) & -8;
        }
        // A record cut short by a crash: its length and part of its body made it to disk.
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
            f.seek(end);
            f.writeInt(60);
            f.writeInt(0x12345678);
            f.write(new byte[] {1, 2, 3, 4, 5});
        }
        try (SegmentedLog log = SegmentedLog.open(dir.resolve("log"), 1 << 16)) {
            LogRecovery r = log.recovery();
            assertEquals(10, r.entries().size());
            assertEquals(1, r.tornTails().size(), r.tornTails().toString());
            assertFalse(r.corrupted());
            log.append(entry(11));
            log.sync();
        }
        try (SegmentedLog log = SegmentedLog.open(dir.resolve("log"), 1 << 16)) {
            assertEquals(11, log.recovery().entries().size());
            assertTrue(log.recovery().tornTails().isEmpty(), "the torn record was zeroed, not found again");
        }
    }

    @Test
    void aCorruptRecordMidLogIsReportedNeverSkippedSilently() throws Exception {
        try (SegmentedLog log = SegmentedLog.open(dir.resolve("log"), 1 << 16)) {
            for (long s = 1; s <= 20; s++) {
                log.append(entry(s));
            }
            log.sync();
        }
        Path seg = segments().get(0);
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
            f.seek(300); // Inside an early record's body.
            int b = f.read();
            f.seek(300);
            f.write(b ^ 0x40);
        }
        try (SegmentedLog log = SegmentedLog.open(dir.resolve("log"), 1 << 16)) {
            LogRecovery r = log.recovery();
            assertTrue(r.corrupted(), "mid-log corruption is detected");
            assertEquals(1, r.corruptions().size(), r.corruptions().toString());
            assertEquals(19, r.entries().size(), "the damaged record is missing, the records after it are kept");
            assertTrue(r.tornTails().isEmpty());
        }
        try (SegmentedLog log = SegmentedLog.open(dir.resolve("log"), 1 << 16)) {
            assertFalse(log.recovery().corrupted(), "valid records were rewritten into fresh segments");
            assertEquals(19, log.recovery().entries().size());
        }
    }

    @Test
    void groupStorageEntersRepairAfterCorruptionAndKeepsItAcrossRestarts() throws Exception {
        try (GroupStorage s = GroupStorage.open(dir, 1 << 16)) {
            assertNull(s.repairAbove());
            List<Entry> entries = new java.util.ArrayList<>();
            for (long slot = 1; slot <= 20; slot++) {
                entries.add(entry(slot));
            }
            s.persist(new Ready(new Ballot(3, 1), entries, null, 0, List.of(), List.of(), List.of(), false));
        }
        try (RandomAccessFile f = new RandomAccessFile(segments().get(0).toFile(), "rw")) {
            f.seek(200);
            f.write(0xFF);
            f.write(0xFF);
        }
        try (GroupStorage s = GroupStorage.open(dir, 1 << 16)) {
            assertEquals(new Ballot(3, 1), s.repairAbove(), "repair: must follow a leader above the old promise");
            assertEquals(20, s.repairThroughSlot());
        }
        try (GroupStorage s = GroupStorage.open(dir, 1 << 16)) {
            assertNotNull(s.repairAbove(), "a restart mid-repair stays in repair (the marker is durable)");
            s.finishRepair();
        }
        try (GroupStorage s = GroupStorage.open(dir, 1 << 16)) {
            assertNull(s.repairAbove());
            assertEquals(new Ballot(3, 1), s.durableState().promised());
        }
    }

    @Test
    void snapshotsCompactTheLogAndAreWhatARestartStartsFrom() throws Exception {
        try (GroupStorage s = GroupStorage.open(dir, 4096)) {
            List<Entry> entries = new java.util.ArrayList<>();
            for (long slot = 1; slot <= 100; slot++) {
                entries.add(entry(slot));
            }
            s.persist(new Ready(new Ballot(3, 1), entries, null, 0, List.of(), List.of(), List.of(), false));
            s.persist(new Ready(null, List.of(), new Snapshot(90, new byte[] {1}, new byte[0]), 80, List.of(), List.of(),
                    List.of(), false));
            s.compactThrough(80);
        }
        try (GroupStorage s = GroupStorage.open(dir, 4096)) {
            assertEquals(90, s.durableState().snapshot().lastIncludedSlot());
            assertEquals(91L, s.durableState().entries().get(0).slot());
            assertNull(s.repairAbove());
        }
    }

    @Test
    void promiseCopiesSurviveOneDamagedCopyButNotTwo() throws Exception {
        Path file = dir.resolve("promise");
        try (PromiseStore p = PromiseStore.open(file)) {
            p.write(new Ballot(1, 0));
            p.write(new Ballot(2, 1));
        }
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(0); // Copy 0 holds the newer promise (counter 2).
            f.write(0);
            f.write(0);
        }
        try (PromiseStore p = PromiseStore.open(file)) {
            assertEquals(new Ballot(1, 0), p.promised(), "the older copy still holds a promise");
        }
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(32);
            f.write(0);
        }
        assertThrows(CorruptStateException.class, () -> PromiseStore.open(file));
    }

    @Test
    void appendingAfterTheFileIsGoneIsAStorageFailure() throws Exception {
        SegmentedLog log = SegmentedLog.open(dir.resolve("log"), 4096);
        log.close();
        assertThrows(StorageFailure.class, () -> log.append(entry(1)));
    }
}
