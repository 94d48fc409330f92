package io.synod.sim;

import io.synod.core.paxos.Ready;
import java.util.ArrayList;
import java.util.List;

/**
 * One simulated node's log: a single device shared by every group the node hosts, as the server's node log is
 * (docs/server.md, "The node log"). Each group's persist request is appended as its records (the promised ballot,
 * the entries by slot, the snapshot); an fsync runs while the device is idle and covers every record appended before
 * it started, of whatever group, and completes their persist requests together (group commit across groups). Records
 * appended while it runs wait for the next fsync, which starts once the completions of this one have run, so a
 * group's next request and every request that arrived meanwhile share it.
 *
 * <p>A crash (or power loss) drops the unsynced tail of every group at once: half of the time nothing of it reached
 * the disk, otherwise a prefix of the tail in append order did, with the record being written torn (recovery
 * discards it, as {@link SimDisk} models for one group). Each group keeps its own durable image ({@link SimNode#disk},
 * the per-group index of the log); only this class writes to it.
 *
 * <p>With one group the log does what the one-group simulator did, draw for draw: each fsync covers the one
 * outstanding request, and a crash during it keeps a torn prefix of that request's records.
 */
final class SimNodeLog {
    /** One group's persist request in the log. */
    private static final class Append {
        final Simulation group;
        final SimNode node;
        final Ready ready;
        /** Completed already (only the {@link Mutation#SHARED_FSYNC_SKIPS_GROUP} control completes an unsynced one). */
        boolean completed;

        Append(Simulation group, SimNode node, Ready ready) {
            this.group = group;
            this.node = node;
            this.ready = ready;
        }
    }

    /** The seed's first group: the event queue, the disk's randomness and the node's crashes. */
    private final Simulation primary;
    /** The node in each group, in group order; the first one stands for the process (up, incarnation, paused). */
    private final List<SimNode> members = new ArrayList<>();
    private final boolean completesUnsynced;
    /** The requests the fsync under way covers, or null while the device is idle. */
    private List<Append> syncing;
    /** Requests appended since the fsync under way started. */
    private List<Append> written = new ArrayList<>();
    /** While one fsync's completions run: appends wait for the fsync that follows them. */
    private boolean completing;
    /** The {@code CRASH_DURING_FSYNC} fault: the node crashes before its next fsync ends. */
    boolean crashDuringNextSync;
    /** Fsyncs completed, persist requests they made durable, and fsyncs that covered requests of several groups. */
    long syncs;
    long requestsSynced;
    long sharedSyncs;

    SimNodeLog(Simulation primary) {
        this.primary = primary;
        this.completesUnsynced = primary.controls.sharedFsyncSkipsGroup();
    }

    /** {@code node} is this node's replica in a group added to the seed. */
    void join(SimNode node) {
        members.add(node);
    }

    /** A group's persist request reaches the log; an idle device starts an fsync for it at once. */
    void append(Simulation group, SimNode node, Ready ready) {
        written.add(new Append(group, node, ready));
        if (syncing == null && !completing) {
            startSync();
        }
    }

    private void startSync() {
        syncing = written;
        written = new ArrayList<>();
        SimNode process = members.get(0);
        int incarnation = process.incarnation;
        long fsyncNanos = primary.diskRandom.lognormal(primary.environment.fsyncMedianNanos(), SimTiming.FSYNC_SIGMA);
        primary.queue.after(fsyncNanos, () -> syncDone(incarnation));
        if (crashDuringNextSync) {
            crashDuringNextSync = false;
            primary.queue.after(primary.diskRandom.uniform(0, fsyncNanos - 1), () -> primary.crash(process, incarnation));
        }
    }

    /**
     * The fsync ended: its records are durable in their groups' images, then every group whose request it covered
     * goes on (a paused process notices when it wakes; a crashed one never does).
     */
    private void syncDone(int incarnation) {
        SimNode process = members.get(0);
        if (!process.isUp() || process.incarnation != incarnation) {
            return;
        }
        if (process.pausedUntilNanos > primary.queue.now()) {
            primary.queue.at(process.pausedUntilNanos, () -> syncDone(incarnation));
            return;
        }
        List<Append> done = syncing;
        syncing = null;
        for (Append append : done) {
            append.node.disk.persist(append.ready);
        }
        syncs++;
        requestsSynced += done.size();
        sharedSyncs += done.size() > 1 ? 1 : 0;
        if (completesUnsynced) {
            // The control: requests appended after this fsync started are reported durable too; their records
            // stay in the unsynced tail (the next fsync covers them, a crash first loses them).
            done = new ArrayList<>(done);
            done.addAll(written);
        }
        completing = true;
        for (Append append : done) {
            if (!append.completed) {
                append.completed = true;
                append.group.inputs.fsyncDone(append.node);
            }
        }
        completing = false;
        if (!written.isEmpty()) {
            startSync();
        }
    }

    /** The node crashed: the unsynced tail of every group is lost but for a torn prefix; nothing of it completes. */
    void crash(SimRandom random) {
        crashDuringNextSync = false;
        if (syncing == null) {
            written = new ArrayList<>();
            return;
        }
        List<Append> tail = new ArrayList<>(syncing);
        tail.addAll(written);
        syncing = null;
        written = new ArrayList<>();
        if (random.chance(0.5)) {
            return;
        }
        List<SimDisk> disks = new ArrayList<>();
        List<Object> records = new ArrayList<>();
        for (Append append : tail) {
            for (Object record : SimDisk.records(append.ready)) {
                disks.add(append.node.disk);
                records.add(record);
            }
        }
        // The record at index `torn` was being written when power failed; its checksum fails on recovery.
        int torn = random.nextInt(records.size());
        for (int i = 0; i < torn; i++) {
            disks.get(i).write(records.get(i));
        }
    }
}
