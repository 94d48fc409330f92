package io.synod.server.log;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Converts a group's log of the previous layout ({@code group-N/log/segment-N.log}, one {@link SegmentedLog}
 * per group) into the node's {@link NodeLog}, crash-safe at every step:
 * <ol>
 *   <li>{@link #start}: the old log's live records (entries above its compaction floor, the floor) are
 *       appended to the node log and fsynced ({@link NodeLog#adopt});</li>
 *   <li>{@link #finish}, after the group recorded a repair its old log called for: a {@code CONVERTED}
 *       marker is written durably, the old segments are deleted, then the marker.</li>
 * </ol>
 * A crash before the marker redoes step 1 on the next start (the same entries land on the same slots
 * again: no change); a crash after it only finishes the deletion.
 */
final class LegacyLogConversion {
    private static final Logger LOG = LoggerFactory.getLogger(LegacyLogConversion.class);
    static final String DONE_MARKER = "CONVERTED";
    private static final String SEGMENT_PATTERN = "segment-\\d{20}\\.log";

    private final Path dir;
    private final boolean pending;

    private LegacyLogConversion(Path dir, boolean pending) {
        this.dir = dir;
        this.pending = pending;
    }

    static LegacyLogConversion start(Path dir, NodeLog log, int group, long segmentBytes) throws IOException {
        if (!Files.isDirectory(dir)) {
            return new LegacyLogConversion(dir, false);
        }
        boolean done = Files.exists(dir.resolve(DONE_MARKER));
        List<Path> old = segments(dir);
        if (!done && !old.isEmpty()) {
            try (SegmentedLog legacy = SegmentedLog.open(dir, segmentBytes)) {
                LogRecovery rec = legacy.recovery();
                log.adopt(group, rec);
                LOG.warn("group {}: converting the per-group log in {} ({} entries above slot {}) into the node log {}",
                        group, dir, rec.entries().size(), rec.compactedThrough(), log.dir());
            }
        }
        return new LegacyLogConversion(dir, done || !old.isEmpty());
    }

    void finish() throws IOException {
        if (!pending) {
            return;
        }
        Path marker = dir.resolve(DONE_MARKER);
        if (!Files.exists(marker)) {
            DurableFiles.writeAtomically(marker, new byte[0]);
        }
        for (Path p : segments(dir)) {
            Files.delete(p);
        }
        DurableFiles.syncDirectory(dir);
        Files.delete(marker);
        DurableFiles.syncDirectory(dir);
        try {
            Files.delete(dir); // Empty now, unless the node log itself lives there (a group opened alone).
        } catch (DirectoryNotEmptyException e) {
            // Kept: it holds the node log.
        }
        LOG.info("per-group log {} converted into the node log and removed", dir);
    }

    private static List<Path> segments(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().matches(SEGMENT_PATTERN)).sorted().toList();
        }
    }
}
