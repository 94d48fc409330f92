package io.synod.server.log;

import static io.synod.server.log.LogRecords.ALIGN;
import static io.synod.server.log.LogRecords.align;
import static io.synod.server.log.LogRecords.allZero;
import static io.synod.server.log.LogRecords.getInt;
import static io.synod.server.log.LogRecords.zeroFrom;

import io.synod.core.paxos.Entry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The previous layout of a group's accepted entries, one log per group (the node now keeps one
 * {@link NodeLog} for all its groups; {@link GroupStorage} converts a directory in this layout on open): a sequence of preallocated segment files
 * ({@code segment-<n>.log}), each a run of records {@code [length u32][crc32c u32][body][pad to 8]}
 * followed by zeros. Preallocation (PaxStore §3: preallocated log files with fdatasync) means an
 * append never changes the file size, so {@code force(false)} need not flush metadata.
 * Appends are buffered by the OS and made durable by {@link #sync()}: one force per batch (group
 * commit), called by the group loop before anything that depends on the batch is sent.
 *
 * <p>On open, every record is checked. A bad record with nothing valid after it is a <b>torn tail</b>
 * (a write cut short by a crash; it was never fsynced, so never acknowledged): it is zeroed and
 * logged. A bad record followed by valid ones is <b>mid-log corruption</b>: it is reported in
 * {@link Recovery#corruptions()} (never skipped silently), and the caller must repair from peers.
 */
public final class SegmentedLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentedLog.class);

    static final int HEADER = 8;

    private final Path dir;
    private final long segmentBytes;
    private final List<Segment> segments = new ArrayList<>();
    private final List<FileChannel> unsynced = new ArrayList<>();
    private long appendedBytes;

    private static final class Segment {
        final long index;
        final Path path;
        FileChannel channel;
        long size;
        long end;
        long maxSlot;

        Segment(long index, Path path) {
            this.index = index;
            this.path = path;
        }
    }

    private LogRecovery recovery;

    private SegmentedLog(Path dir, long segmentBytes) {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
    }

    /**
     * Opens the log in {@code dir}, recovering what it holds. With mid-log corruption the valid
     * records are rewritten into fresh segments (so the damage is not found again on every start),
     * but the corruption stays reported in {@link #recovery()}.
     */
    public static SegmentedLog open(Path dir, long segmentBytes) throws IOException {
        LogRecords.checkSegmentBytes(segmentBytes);
        Files.createDirectories(dir);
        SegmentedLog log = new SegmentedLog(dir, segmentBytes);
        log.recover();
        return log;
    }

    public LogRecovery recovery() {
        return recovery;
    }

    private void recover() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.getFileName().toString().matches("segment-\\d{20}\\.log")).sorted().toList();
        }
        TreeMap<Long, Entry> entries = new TreeMap<>();
        long compacted = 0;
        long maxSlot = 0;
        List<String> torn = new ArrayList<>();
        List<String> corrupt = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            Path path = files.get(i);
            String name = path.getFileName().toString();
            Segment seg = new Segment(Long.parseLong(name.substring(8, 28)), path);
            byte[] bytes = Files.readAllBytes(path);
            seg.size = bytes.length;
            int pos = 0;
            while (pos + HEADER <= bytes.length) {
                int len = getInt(bytes, pos);
                if (len == 0 && allZero(bytes, pos, bytes.length)) {
                    break; // End of data in this preallocated segment.
                }
                LogRecords.Decoded decoded = LogRecords.decode(bytes, pos + HEADER, len, check(bytes, pos, len));
                String problem = decoded.problem();
                Object record = decoded.record();
                if (problem != null) {
                    int next = nextValid(bytes, pos + ALIGN);
                    boolean laterData = next >= 0 || LogRecords.laterSegmentsHoldData(files, i + 1);
                    if (!laterData) {
                        String what = name + " at offset " + pos + " (" + problem + "), " + (bytes.length - pos)
                                + " bytes zeroed";
                        LOG.warn("log {}: truncating torn tail record in {}", dir, what);
                        torn.add(what);
                        zeroFrom(path, pos, bytes.length);
                        break;
                    }
                    String what = name + " at offset " + pos + ": " + problem;
                    LOG.error("log {}: corrupt record in the middle of the log, {}", dir, what);
                    corrupt.add(what);
                    if (next < 0) {
                        break; // The rest of this segment is unreadable; later segments still count.
                    }
                    pos = next;
                    continue;
                }
                if (record instanceof Entry e) {
                    entries.put(e.slot(), e);
                    maxSlot = Math.max(maxSlot, e.slot());
                    seg.maxSlot = Math.max(seg.maxSlot, e.slot());
                } else {
                    compacted = Math.max(compacted, (Long) record);
                }
                pos += align(HEADER + len);
            }
            seg.end = Math.min(pos, bytes.length);
            segments.add(seg);
        }
        if (compacted > 0) {
            entries.headMap(compacted, true).clear();
        }
        recovery = new LogRecovery(entries, compacted, maxSlot, List.copyOf(torn), List.copyOf(corrupt));
        if (!corrupt.isEmpty()) {
            rewrite(entries, compacted);
        } else {
            for (Segment seg : segments) {
                seg.channel = FileChannel.open(seg.path, StandardOpenOption.READ, StandardOpenOption.WRITE);
            }
        }
        if (segments.isEmpty()) {
            roll(0);
        }
    }

    /** Writes the recovered records into new segments, then deletes the damaged ones. */
    private void rewrite(TreeMap<Long, Entry> entries, long compacted) throws IOException {
        List<Segment> old = new ArrayList<>(segments);
        segments.clear();
        long nextIndex = old.isEmpty() ? 0 : old.get(old.size() - 1).index + 1;
        roll(nextIndex, 0);
        if (compacted > 0) {
            appendCompaction(compacted);
        }
        for (Entry e : entries.values()) {
            append(e);
        }
        sync();
        for (Segment seg : old) {
            Files.deleteIfExists(seg.path);
        }
        DurableFiles.syncDirectory(dir);
        LOG.warn("log {}: rewrote {} valid entries into fresh segments after corruption", dir, entries.size());
    }

    private static String check(byte[] bytes, int pos, int len) {
        if (len <= 0 || (long) pos + HEADER + len > bytes.length) {
            return "record length " + len + " does not fit the " + (bytes.length - pos - HEADER) + " bytes left";
        }
        int crc = getInt(bytes, pos + 4);
        if (crc != Crc.of(bytes, pos + HEADER, len)) {
            return "CRC32C mismatch";
        }
        return null;
    }

    /** The offset of the next record that checks out, scanning at record alignment; -1 if none. */
    private static int nextValid(byte[] bytes, int from) {
        for (int p = from; p + HEADER <= bytes.length; p += ALIGN) {
            int len = getInt(bytes, p);
            if (len > 0 && check(bytes, p, len) == null) {
                return p;
            }
        }
        return -1;
    }

    // ---- appending ------------------------------------------------------------------------------

    public void append(Entry entry) {
        write(body(entry), entry.slot());
    }

    /**
     * Appends {@code entries} in order, like {@link #append} for each, but with one positional write
     * per segment touched instead of one per entry (a group-commit batch is one write and, in
     * {@link #sync()}, one fsync).
     */
    public void appendAll(List<Entry> entries) {
        if (entries.size() == 1) {
            append(entries.get(0));
            return;
        }
        byte[][] bodies = new byte[entries.size()][];
        for (int i = 0; i < bodies.length; i++) {
            bodies[i] = body(entries.get(i));
        }
        int from = 0;
        while (from < bodies.length) {
            Segment active = segments.get(segments.size() - 1);
            // As many whole records as fit in the active segment; the rest go to the next one.
            int to = from;
            int bytes = 0;
            while (to < bodies.length && active.end + bytes + align(HEADER + bodies[to].length) <= active.size) {
                bytes += align(HEADER + bodies[to].length);
                to++;
            }
            if (to == from) {
                write(bodies[from], entries.get(from).slot()); // Rolls to a segment big enough for it.
                from++;
                continue;
            }
            ByteBuffer buf = ByteBuffer.allocate(bytes);
            long maxSlot = active.maxSlot;
            for (int i = from; i < to; i++) {
                byte[] body = bodies[i];
                int start = buf.position();
                buf.putInt(body.length).putInt(Crc.of(body, 0, body.length)).put(body);
                buf.position(start + align(HEADER + body.length)); // The padding stays zero.
                maxSlot = Math.max(maxSlot, entries.get(i).slot());
            }
            buf.flip();
            try {
                long pos = active.end;
                while (buf.hasRemaining()) {
                    pos += active.channel.write(buf, pos);
                }
                active.end = pos;
            } catch (IOException e) {
                throw new StorageFailure("log append failed in " + dir + ": " + e, e);
            }
            active.maxSlot = maxSlot;
            if (!unsynced.contains(active.channel)) {
                unsynced.add(active.channel);
            }
            appendedBytes += bytes;
            from = to;
        }
    }

    private static byte[] body(Entry entry) {
        return LogRecords.entryBody(entry);
    }

    /** Records that entries at or below {@code slot} are covered by a durable snapshot. */
    public void appendCompaction(long slot) {
        write(LogRecords.compactionBody(slot), 0);
    }

    private void write(byte[] body, long slot) {
        int recordBytes = align(HEADER + body.length);
        ByteBuffer buf = ByteBuffer.allocate(recordBytes);
        buf.putInt(body.length).putInt(Crc.of(body, 0, body.length)).put(body);
        buf.clear();
        try {
            Segment active = segments.get(segments.size() - 1);
            if (active.end + recordBytes > active.size) {
                active = roll(active.index + 1, recordBytes);
            }
            long pos = active.end;
            while (buf.hasRemaining()) {
                pos += active.channel.write(buf, pos);
            }
            active.end = pos;
            active.maxSlot = Math.max(active.maxSlot, slot);
            if (!unsynced.contains(active.channel)) {
                unsynced.add(active.channel);
            }
            appendedBytes += recordBytes;
        } catch (IOException e) {
            throw new StorageFailure("log append failed in " + dir + ": " + e, e);
        }
    }

    /** One fsync for everything appended since the last call (group commit). */
    public void sync() {
        try {
            for (FileChannel ch : unsynced) {
                ch.force(false);
            }
            unsynced.clear();
        } catch (IOException e) {
            throw new StorageFailure("log fsync failed in " + dir + ": " + e, e);
        }
    }

    private Segment roll(long index) throws IOException {
        return roll(index, 0);
    }

    private Segment roll(long index, int minBytes) throws IOException {
        Segment seg = new Segment(index, dir.resolve(String.format("segment-%020d.log", index)));
        seg.size = Math.max(segmentBytes, align(minBytes));
        seg.channel = LogRecords.createPreallocated(seg.path, seg.size);
        segments.add(seg);
        return seg;
    }

    /** Deletes whole segments whose every entry is at or below {@code slot} (never the active one). */
    public void deleteThrough(long slot) {
        try {
            while (segments.size() > 1 && segments.get(0).maxSlot <= slot) {
                Segment seg = segments.remove(0);
                seg.channel.close();
                unsynced.remove(seg.channel);
                Files.deleteIfExists(seg.path);
            }
        } catch (IOException e) {
            throw new StorageFailure("deleting compacted segments failed in " + dir + ": " + e, e);
        }
    }

    /** Bytes on disk (preallocated segments included). */
    public long sizeBytes() {
        long total = 0;
        for (Segment s : segments) {
            total += s.size;
        }
        return total;
    }

    public long appendedBytes() {
        return appendedBytes;
    }

    public int segmentCount() {
        return segments.size();
    }

    @Override
    public void close() throws IOException {
        for (Segment s : segments) {
            if (s.channel != null) {
                s.channel.close();
            }
        }
    }
}
