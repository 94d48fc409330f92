package io.synod.server.log;

import static io.synod.server.log.LogRecords.ALIGN;
import static io.synod.server.log.LogRecords.align;
import static io.synod.server.log.LogRecords.allZero;
import static io.synod.server.log.LogRecords.getInt;
import static io.synod.server.log.LogRecords.zeroFrom;

import io.synod.core.paxos.Entry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reading a {@link NodeLog} at open: every record of every segment is checked, its group's entries and
 * compaction floor collected; a torn tail is zeroed on disk; damage is charged to the group the record's
 * (intact) header names, or to no group in particular when the header is damaged.
 */
final class NodeLogScan {
    private static final Logger LOG = LoggerFactory.getLogger(NodeLogScan.class);
    static final int HEADER = 16;

    /** One group's records as read (the floor not yet applied to the entries). */
    static final class Scan {
        final TreeMap<Long, Entry> entries = new TreeMap<>();
        long floor;
        long maxSlotSeen;
        final List<String> tornTails = new ArrayList<>();
        final List<String> corruptions = new ArrayList<>();
    }

    /** A segment file: where appending may go on, and the highest entry slot of each group in it. */
    record SegmentFile(long index, Path path, long size, long end, Map<Integer, Long> maxSlots) {}

    final Map<Integer, Scan> groups = new HashMap<>();
    final List<String> unattributed = new ArrayList<>();
    final List<SegmentFile> segments = new ArrayList<>();
    private final Path dir;

    private NodeLogScan(Path dir) {
        this.dir = dir;
    }

    static NodeLogScan read(Path dir, String namePattern) throws IOException {
        NodeLogScan scan = new NodeLogScan(dir);
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.getFileName().toString().matches(namePattern)).sorted().toList();
        }
        for (int i = 0; i < files.size(); i++) {
            Path path = files.get(i);
            byte[] bytes = Files.readAllBytes(path);
            Map<Integer, Long> maxSlots = new HashMap<>();
            int end = scan.segment(path, bytes, maxSlots, files, i);
            scan.segments.add(new SegmentFile(Long.parseLong(path.getFileName().toString().substring(8, 28)), path,
                    bytes.length, end, maxSlots));
        }
        return scan;
    }

    Scan group(int group) {
        return groups.computeIfAbsent(group, g -> new Scan());
    }

    /** Reads one segment's records; returns the offset where appending may go on. */
    private int segment(Path path, byte[] bytes, Map<Integer, Long> maxSlots, List<Path> files, int fileIndex)
            throws IOException {
        String name = path.getFileName().toString();
        int pos = 0;
        while (pos + HEADER <= bytes.length) {
            int len = getInt(bytes, pos);
            if (len == 0 && allZero(bytes, pos, bytes.length)) {
                break; // End of data in this preallocated segment.
            }
            String headerProblem = headerProblem(bytes, pos);
            boolean headerValid = headerProblem == null;
            int group = getInt(bytes, pos + 4);
            LogRecords.Decoded decoded = LogRecords.decode(bytes, pos + HEADER, len,
                    headerValid ? bodyProblem(bytes, pos) : headerProblem);
            String problem = decoded.problem();
            Object record = decoded.record();
            if (problem != null) {
                int next = nextValid(bytes, pos + ALIGN);
                boolean laterData = next >= 0 || LogRecords.laterSegmentsHoldData(files, fileIndex + 1);
                String who = headerValid ? "group " + group + " record" : "record of unknown group";
                if (!laterData) {
                    String what = name + " at offset " + pos + " (" + who + ", " + problem + "), " + (bytes.length - pos)
                            + " bytes zeroed";
                    LOG.warn("node log {}: truncating torn tail record in {}", dir, what);
                    if (headerValid) {
                        group(group).tornTails.add(what);
                    }
                    zeroFrom(path, pos, bytes.length);
                    return pos;
                }
                String what = name + " at offset " + pos + ": " + who + ", " + problem;
                LOG.error("node log {}: corrupt record in the middle of the log, {}", dir, what);
                if (headerValid) {
                    group(group).corruptions.add(what);
                } else {
                    unattributed.add(what);
                }
                if (next < 0) {
                    return bytes.length; // The rest of this segment is unreadable; later segments still count.
                }
                pos = next;
                continue;
            }
            Scan scan = group(group);
            if (record instanceof Entry e) {
                scan.entries.put(e.slot(), e);
                scan.maxSlotSeen = Math.max(scan.maxSlotSeen, e.slot());
                maxSlots.merge(group, e.slot(), Math::max);
            } else {
                scan.floor = Math.max(scan.floor, (Long) record);
            }
            pos += align(HEADER + len);
        }
        return Math.min(pos, bytes.length);
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
        return getInt(bytes, pos + 12) == recordCrc(bytes, pos + 4, bytes, pos + HEADER, getInt(bytes, pos)) ? null
                : "CRC32C mismatch";
    }

    /** The record CRC: the group field (4 bytes at {@code groupAt}) and the body. */
    static int recordCrc(byte[] groupBytes, int groupAt, byte[] body, int bodyAt, int bodyLength) {
        CRC32C crc = new CRC32C();
        crc.update(groupBytes, groupAt, 4);
        crc.update(body, bodyAt, bodyLength);
        return (int) crc.getValue();
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
}
