package io.synod.server.log;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.DurableState;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.Snapshot;
import io.synod.server.wire.ByteReader;
import io.synod.server.wire.ByteWriter;
import io.synod.server.wire.MalformedInputException;
import io.synod.server.wire.WireCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one replica keeps on disk: its records in the node's {@link NodeLog} (accepted entries and
 * compaction marks, shared with the node's other groups; see {@link NodeStorage}) and, in its group
 * directory:
 * <pre>
 *   promise              the highest promised ballot, two CRC-checked copies ({@link PromiseStore})
 *   snapshot/snapshot-S.snap  the newest two snapshots ({@link SnapshotStore})
 *   REPAIRING            present while the replica repairs lost log records from its peers
 *   log/segment-N.log    only in a directory of the previous layout, converted on open ({@link LegacyLogConversion})
 * </pre>
 * {@link #persist(Ready)} is step (1) of the Ready contract: it returns only when the promise,
 * entries and snapshot of that Ready are durable.
 *
 * <p><b>Repair after mid-log corruption.</b> An acceptor that lost accepted entries must not answer
 * a Prepare with its (now incomplete) log: a phase 1 counting it could miss a chosen value. So the
 * {@code REPAIRING} marker records the promise at the time damage was found; until the replica has
 * followed a leader of a higher ballot (one whose phase 1 finished without this replica's
 * promise) and caught up to its commit point, the group runtime suppresses its Promise replies
 * and keeps it out of elections. The marker survives restarts, so a crash mid-repair cannot
 * re-admit the damaged log.
 */
public final class GroupStorage implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupStorage.class);
    private static final String REPAIR_MARKER = "REPAIRING";
    /** The group's promise, created when the group is first opened (its absence later means it was lost). */
    static final String PROMISE_FILE = "promise";
    /** A group's own log in the previous layout, converted into the node log at open. */
    static final String LEGACY_LOG_DIR = "log";

    private final Path dir;
    private final PromiseStore promise;
    private final NodeLog log;
    private final int group;
    /** This view opened its own node log (a group alone, as in tests) and closes it. */
    private final boolean ownsLog;
    private final SnapshotStore snapshots;
    private final DurableState durable;
    private final List<String> tornTails;
    private final List<String> corruptions;
    private Ballot repairAbove;
    private long repairThroughSlot;
    /** The node log position after this group's last append; 0 when nothing awaits a sync. */
    private long unsyncedThrough;

    private GroupStorage(Path dir, PromiseStore promise, NodeLog log, int group, boolean ownsLog, SnapshotStore snapshots,
            DurableState durable, List<String> tornTails, List<String> corruptions) {
        this.dir = dir;
        this.promise = promise;
        this.log = log;
        this.group = group;
        this.ownsLog = ownsLog;
        this.snapshots = snapshots;
        this.durable = durable;
        this.tornTails = tornTails;
        this.corruptions = corruptions;
    }

    /**
     * A group alone: its own node log in {@code dir/log} (group 0), closed with this storage. A node opens
     * its groups through {@link NodeStorage} instead.
     */
    public static GroupStorage open(Path dir, long segmentBytes) throws IOException {
        NodeLog log = NodeLog.open(dir.resolve("log"), segmentBytes);
        try {
            GroupStorage storage = open(dir, log, 0, segmentBytes, true);
            log.finishRecovery();
            return storage;
        } catch (IOException | RuntimeException e) {
            log.close();
            throw e;
        }
    }

    /**
     * Group {@code group}'s view of {@code log}, with its promise, snapshots and repair marker in
     * {@code dir}; an old per-group log in {@code dir/log} is converted first. The caller ends the log's
     * recovery ({@link NodeLog#finishRecovery()}) once every group of the log is open.
     */
    static GroupStorage open(Path dir, NodeLog log, int group, long segmentBytes, boolean ownsLog) throws IOException {
        Files.createDirectories(dir);
        PromiseStore promise = PromiseStore.open(dir.resolve(PROMISE_FILE));
        try {
            SnapshotStore snapshots = new SnapshotStore(dir.resolve("snapshot"));
            SnapshotStore.Loaded snap = snapshots.load();
            LegacyLogConversion conversion = LegacyLogConversion.start(dir.resolve(LEGACY_LOG_DIR), log, group, segmentBytes);
            LogRecovery rec = log.recovery(group);
            List<String> corruptions = new ArrayList<>(rec.corruptions());
            corruptions.addAll(snap.problems());
            Snapshot snapshot = snap.snapshot();
            if (rec.compactedThrough() > snapshot.lastIncludedSlot()) {
                corruptions.add("log compacted through slot " + rec.compactedThrough() + " but the newest valid snapshot is at "
                        + snapshot.lastIncludedSlot());
            }
            List<Entry> entries = new ArrayList<>(rec.entries().tailMap(snapshot.lastIncludedSlot(), false).values());
            DurableState durable = new DurableState(promise.promised(), snapshot, entries);
            GroupStorage storage = new GroupStorage(dir, promise, log, group, ownsLog, snapshots, durable, rec.tornTails(),
                    corruptions);
            storage.loadOrStartRepair(rec.maxSlotSeen());
            conversion.finish(); // Only now: the records are synced in the node log and a repair is durably recorded.
            return storage;
        } catch (IOException | RuntimeException e) {
            promise.close();
            throw e;
        }
    }

    private void loadOrStartRepair(long maxSlotSeen) throws IOException {
        Path marker = dir.resolve(REPAIR_MARKER);
        Ballot highest = promise.promised();
        for (Entry e : durable.entries()) {
            if (e.ballot().isAbove(highest)) {
                highest = e.ballot();
            }
        }
        if (!corruptions.isEmpty()) {
            long through = Math.max(maxSlotSeen, readMarker(marker) == null ? 0 : repairThroughSlot);
            LOG.error("group storage {}: {} corrupt record(s); the replica repairs from its peers and will not vote "
                    + "in phase 1 until a leader above ballot {} has caught it up past slot {}", dir, corruptions.size(),
                    highest, through);
            writeMarker(marker, highest, through);
        } else {
            readMarker(marker);
        }
    }

    private Ballot readMarker(Path marker) throws IOException {
        if (!Files.exists(marker)) {
            return null;
        }
        byte[] bytes = Files.readAllBytes(marker);
        try {
            ByteReader r = new ByteReader(bytes);
            Ballot b = WireCodec.readBallot(r);
            long through = r.i64("repair slot");
            repairAbove = b;
            repairThroughSlot = through;
            return b;
        } catch (MalformedInputException e) {
            // A damaged marker still means "repairing": be conservative, require any newer leader.
            repairAbove = promise.promised();
            repairThroughSlot = Long.MAX_VALUE;
            return repairAbove;
        }
    }

    private void writeMarker(Path marker, Ballot above, long through) throws IOException {
        ByteWriter w = new ByteWriter(32);
        WireCodec.writeBallot(w, above);
        w.i64(through);
        DurableFiles.writeAtomically(marker, w.toByteArray());
        repairAbove = above;
        repairThroughSlot = through;
    }

    /** What the replica starts from. */
    public DurableState durableState() {
        return durable;
    }

    /** Non-null while repairing: the replica must follow a leader above this ballot before voting again. */
    public Ballot repairAbove() {
        return repairAbove;
    }

    public long repairThroughSlot() {
        return repairThroughSlot;
    }

    /** Ends repair: the marker is removed durably. */
    public void finishRepair() {
        try {
            Files.deleteIfExists(dir.resolve(REPAIR_MARKER));
            DurableFiles.syncDirectory(dir);
        } catch (IOException e) {
            throw new StorageFailure("removing the repair marker failed: " + e, e);
        }
        LOG.warn("group storage {}: repair finished, the replica votes again", dir);
        repairAbove = null;
    }

    public List<String> tornTails() {
        return tornTails;
    }

    public List<String> corruptions() {
        return corruptions;
    }

    /**
     * Step (1) of the Ready contract: the promise, snapshot and entries of {@code ready} are durable
     * when this returns (one log fsync for all its entries: group commit). Throws
     * {@link StorageFailure}; the replica must then stop. The same as {@link #append} then {@link #sync}.
     */
    public void persist(Ready ready) {
        append(ready);
        sync();
    }

    /**
     * The first half of {@link #persist}: the promise and snapshot of {@code ready} are durable when this
     * returns (each is its own small file), its entries are written to the log but not yet synced. A runner
     * that persists several groups' Readys appends them all and then syncs, so that the fsyncs of one pass
     * can be shared; nothing of {@code ready} may leave before {@link #sync()} returns.
     */
    public void append(Ready ready) {
        if (ready.promised() != null) {
            promise.write(ready.promised());
        }
        if (ready.snapshot() != null) {
            snapshots.write(ready.snapshot());
        }
        if (!ready.entries().isEmpty()) {
            unsyncedThrough = log.append(group, ready.entries());
        }
    }

    /**
     * Makes every entry appended so far durable. No fsync when nothing was appended since the last one,
     * nor when another group's fsync already covered this group's appends (one fsync serves the node).
     */
    public void sync() {
        if (unsyncedThrough > 0) {
            log.syncThrough(unsyncedThrough);
            unsyncedThrough = 0;
        }
    }

    /** After a durable snapshot: entries at or below {@code slot} are no longer needed. */
    public void compactThrough(long slot) {
        log.syncThrough(log.appendCompaction(group, slot));
        log.compacted(group, slot);
    }

    /** The node log this group's records are in (shared with the node's other groups). */
    public NodeLog log() {
        return log;
    }

    @Override
    public void close() throws IOException {
        if (ownsLog) {
            log.close();
        }
        promise.close();
    }
}
