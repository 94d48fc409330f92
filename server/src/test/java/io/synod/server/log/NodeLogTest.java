package io.synod.server.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node log shared by a node's groups: recovery per group, one fsync for many groups, damage charged to its group. */
class NodeLogTest {
    @TempDir
    Path dir;

    static Entry entry(long slot, long epoch, int size) {
        byte[] value = new byte[size];
        value[0] = (byte) slot;
        return new Entry(slot, new Ballot(epoch, 1), new Command(5, slot, value));
    }

    private List<Path> segments() throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("nodelog-")).sorted().toList();
        }
    }

    /** Offsets of the records in a segment, then the end of data. */
    private static List<Integer> records(byte[] b) {
        List<Integer> out = new ArrayList<>();
        int pos = 0;
        while (pos + NodeLog.HEADER <= b.length) {
            int len = ByteBuffer.wrap(b).getInt(pos);
            if (len <= 0) {
                break;
            }
            out.add(pos);
            pos += (NodeLog.HEADER + len + 7) & -8;
        }
        out.add(pos);
        return out;
    }

    /** One group's expected state: the newest entry per slot above its floor. */
    private static final class Model {
        final TreeMap<Long, Entry> entries = new TreeMap<>();
        long floor;

        void apply(Object op) {
            if (op instanceof Entry e) {
                entries.put(e.slot(), e);
            } else {
                floor = Math.max(floor, (Long) op);
            }
            entries.headMap(floor, true).clear();
        }

        Model copy() {
            Model m = new Model();
            m.entries.putAll(entries);
            m.floor = floor;
            return m;
        }
    }

    private record Op(int group, Object what) {}

    /**
     * Random appends, compactions and syncs of four groups, then a crash that loses a random part of the
     * unsynced tail (possibly cutting a record: a torn tail). Whatever was synced is recovered exactly, per
     * group; of the unsynced appends, a prefix of the log order survives (the same cut for every group).
     */
    @Test
    void whatWasSyncedIsRecoveredExactlyPerGroupAfterACrashAtARandomPoint() throws Exception {
        SplittableRandom random = new SplittableRandom(2026);
        Map<Integer, Model> durable = new HashMap<>();
        int roundsThatLostAppends = 0;
        int tornTails = 0;
        for (int round = 0; round < 40; round++) {
            List<Op> unsyncedOps = new ArrayList<>();
            long syncedPosition;
            try (NodeLog log = NodeLog.open(dir, 4096)) {
                for (int g = 0; g < 4; g++) {
                    Model m = durable.computeIfAbsent(g, k -> new Model());
                    LogRecovery r = log.recovery(g);
                    assertEquals(m.entries, r.entries(), "round " + round + " group " + g);
                    assertEquals(m.floor, r.compactedThrough(), "round " + round + " group " + g);
                    assertFalse(r.corrupted(), r.corruptions().toString());
                }
                log.finishRecovery();
                syncedPosition = log.sync();
                int ops = 5 + random.nextInt(40);
                for (int i = 0; i < ops; i++) {
                    int g = random.nextInt(4);
                    Model m = durable.get(g);
                    int kind = random.nextInt(10);
                    if (kind < 7) {
                        List<Entry> batch = new ArrayList<>();
                        int n = 1 + random.nextInt(4);
                        for (int k = 0; k < n; k++) {
                            long slot = m.floor + 1 + random.nextInt(40);
                            batch.add(entry(slot, 1 + random.nextInt(9), 1 + random.nextInt(random.nextInt(10) == 0 ? 5000 : 200)));
                        }
                        log.append(g, batch);
                        batch.forEach(e -> unsyncedOps.add(new Op(g, e)));
                    } else if (kind < 8) {
                        long slot = m.floor + random.nextInt(20);
                        syncedPosition = log.appendCompaction(g, slot);
                        log.syncThrough(syncedPosition);
                        unsyncedOps.add(new Op(g, slot));
                        applyAll(durable, unsyncedOps);
                        log.compacted(g, slot);
                    } else {
                        syncedPosition = log.sync();
                        applyAll(durable, unsyncedOps);
                    }
                }
                // The crash: the bytes appended after the last sync may be lost from any point on.
                long unsyncedBytes = log.appendedPosition() - syncedPosition;
                List<Path> segs = segments();
                Path newest = segs.get(segs.size() - 1);
                byte[] bytes = Files.readAllBytes(newest);
                int end = records(bytes).get(records(bytes).size() - 1);
                int cut = (int) Math.min(end, unsyncedBytes) == 0 ? 0 : random.nextInt((int) Math.min(end, unsyncedBytes) + 1);
                try (RandomAccessFile f = new RandomAccessFile(newest.toFile(), "rw")) {
                    f.seek(end - cut);
                    f.write(new byte[cut]);
                }
                if (cut > 0 && random.nextBoolean()) {
                    // A torn record: part of the lost bytes hold garbage rather than zeros.
                    try (RandomAccessFile f = new RandomAccessFile(newest.toFile(), "rw")) {
                        f.seek(end - cut);
                        f.write(new byte[] {0, 0, 0, 40, 9, 9, 9}, 0, Math.min(cut, 7));
                    }
                }
            }
            // Which prefix of the unsynced operations survived is read back from group states: find it.
            try (NodeLog log = NodeLog.open(dir, 4096)) {
                int survived = -1;
                for (int k = unsyncedOps.size(); k >= 0 && survived < 0; k--) {
                    Map<Integer, Model> candidate = new HashMap<>();
                    durable.forEach((g, m) -> candidate.put(g, m.copy()));
                    for (Op op : unsyncedOps.subList(0, k)) {
                        candidate.get(op.group()).apply(op.what());
                    }
                    boolean match = true;
                    for (int g = 0; g < 4; g++) {
                        LogRecovery r = log.recovery(g);
                        match &= candidate.get(g).entries.equals(r.entries()) && !r.corrupted();
                    }
                    if (match) {
                        survived = k;
                        durable = candidate;
                    }
                }
                assertTrue(survived >= 0, "round " + round + ": the recovered log is the synced state plus a prefix of the "
                        + "unsynced appends");
                roundsThatLostAppends += survived < unsyncedOps.size() ? 1 : 0;
                for (int g = 0; g < 4; g++) {
                    tornTails += log.recovery(g).tornTails().size();
                }
            }
        }
        // The crashes did lose unsynced appends (the check above had something to find), some as torn records.
        assertTrue(roundsThatLostAppends >= 10, "rounds that lost appends: " + roundsThatLostAppends);
        assertTrue(tornTails >= 3, "torn tails: " + tornTails);
    }

    private static void applyAll(Map<Integer, Model> durable, List<Op> ops) {
        for (Op op : ops) {
            durable.get(op.group()).apply(op.what());
        }
        ops.clear();
    }

    @Test
    void oneFsyncCoversEveryGroupsAppendsBeforeIt() throws Exception {
        try (NodeLog log = NodeLog.open(dir, 1 << 16)) {
            long a = log.append(1, List.of(entry(1, 1, 10)));
            long b = log.append(2, List.of(entry(1, 1, 10), entry(2, 1, 10)));
            assertTrue(b > a);
            log.syncThrough(b);
            assertEquals(1, log.fsyncs());
            log.syncThrough(a);
            assertEquals(1, log.fsyncs(), "group 1's appends were covered by group 2's fsync");
            log.syncThrough(log.append(1, List.of(entry(2, 1, 10))));
            assertEquals(2, log.fsyncs());
        }
    }

    @Test
    void aFlippedByteInOneGroupsRecordRepairsThatGroupOnly() throws Exception {
        try (NodeLog log = NodeLog.open(dir, 1 << 16)) {
            for (long s = 1; s <= 10; s++) {
                log.append(0, List.of(entry(s, 1, 50)));
                log.append(1, List.of(entry(s, 1, 50)));
            }
            log.sync();
        }
        Path seg = segments().get(0);
        byte[] bytes = Files.readAllBytes(seg);
        List<Integer> recs = records(bytes);
        int victim = recs.get(8); // The fifth record of group 0 (records alternate 0, 1, 0, 1...).
        assertEquals(0, ByteBuffer.wrap(bytes).getInt(victim + 4));
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
            f.seek(victim + NodeLog.HEADER + 3);
            int b = f.read();
            f.seek(victim + NodeLog.HEADER + 3);
            f.write(b ^ 0x10);
        }
        try (NodeLog log = NodeLog.open(dir, 1 << 16)) {
            LogRecovery zero = log.recovery(0);
            LogRecovery one = log.recovery(1);
            assertTrue(zero.corrupted(), "the damaged record's group repairs");
            assertEquals(9, zero.entries().size());
            assertFalse(zero.entries().containsKey(5L));
            assertEquals(10, zero.maxSlotSeen());
            assertFalse(one.corrupted(), "the other group is not touched: " + one.corruptions());
            assertEquals(10, one.entries().size());
            log.finishRecovery();
        }
        try (NodeLog log = NodeLog.open(dir, 1 << 16)) {
            assertFalse(log.recovery(0).corrupted(), "the valid records were rewritten, the damage is not found again");
            assertEquals(9, log.recovery(0).entries().size());
            assertEquals(10, log.recovery(1).entries().size());
        }
    }

    @Test
    void aRecordWhoseHeaderIsDamagedCannotBeChargedToAGroupSoEveryGroupRepairs() throws Exception {
        try (NodeLog log = NodeLog.open(dir, 1 << 16)) {
            for (long s = 1; s <= 6; s++) {
                log.append((int) (s % 2), List.of(entry(s, 1, 50)));
            }
            log.sync();
        }
        Path seg = segments().get(0);
        int victim = records(Files.readAllBytes(seg)).get(2);
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
            f.seek(victim + 5); // Inside the group field.
            f.write(0x7F);
        }
        try (NodeLog log = NodeLog.open(dir, 1 << 16)) {
            assertTrue(log.recovery(0).corrupted());
            assertTrue(log.recovery(1).corrupted());
            assertTrue(log.recovery(7).corrupted(), "even a group with no records: the damaged one may have been its");
            assertEquals(5, log.recovery(0).entries().size() + log.recovery(1).entries().size());
        }
    }

    @Test
    void aTornTailIsTruncatedAndAppendingGoesOn() throws Exception {
        try (NodeLog log = NodeLog.open(dir, 1 << 16)) {
            for (long s = 1; s <= 5; s++) {
                log.append(3, List.of(entry(s, 1, 30)));
            }
            log.sync();
        }
        Path seg = segments().get(0);
        int end = records(Files.readAllBytes(seg)).get(5);
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
            f.seek(end);
            f.writeInt(60);
            f.writeInt(3);
            f.write(new byte[] {1, 2, 3});
        }
        try (NodeLog log = NodeLog.open(dir, 1 << 16)) {
            assertEquals(5, log.recovery(3).entries().size());
            assertFalse(log.recovery(3).corrupted());
            log.finishRecovery();
            log.syncThrough(log.append(3, List.of(entry(6, 1, 30))));
        }
        try (NodeLog log = NodeLog.open(dir, 1 << 16)) {
            assertEquals(6, log.recovery(3).entries().size());
            assertFalse(log.recovery(3).corrupted());
        }
    }

    @Test
    void aSegmentIsDeletedOnlyWhenEveryGroupInItHasCompactedPastIt() throws Exception {
        try (NodeLog log = NodeLog.open(dir, 4096)) {
            log.append(9, List.of(entry(1, 1, 100))); // A slow group: one record in the first segment.
            for (long s = 1; s <= 200; s++) {
                log.append(0, List.of(entry(s, 1, 100)));
            }
            log.sync();
            int before = log.segmentCount();
            assertTrue(before > 4, "several segments: " + before);
            log.syncThrough(log.appendCompaction(0, 150));
            log.compacted(0, 150);
            int after = log.segmentCount();
            assertTrue(after < before, "segments holding only compacted records are gone");
            assertTrue(segments().get(0).getFileName().toString().endsWith("00000000000000000000.log"),
                    "the first segment stays: group 9 still needs its record");
            log.syncThrough(log.appendCompaction(9, 1));
            log.compacted(9, 1);
            assertTrue(log.segmentCount() < after);
        }
        try (NodeLog log = NodeLog.open(dir, 4096)) {
            assertEquals(151L, log.recovery(0).entries().firstKey());
            assertEquals(50, log.recovery(0).entries().size());
            assertTrue(log.recovery(9).entries().isEmpty());
            assertEquals(1, log.recovery(9).compactedThrough());
        }
    }

    @Test
    void afterAFailedFsyncNothingMoreIsAcknowledged() throws Exception {
        NodeLog log = NodeLog.open(dir, 4096);
        long p = log.append(0, List.of(entry(1, 1, 10)));
        log.close();
        assertThrows(StorageFailure.class, () -> log.syncThrough(p));
        assertThrows(StorageFailure.class, () -> log.append(0, List.of(entry(2, 1, 10))));
    }
}
