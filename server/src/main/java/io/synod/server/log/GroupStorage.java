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
 * Everything one replica keeps on disk, in its group directory:
 * <pre>
 *   promise              the highest promised ballot, two CRC-checked copies ({@link PromiseStore})
 *   log/segment-N.log    accepted entries and compaction marks ({@link SegmentedLog})
 *   snapshot/snapshot-S.snap  the newest two snapshots ({@link SnapshotStore})
 *   REPAIRING            present while the replica repairs lost log records from its peers
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

    private final Path dir;
    private final PromiseStore promise;
    private final SegmentedLog log;
    private final SnapshotStore snapshots;
    private final DurableState durable;
    private final List<String> tornTails;
    private final List<String> corruptions;
    private Ballot repairAbove;
    private long repairThroughSlot;
    /** Entries were appended since the last log fsync. */
    private boolean unsynced;

    private GroupStorage(Path dir, PromiseStore promise, SegmentedLog log, SnapshotStore snapshots,
            DurableState durable, List<String> tornTails, List<String> corruptions) {
        this.dir = dir;
        this.promise = promise;
        this.log = log;
        this.snapshots = snapshots;
        this.durable = durable;
        this.tornTails = tornTails;
        this.corruptions = corruptions;
    }

    public static GroupStorage open(Path dir, long segmentBytes) throws IOException {
        Files.createDirectories(dir);
        PromiseStore promise = PromiseStore.open(dir.resolve("promise"));
        SnapshotStore snapshots = new SnapshotStore(dir.resolve("snapshot"));
        SnapshotStore.Loaded snap = snapshots.load();
        SegmentedLog log = SegmentedLog.open(dir.resolve("log"), segmentBytes);
        SegmentedLog.Recovery rec = log.recovery();
        List<String> corruptions = new ArrayList<>(rec.corruptions());
        corruptions.addAll(snap.problems());
        Snapshot snapshot = snap.snapshot();
        if (rec.compactedThrough() > snapshot.lastIncludedSlot()) {
            corruptions.add("log compacted through slot " + rec.compactedThrough() + " but the newest valid snapshot is at "
                    + snapshot.lastIncludedSlot());
        }
        List<Entry> entries = new ArrayList<>(rec.entries().tailMap(snapshot.lastIncludedSlot(), false).values());
        DurableState durable = new DurableState(promise.promised(), snapshot, entries);
        GroupStorage storage = new GroupStorage(dir, promise, log, snapshots, durable, rec.tornTails(), corruptions);
        storage.loadOrStartRepair(rec.maxSlotSeen());
        return storage;
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
        log.appendAll(ready.entries());
        if (!ready.entries().isEmpty()) {
            unsynced = true;
        }
    }

    /** Makes every entry appended so far durable (no fsync when nothing was appended since the last one). */
    public void sync() {
        if (unsynced) {
            log.sync();
            unsynced = false;
        }
    }

    /** After a durable snapshot: entries at or below {@code slot} are no longer needed. */
    public void compactThrough(long slot) {
        log.appendCompaction(slot);
        log.sync();
        log.deleteThrough(slot);
    }

    public SegmentedLog log() {
        return log;
    }

    @Override
    public void close() throws IOException {
        log.close();
        promise.close();
    }
}
