package io.synod.server.log;

import static io.synod.server.log.LogRecords.ALIGN;
import static io.synod.server.log.LogRecords.align;
import static io.synod.server.log.LogRecords.allZero;
import static io.synod.server.log.LogRecords.getInt;
import static io.synod.server.log.LogRecords.writeFully;
import static io.synod.server.log.LogRecords.writeZeros;
import static io.synod.server.log.LogRecords.zeroFrom;

import io.synod.core.paxos.Entry;
import io.synod.server.wire.MalformedInputException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The accepted entries of every group of a node in one log (TiKV's raft-engine and Dragonboat keep one
 * log per node the same way): preallocated segment files {@code nodelog-<n>.log}, each a run of records
 * <pre>
 *   [length u32][group i32][header crc32c u32][crc32c u32][kind u8][payload][pad to 8]
 * </pre>
 * followed by zeros. The header CRC covers length and group, so a damaged record whose header still
 * checks out is charged to its own group only; the record CRC covers group, kind and payload, so a record
 * of group A is never read as group B's. Kinds and payloads are {@link LogRecords}' (entry, coded entry,
 * compaction mark).
 *
 * <p><b>One fsync for many groups.</b> {@link #append} writes (buffered by the OS) and returns the log
 * position after the write; {@link #syncThrough} returns at once when an fsync that began after that
 * position was reached has completed, and otherwise either waits for the fsync in progress or, if none
 * is, becomes the one that fsyncs everything appended so far (a write barrier: the first waiting caller
 * syncs for all). Appends go on while an fsync runs.
 *
 * <p><b>Garbage collection.</b> Each segment remembers the highest entry slot it holds per group; it is
 * deleted once every group in it has compacted past that slot (never the active segment, nor one an
 * fsync still has to cover).
 *
 * <p><b>Recovery.</b> As in {@link SegmentedLog}: a bad record with nothing valid after it is a torn
 * tail (zeroed); one followed by valid records is corruption, reported in that group's
 * {@link #recovery(int)} (the group repairs from its peers). If the header itself is damaged the group
 * cannot be known, and every group is told (all of them repair: conservative, never wrong). The
 * damaged records are rewritten away by {@link #finishRecovery()}, called once every group has
 * durably recorded that it repairs.
 */
public final class NodeLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NodeLog.class);
    static final int HEADER = 16;
    private static final String NAME_PATTERN = "nodelog-\\d{20}\\.log";

    private final Path dir;
    private final long segmentBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition synced = lock.newCondition();
    private final List<Segment> segments = new ArrayList<>();
    private final List<Segment> unsynced = new ArrayList<>();
    private List<Segment> syncing = List.of();
    private final Map<Integer, Long> floors = new HashMap<>();
    /** Per group, what the disk held at open; dropped by {@link #finishRecovery()}. */
    private Map<Integer, Scan> scans = new HashMap<>();
    private final List<String> unattributed = new ArrayList<>();
    private long appendedPosition;
    private long syncedPosition;
    private boolean syncInProgress;
    private StorageFailure failure;
    private long fsyncs;

    private static final class Segment {
        final long index;
        final Path path;
        FileChannel channel;
        long size;
        long end;
        /** Group → the highest entry slot of that group in this segment. */
        final Map<Integer, Long> maxSlots = new HashMap<>();

        Segment(long index, Path path) {
            this.index = index;
            this.path = path;
        }
    }

    private static final class Scan {
        final TreeMap<Long, Entry> entries = new TreeMap<>();
        long floor;
        long maxSlotSeen;
        final List<String> tornTails = new ArrayList<>();
        final List<String> corruptions = new ArrayList<>();
    }

    private NodeLog(Path dir, long segmentBytes) {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
    }

    /** Opens (or creates) the node log in {@code dir} and reads every record; see {@link #recovery(int)}. */
    public static NodeLog open(Path dir, long segmentBytes) throws IOException {
        if (segmentBytes < 4096) {
            throw new IllegalArgumentException("segment size must be >= 4096 bytes, got " + segmentBytes);
        }
        Files.createDirectories(dir);
        NodeLog log = new NodeLog(dir, segmentBytes);
        log.recover();
        return log;
    }

    public Path dir() {
        return dir;
    }

    // ---- recovery -------------------------------------------------------------------------------

    private void recover() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.getFileName().toString().matches(NAME_PATTERN)).sorted().toList();
        }
        for (int i = 0; i < files.size(); i++) {
            Path path = files.get(i);
            String name = path.getFileName().toString();
            Segment seg = new Segment(Long.parseLong(name.substring(8, 28)), path);
            byte[] bytes = Files.readAllBytes(path);
            seg.size = bytes.length;
            seg.end = scanSegment(seg, bytes, files, i);
            seg.channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
            segments.add(seg);
        }
        for (Map.Entry<Integer, Scan> e : scans.entrySet()) {
            Scan scan = e.getValue();
            scan.entries.headMap(scan.floor, true).clear();
            floors.put(e.getKey(), scan.floor);
        }
        if (segments.isEmpty()) {
            roll(0, 0);
        }
    }

    /** Reads one segment's records into {@link #scans}; returns the offset where appending may go on. */
    private int scanSegment(Segment seg, byte[] bytes, List<Path> files, int fileIndex) throws IOException {
        String name = seg.path.getFileName().toString();
        int pos = 0;
        while (pos + HEADER <= bytes.length) {
            int len = getInt(bytes, pos);
            if (len == 0 && allZero(bytes, pos, bytes.length)) {
                break; // End of data in this preallocated segment.
            }
            boolean headerValid = headerProblem(bytes, pos) == null;
            int group = getInt(bytes, pos + 4);
            String problem = headerValid ? bodyProblem(bytes, pos) : headerProblem(bytes, pos);
            Object record = null;
            if (problem == null) {
                try {
                    record = LogRecords.decodeBody(bytes, pos + HEADER, len);
                } catch (MalformedInputException e) {
                    problem = "undecodable record: " + e.getMessage();
                }
            }
            if (problem != null) {
                int next = nextValid(bytes, pos + ALIGN);
                boolean laterData = next >= 0 || laterSegmentsHoldData(files, fileIndex + 1);
                String who = headerValid ? "group " + group + " record" : "record of unknown group";
                if (!laterData) {
                    String what = name + " at offset " + pos + " (" + who + ", " + problem + "), " + (bytes.length - pos)
                            + " bytes zeroed";
                    LOG.warn("node log {}: truncating torn tail record in {}", dir, what);
                    if (headerValid) {
                        scan(group).tornTails.add(what);
                    }
                    zeroFrom(seg.path, pos, bytes.length);
                    return pos;
                }
                String what = name + " at offset " + pos + ": " + who + ", " + problem;
                LOG.error("node log {}: corrupt record in the middle of the log, {}", dir, what);
                if (headerValid) {
                    scan(group).corruptions.add(what);
                } else {
                    unattributed.add(what);
                }
                if (next < 0) {
                    return bytes.length; // The rest of this segment is unreadable; later segments still count.
                }
                pos = next;
                continue;
            }
            Scan scan = scan(group);
            if (record instanceof Entry e) {
                scan.entries.put(e.slot(), e);
                scan.maxSlotSeen = Math.max(scan.maxSlotSeen, e.slot());
                seg.maxSlots.merge(group, e.slot(), Math::max);
            } else {
                scan.floor = Math.max(scan.floor, (Long) record);
            }
            pos += align(HEADER + len);
        }
        return Math.min(pos, bytes.length);
    }

    private Scan scan(int group) {
        return scans.computeIfAbsent(group, g -> new Scan());
    }

    private static String headerProblem(byte[] bytes, int pos) {
        if (getInt(bytes, pos + 8) != Crc.of(bytes, pos, 8)) {
            return "header CRC32C mismatch";
        }
        int len = getInt(bytes, pos);
        if (len <= 0 || (long) pos + HEADER + len > bytes.length) {
            return "record length " + len + " does not fit the " + (bytes.length - pos - HEADER) + " bytes left";
        }
        return null;
    }

    private static String bodyProblem(byte[] bytes, int pos) {
        int len = getInt(bytes, pos);
        CRC32C crc = new CRC32C();
        crc.update(bytes, pos + 4, 4);
        crc.update(bytes, pos + HEADER, len);
        return getInt(bytes, pos + 12) == (int) crc.getValue() ? null : "CRC32C mismatch";
    }

    /** The offset of the next record that checks out, scanning at record alignment; -1 if none. */
    private static int nextValid(byte[] bytes, int from) {
        for (int p = from; p + HEADER <= bytes.length; p += ALIGN) {
            if (headerProblem(bytes, p) == null && bodyProblem(bytes, p) == null) {
                return p;
            }
        }
        return -1;
    }

    private static boolean laterSegmentsHoldData(List<Path> files, int from) throws IOException {
        for (int i = from; i < files.size(); i++) {
            byte[] bytes = Files.readAllBytes(files.get(i));
            if (!allZero(bytes, 0, bytes.length)) {
                return true;
            }
        }
        return false;
    }

    /**
     * What the log held for {@code group} at open (plus what {@link #adopt} added): the newest entry per
     * slot above its compaction floor, and its torn tails and corruptions, including damage whose group
     * could not be told. Only before {@link #finishRecovery()}.
     */
    public LogRecovery recovery(int group) {
        lock.lock();
        try {
            if (scans == null) {
                throw new IllegalStateException("node log " + dir + ": recovery already finished");
            }
            Scan scan = scans.get(group);
            List<String> corrupt = new ArrayList<>(scan == null ? List.of() : scan.corruptions);
            corrupt.addAll(unattributed);
            if (scan == null) {
                return new LogRecovery(new TreeMap<>(), 0, 0, List.of(), List.copyOf(corrupt));
            }
            return new LogRecovery(new TreeMap<>(scan.entries), scan.floor, scan.maxSlotSeen, List.copyOf(scan.tornTails),
                    List.copyOf(corrupt));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Copies {@code group}'s records from another log (a directory of the previous layout being
     * converted) into this one and syncs; {@link #recovery(int)} then includes them. Doing it twice
     * (a conversion redone after a crash) changes nothing: the same entries land on the same slots.
     */
    public void adopt(int group, LogRecovery other) {
        if (other.compactedThrough() > 0) {
            appendCompaction(group, other.compactedThrough());
        }
        syncThrough(append(group, new ArrayList<>(other.entries().values())));
        lock.lock();
        try {
            Scan scan = scan(group);
            scan.entries.putAll(other.entries());
            scan.floor = Math.max(scan.floor, other.compactedThrough());
            scan.entries.headMap(scan.floor, true).clear();
            floors.merge(group, scan.floor, Math::max);
            scan.maxSlotSeen = Math.max(scan.maxSlotSeen, other.maxSlotSeen());
            scan.tornTails.addAll(other.tornTails());
            scan.corruptions.addAll(other.corruptions());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends recovery: after damage, every group's valid records are rewritten into fresh segments and the
     * damaged ones deleted (so the damage is not found again on the next start); the recovered entries are
     * then released. Call once every group has durably entered repair where its recovery said so.
     */
    public void finishRecovery() throws IOException {
        lock.lock();
        try {
            boolean damaged = !unattributed.isEmpty() || scans.values().stream().anyMatch(s -> !s.corruptions.isEmpty());
            if (damaged) {
                List<Segment> old = new ArrayList<>(segments);
                roll(old.get(old.size() - 1).index + 1, 0);
                // The lock is reentrant: these appends and the sync run with it held (start-up, no other writer).
                for (Map.Entry<Integer, Scan> e : scans.entrySet()) {
                    if (e.getValue().floor > 0) {
                        appendCompaction(e.getKey(), e.getValue().floor);
                    }
                    append(e.getKey(), new ArrayList<>(e.getValue().entries.values()));
                }
                sync();
                for (Segment seg : old) {
                    delete(seg);
                }
                DurableFiles.syncDirectory(dir);
                LOG.warn("node log {}: rewrote the valid records of {} group(s) into fresh segments after corruption", dir,
                        scans.size());
            }
            scans = null;
            unattributed.clear();
        } finally {
            lock.unlock();
        }
    }

    // ---- appending and syncing ------------------------------------------------------------------

    /**
     * Appends {@code entries} of {@code group} in order (one positional write per segment touched), not
     * yet durable; returns the log position after them, for {@link #syncThrough}.
     */
    public long append(int group, List<Entry> entries) {
        byte[][] records = new byte[entries.size()][];
        long[] slots = new long[records.length];
        for (int i = 0; i < records.length; i++) {
            records[i] = frame(group, LogRecords.entryBody(entries.get(i)));
            slots[i] = entries.get(i).slot();
        }
        return write(group, records, slots);
    }

    /** Records that {@code group}'s entries at or below {@code slot} are covered by a durable snapshot. */
    public long appendCompaction(int group, long slot) {
        return write(group, new byte[][] {frame(group, LogRecords.compactionBody(slot))}, new long[] {-1});
    }

    private static byte[] frame(int group, byte[] body) {
        byte[] record = new byte[align(HEADER + body.length)];
        ByteBuffer buf = ByteBuffer.wrap(record);
        buf.putInt(body.length).putInt(group).putInt(Crc.of(record, 0, 8));
        CRC32C crc = new CRC32C();
        crc.update(record, 4, 4);
        crc.update(body, 0, body.length);
        buf.putInt((int) crc.getValue()).put(body);
        return record;
    }

    private long write(int group, byte[][] records, long[] slots) {
        lock.lock();
        try {
            if (failure != null) {
                throw failure;
            }
            int from = 0;
            while (from < records.length) {
                Segment active = segments.get(segments.size() - 1);
                int to = from;
                int bytes = 0;
                while (to < records.length && active.end + bytes + records[to].length <= active.size) {
                    bytes += records[to].length;
                    to++;
                }
                if (to == from) {
                    roll(active.index + 1, records[from].length); // A segment big enough for the record.
                    continue;
                }
                ByteBuffer buf = ByteBuffer.allocate(bytes);
                long maxSlot = -1;
                for (int i = from; i < to; i++) {
                    buf.put(records[i]);
                    maxSlot = Math.max(maxSlot, slots[i]);
                }
                buf.flip();
                active.end = writeFully(active.channel, buf, active.end);
                if (maxSlot >= 0) {
                    active.maxSlots.merge(group, maxSlot, Math::max);
                }
                if (!unsynced.contains(active)) {
                    unsynced.add(active);
                }
                appendedPosition += bytes;
                from = to;
            }
            return appendedPosition;
        } catch (IOException e) {
            throw new StorageFailure("node log append failed in " + dir + ": " + e, e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns when everything appended up to {@code position} is durable. One fsync serves every caller
     * whose appends it covers; a failed fsync fails this and every later call (no retry after a failed
     * fsync: the kernel may have dropped the dirty pages).
     */
    public void syncThrough(long position) {
        lock.lock();
        try {
            while (syncedPosition < position) {
                if (failure != null) {
                    throw failure;
                }
                if (syncInProgress) {
                    synced.awaitUninterruptibly();
                    continue;
                }
                syncInProgress = true;
                long target = appendedPosition;
                syncing = new ArrayList<>(unsynced);
                unsynced.clear();
                lock.unlock();
                IOException error = null;
                try {
                    for (Segment seg : syncing) {
                        seg.channel.force(false);
                    }
                } catch (IOException e) {
                    error = e;
                } finally {
                    lock.lock();
                }
                syncInProgress = false;
                syncing = List.of();
                if (error != null) {
                    failure = new StorageFailure("node log fsync failed in " + dir + ": " + error, error);
                } else {
                    syncedPosition = Math.max(syncedPosition, target);
                    fsyncs++;
                }
                synced.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Makes everything appended so far durable; returns the position it is durable through. */
    public long sync() {
        long position = appendedPosition();
        syncThrough(position);
        return position;
    }

    /** The log position after the last append. */
    long appendedPosition() {
        lock.lock();
        try {
            return appendedPosition;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code group} no longer needs its entries at or below {@code slot} (its compaction mark is durable):
     * segments that hold nothing else any group needs are deleted.
     */
    public void compacted(int group, long slot) {
        lock.lock();
        try {
            floors.merge(group, slot, Math::max);
            boolean deleted = false;
            for (Segment seg : new ArrayList<>(segments.subList(0, segments.size() - 1))) {
                if (!unsynced.contains(seg) && !syncing.contains(seg) && allCompacted(seg)) {
                    delete(seg);
                    deleted = true;
                }
            }
            if (deleted) {
                DurableFiles.syncDirectory(dir);
            }
        } catch (IOException e) {
            throw new StorageFailure("deleting compacted segments failed in " + dir + ": " + e, e);
        } finally {
            lock.unlock();
        }
    }

    private boolean allCompacted(Segment seg) {
        for (Map.Entry<Integer, Long> e : seg.maxSlots.entrySet()) {
            if (e.getValue() > floors.getOrDefault(e.getKey(), 0L)) {
                return false;
            }
        }
        return true;
    }

    private void delete(Segment seg) throws IOException {
        segments.remove(seg);
        unsynced.remove(seg);
        seg.channel.close();
        Files.deleteIfExists(seg.path);
    }

    private Segment roll(long index, int minBytes) throws IOException {
        Segment seg = new Segment(index, dir.resolve(String.format("nodelog-%020d.log", index)));
        seg.size = Math.max(segmentBytes, align(minBytes));
        seg.channel = FileChannel.open(seg.path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        writeZeros(seg.channel, 0, seg.size);
        seg.channel.force(true);
        DurableFiles.syncDirectory(dir);
        segments.add(seg);
        return seg;
    }

    // ---- figures --------------------------------------------------------------------------------

    /** fsyncs of appended records since open (one may cover many groups' appends). */
    public long fsyncs() {
        lock.lock();
        try {
            return fsyncs;
        } finally {
            lock.unlock();
        }
    }

    /** Bytes on disk (preallocated segments included). */
    public long sizeBytes() {
        lock.lock();
        try {
            long total = 0;
            for (Segment s : segments) {
                total += s.size;
            }
            return total;
        } finally {
            lock.unlock();
        }
    }

    public int segmentCount() {
        lock.lock();
        try {
            return segments.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            for (Segment s : segments) {
                s.channel.close();
            }
        } finally {
            lock.unlock();
        }
    }
}
