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
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
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
    /** Reused for every append (under the lock); see {@link #writeBuffer(int)}. */
    private ByteBuffer writeBuffer;
    private static final int MIN_WRITE_BUFFER = 1 << 16;
    private static final int MAX_KEPT_WRITE_BUFFER = 4 << 20;

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

    /** The groups with records in this log at open (before {@link #finishRecovery()}; damage of unknown group aside). */
    public Set<Integer> groupsRecorded() {
        lock.lock();
        try {
            if (scans == null) {
                throw new IllegalStateException("node log " + dir + ": recovery already finished");
            }
            return new TreeSet<>(scans.keySet());
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
        List<Body> bodies = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            bodies.add(LogRecords.isPlain(e) ? new Body(e, null, LogRecords.plainBodyLength(e), e.slot())
                    : new Body(null, LogRecords.entryBody(e), -1, e.slot()));
        }
        return write(group, bodies);
    }

    /** Records that {@code group}'s entries at or below {@code slot} are covered by a durable snapshot. */
    public long appendCompaction(int group, long slot) {
        return write(group, List.of(new Body(null, LogRecords.compactionBody(slot), -1, -1)));
    }

    /**
     * A record's body to be written: a plain entry encoded straight into the write buffer ({@code plain}, its
     * body {@code length} bytes), or an encoded body ({@code bytes}: coded or stamped entries, compaction marks).
     * {@code slot} is the entry's, -1 for a compaction mark.
     */
    private record Body(Entry plain, byte[] bytes, int length, long slot) {
        int size() {
            return bytes != null ? bytes.length : length;
        }

        int recordBytes() {
            return align(HEADER + size());
        }
    }

    /**
     * Frames {@code body} at the buffer's position: header, body, zero padding. A plain entry's value is copied
     * once, from its command into this (direct) buffer; both CRCs are computed on the buffer itself.
     */
    private static void frame(ByteBuffer buf, int group, Body body) {
        int start = buf.position();
        int size = body.size();
        buf.putInt(size).putInt(group).putInt(0).putInt(0);
        if (body.bytes() != null) {
            buf.put(body.bytes());
        } else {
            LogRecords.putPlainBody(buf, body.plain());
        }
        int end = start + align(HEADER + size);
        while (buf.position() < end) {
            buf.put((byte) 0);
        }
        CRC32C crc = new CRC32C();
        crc.update(buf.duplicate().position(start).limit(start + 8));
        buf.putInt(start + 8, (int) crc.getValue());
        crc.reset();
        crc.update(buf.duplicate().position(start + 4).limit(start + 8));
        crc.update(buf.duplicate().position(start + HEADER).limit(start + HEADER + size));
        buf.putInt(start + 12, (int) crc.getValue());
    }

    /** The write buffer, at least {@code bytes} long: direct, so the channel writes it without a copy of its own. */
    private ByteBuffer writeBuffer(int bytes) {
        if (writeBuffer == null || writeBuffer.capacity() < bytes) {
            writeBuffer = ByteBuffer.allocateDirect(Math.max(bytes, Math.max(MIN_WRITE_BUFFER,
                    writeBuffer == null ? 0 : Math.min(MAX_KEPT_WRITE_BUFFER, 2 * writeBuffer.capacity()))));
        }
        writeBuffer.clear();
        return writeBuffer;
    }

    private long write(int group, List<Body> bodies) {
        lock.lock();
        try {
            if (failure != null) {
                throw failure;
            }
            int from = 0;
            while (from < bodies.size()) {
                Segment active = segments.get(segments.size() - 1);
                int to = from;
                int bytes = 0;
                while (to < bodies.size() && active.end + bytes + bodies.get(to).recordBytes() <= active.size) {
                    bytes += bodies.get(to).recordBytes();
                    to++;
                }
                if (to == from) {
                    roll(active.index + 1, bodies.get(from).recordBytes()); // A segment big enough for the record.
                    continue;
                }
                ByteBuffer buf = writeBuffer(bytes);
                long maxSlot = -1;
                for (int i = from; i < to; i++) {
                    frame(buf, group, bodies.get(i));
                    maxSlot = Math.max(maxSlot, bodies.get(i).slot());
                }
                buf.flip();
                active.end = writeFully(active.channel, buf, active.end);
                if (writeBuffer.capacity() > MAX_KEPT_WRITE_BUFFER) {
                    writeBuffer = null; // One huge batch does not pin its buffer for good.
                }
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
