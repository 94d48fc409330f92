package io.synod.server.log;

import static io.synod.server.log.LogRecords.align;
import static io.synod.server.log.LogRecords.writeFully;

import io.synod.core.paxos.Entry;
import io.synod.server.log.NodeLogScan.Scan;
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
    static final int HEADER = NodeLogScan.HEADER;
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

    private NodeLog(Path dir, long segmentBytes) {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
    }

    /** Opens (or creates) the node log in {@code dir} and reads every record; see {@link #recovery(int)}. */
    public static NodeLog open(Path dir, long segmentBytes) throws IOException {
        LogRecords.checkSegmentBytes(segmentBytes);
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
        NodeLogScan found = NodeLogScan.read(dir, NAME_PATTERN);
        for (NodeLogScan.SegmentFile f : found.segments) {
            Segment seg = new Segment(f.index(), f.path());
            seg.size = f.size();
            seg.end = f.end();
            seg.maxSlots.putAll(f.maxSlots());
            seg.channel = FileChannel.open(f.path(), StandardOpenOption.READ, StandardOpenOption.WRITE);
            segments.add(seg);
        }
        scans = found.groups;
        unattributed.addAll(found.unattributed);
        for (Map.Entry<Integer, Scan> e : scans.entrySet()) {
            Scan scan = e.getValue();
            scan.entries.headMap(scan.floor, true).clear();
            floors.put(e.getKey(), scan.floor);
        }
        if (segments.isEmpty()) {
            roll(0, 0);
        }
    }

    private Scan scan(int group) {
        return scans.computeIfAbsent(group, g -> new Scan());
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
        buf.putInt(NodeLogScan.recordCrc(record, 4, body, 0, body.length)).put(body);
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
        seg.channel = LogRecords.createPreallocated(seg.path, seg.size);
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
