package io.synod.core.paxos;

import io.synod.core.util.Check;
import io.synod.protocol.ClientReply;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.TreeSet;

/**
 * The learner: the commit point, handing the chosen entries out in slot order ({@link Ready#committed()};
 * the runtime applies them with the {@link Applier}, the replica never calls the state machine to apply),
 * the applied slot the application reports, and the snapshots of the applied state that let the log be
 * compacted. Its state is volatile: after a restart it starts from
 * the snapshot (or from a durable state machine's own applied slot and session table, see
 * {@link AppliedState#durableAppliedSlot()}) and learns the rest from the leader.
 *
 * <p>Rule (Paxos Made Simple §3, and the Multi-Paxos commit point): a follower takes a slot as
 * chosen only if the entry it holds there was accepted in the ballot of the leader that reports the
 * commit point, because older-ballot entries may be values that were never chosen.
 *
 * <p>Deferred rebuild ({@link Coding#withDeferredRebuild()}, docs/erasure.md "Deferred follower
 * rebuild"): a committed coded entry this replica cannot rebuild locally and whose entry carries a
 * deferral header is handed out with its header and applied from it ({@link StateMachine#applyDeferred});
 * its key stays unresolved. The value is rebuilt (the recovery read, by slot) only when needed:
 * <ol>
 *   <li>before applying a command that reads an unresolved key, or that the machine cannot classify
 *       ({@link AppliedState#unresolvedSlotsFor}); handing out waits until it is resolved (and until a pending
 *       deferred entry is applied, which may leave such a key unresolved);</li>
 *   <li>before a local (lease) read of an unresolved key ({@link #resolvedForRead}; the read is not
 *       served locally meanwhile);</li>
 *   <li>before a snapshot: when one is due, applying stops until every key is resolved, so every
 *       snapshot (taken, shipped to a peer, or fetched by a recovery read) holds full values.</li>
 * </ol>
 * An unresolved slot stays in the log: the log is compacted only through a snapshot, and snapshots
 * are taken only with nothing unresolved. A peer that compacted the slot answers a recovery read with
 * its (full) snapshot; one at or below our applied slot resolves the keys unresolved at or below its
 * slot ({@link AppliedState#resolveFrom}), a later one is installed.
 */
final class Learner {
    private final ReplicaContext ctx;
    private final Acceptor acceptor;
    private final AppliedState appliedState;
    private final Applier applier;
    private final ClientSessions sessions;
    private final Clients clients;
    private long commitSlot;
    /** The last slot handed to the application ({@link Ready#committed()}); at or above {@link #appliedSlot}. */
    private long handedOutSlot;
    /** The last slot the application applied (it told us through {@link Replica#applied(Ready)}). */
    private long appliedSlot;
    /** Whether an entry handed out but not yet applied is applied deferred (it may make keys unresolved). */
    private boolean deferredPending;
    private final Recovery recovery;
    /** Slots whose values this replica is rebuilding to resolve deferred keys (recovery reads in flight or wanted). */
    private final TreeSet<Long> resolving = new TreeSet<>();
    /**
     * A snapshot is owed at once: the durable state machine restarted ahead of the snapshot with deferred keys
     * unresolved, so its state could not become the snapshot then (every snapshot holds full values).
     */
    private boolean snapshotOwed;
    /**
     * Bytes the log holds of the entries applied since the last snapshot ({@link Entry#sizeBytes()}): the acceptor holds them in
     * memory until a snapshot compacts the log, so a snapshot is due by bytes as well as by slots (counted from 0
     * after a restart: the bound then holds from the next snapshot on).
     */
    private long bytesSinceSnapshot;

    Learner(ReplicaContext ctx, Acceptor acceptor, AppliedState appliedState, Applier applier, ClientSessions sessions,
            Clients clients) {
        this.ctx = ctx;
        this.acceptor = acceptor;
        this.appliedState = appliedState;
        this.applier = applier;
        this.sessions = sessions;
        this.clients = clients;
        this.recovery = new Recovery(ctx, acceptor, appliedState);
        Snapshot snapshot = acceptor.snapshot();
        long durableSlot = appliedState.durableAppliedSlot();
        if (durableSlot >= 0 && durableSlot >= snapshot.lastIncludedSlot()) {
            // The state machine kept its applied state, sessions included, on its own disk. Everything
            // it applied was chosen, so that state is chosen state even where the log lags behind it.
            // The coding in force after the durable slot: stored with it by the machine (applyCodingChange), else the
            // snapshot's (a machine restored from a source that did not carry it); docs/erasure.md rule C4.
            byte[] coding = appliedState.durableCoding();
            ctx.coding = coding != null ? Coding.decodeParameters(ctx.initialCoding, coding) : codingOf(snapshot);
            // The membership likewise: stored with the durable slot (applyMembershipChange), else the snapshot's (rule M7).
            byte[] membership = appliedState.durableMembership();
            ctx.membership = membership != null ? GroupMembership.decode(membership) : membershipOf(snapshot);
            sessions.restore(appliedState.durableSessions());
            this.commitSlot = durableSlot;
            this.handedOutSlot = durableSlot;
            this.appliedSlot = durableSlot;
            if (durableSlot > snapshot.lastIncludedSlot() && appliedState.unresolvedSlots().length > 0) {
                // Deferred rebuild: keys applied from their headers are still unresolved, and their shards are in
                // this log (unresolved slots are above every snapshot taken). The snapshot below is owed: the next
                // applyCommitted rebuilds every such key first and then takes it (rule 5 of docs/erasure.md).
                snapshotOwed = true;
            } else if (durableSlot > snapshot.lastIncludedSlot()) {
                // The log may hold entries at or below that slot that were never chosen (an older
                // ballot's, whose replacement was applied but not yet durable in the log): make the
                // durable state the snapshot and drop the log through it, so no catch-up serves them.
                acceptor.replaceSnapshot(new Snapshot(durableSlot, appliedState.snapshotSource(durableSlot), encodeSessions()));
                acceptor.compactThrough(durableSlot);
            }
            return;
        }
        restoreSessions(snapshot.sessions());
        appliedState.restore(snapshot.lastIncludedSlot(), snapshot.stateMachine(), sessions.records());
        this.commitSlot = snapshot.lastIncludedSlot();
        this.handedOutSlot = snapshot.lastIncludedSlot();
        this.appliedSlot = snapshot.lastIncludedSlot();
    }

    long commitSlot() {
        return commitSlot;
    }

    long appliedSlot() {
        return appliedSlot;
    }

    AppliedState appliedState() {
        return appliedState;
    }

    /**
     * Advances the commit point from a leader's report: a slot counts as chosen only if the entry
     * we hold there was accepted in that leader's ballot, because only then is it the leader's value.
     */
    void learnCommit(Ballot leaderBallot, long leaderCommit) {
        if (ctx.role != Role.FOLLOWER) {
            return;
        }
        long slot = commitSlot + 1;
        while (slot <= leaderCommit) {
            Entry entry = acceptor.entry(slot);
            if (entry == null || !entry.ballot().equals(leaderBallot)) {
                break;
            }
            commitSlot = slot;
            slot++;
        }
        applyCommitted();
    }

    /**
     * What applying the chosen {@code command} will return once the chosen commands {@code before}
     * (slot order, from the commit point on) are applied, if certain now; else null. Asks the application
     * (through the {@link Applier}) only when everything committed is applied and neither the session table nor a command
     * of {@code before} makes it a duplicate (then it would be answered from the table).
     */
    byte[] resultBeforeApply(Command command, List<Command> before) {
        if (appliedSlot != commitSlot || clients.answerFromSession(command) != null) {
            return null;
        }
        List<byte[]> payloads = new ArrayList<>(before.size());
        for (Command earlier : before) {
            if (earlier.clientId() == command.clientId() && earlier.sequence() >= command.sequence()) {
                return null;
            }
            payloads.add(earlier.payload());
        }
        return applier.resultBeforeApply(command.payload(), payloads);
    }

    /** The leader's commit rule chose the next slot. */
    void commitNext() {
        commitSlot++;
    }

    /**
     * Hands the committed entries past those already handed out to the application, in slot order, through
     * the next {@link Ready}; the application applies them before any further input and reports back
     * ({@link #applied}). Handing out stops where the next step needs the state after what is still
     * pending: a snapshot (taken of the applied state), or, with deferred rebuild, a command that may read
     * a key a pending deferred entry leaves unresolved. It goes on once they are applied.
     */
    void applyCommitted() {
        while (handedOutSlot < commitSlot) {
            if (ctx.coding.defersRebuild() && snapshotDue(handedOutSlot)) {
                // Every snapshot holds full values: resolve every deferred key first (handing out waits, so no
                // new one appears meanwhile), snapshot, then go on.
                if (handedOutSlot > appliedSlot || !resolve(appliedState.unresolvedSlots())) {
                    break;
                }
                takeSnapshot();
            }
            long slot = handedOutSlot + 1;
            Entry entry = acceptor.entry(slot);
            Check.state(entry != null, "node %d: committed slot %d missing from the log", ctx.self, slot);
            if (entry.coded() != null) {
                // A coded value is applied whole: from a full copy, the cache, or a recovery read; or, deferred,
                // from its header (its bytes are rebuilt when something needs them).
                Command full = entry.isComplete() ? entry.command() : ctx.cache.get(entry);
                if (full == null && ctx.coding.defersRebuild() && entry.coded().header() != null) {
                    handOut(entry);
                    deferredPending = true;
                    continue;
                }
                if (full == null) {
                    needRecovery(slot);
                    break;
                }
                entry = new Entry(slot, entry.ballot(), full, null, entry.stamp());
            }
            if (!entry.command().isNoop() && !Coding.isChange(entry.command()) && !ctx.coding.readsUnresolved()
                    && (deferredPending || !resolve(appliedState.unresolvedSlotsFor(entry.command().payload())))) {
                // It may read a deferred key: handing out waits for that value. (Checked against the applied state:
                // pending entries applied whole only overwrite keys, so the check errs on the safe side; a pending
                // deferred one may leave a key unresolved, so it must apply first.)
                break;
            }
            handOut(entry);
        }
        recovery.forgetThrough(handedOutSlot, resolving);
        if (handedOutSlot == appliedSlot && snapshotDue(appliedSlot) && resolve(appliedState.unresolvedSlots())) {
            takeSnapshot();
        }
    }

    /**
     * The protocol's part of a committed entry happens here, at hand-out, so the next slot is judged by it
     * (rule M1: a membership change is in force from the next slot on; a coding change likewise); the
     * application's part leaves in the Ready.
     */
    private void handOut(Entry entry) {
        Command command = entry.command();
        byte[] configuration = null;
        if (GroupMembership.isChange(command)) {
            ctx.membership = GroupMembership.of(command); // In force from the next slot on, on every replica (rule M1).
            configuration = ctx.membership.encode();
        } else if (Coding.isChange(command)) {
            ctx.coding = ctx.coding.after(command); // Applied by every replica at the same slot.
            configuration = ctx.coding.encodeParameters();
        }
        boolean awaited = !command.isNoop() && configuration == null && clients.takeAwaiting(command);
        ctx.out.committed(new Committed(entry, awaited, configuration));
        handedOutSlot = entry.slot();
    }

    /** The application applied {@code committed} (a Ready's, in slot order): the applied slot moves, snapshots follow. */
    void applied(List<Committed> committed) {
        for (Committed c : committed) {
            Check.state(c.slot() == appliedSlot + 1, "node %d: slot %d applied after %d", ctx.self, c.slot(), appliedSlot);
            ctx.leases.onApplied(c.entry());
            appliedSlot = c.slot();
            Entry held = acceptor.entry(c.slot()); // What the log holds: a coded entry's shard, not the rebuilt value.
            bytesSinceSnapshot += (held != null ? held : c.entry()).sizeBytes();
        }
        if (appliedSlot == handedOutSlot) {
            deferredPending = false;
        }
        applyCommitted();
    }

    /** Whether a snapshot is due once the state is applied through {@code slot}. */
    private boolean snapshotDue(long slot) {
        // Not by bytes with deferred rebuild: every snapshot first rebuilds each value deferred since the last one,
        // so snapshots every few dozen large values would send them whole again (bench coded: 10 MiB on the wire per
        // 1000 KiB write instead of 1.4); such a log holds shards, a third of each value at X = 3.
        return snapshotOwed || slot - acceptor.snapshot().lastIncludedSlot() >= ctx.config.snapshotEverySlots()
                || (!ctx.coding.defersRebuild() && bytesSinceSnapshot >= ctx.config.snapshotEveryBytes());
    }

    /**
     * Resolves the deferred keys of {@code slots} from what this replica holds (a full copy, the cache),
     * and starts recovery reads for the rest (bounded; repeated on later calls and ticks). Returns true
     * if none is left unresolved.
     */
    private boolean resolve(long[] slots) {
        boolean all = true;
        for (long slot : slots) {
            Entry entry = acceptor.entry(slot);
            Check.state(entry != null && entry.coded() != null, "node %d: deferred slot %d is not a coded entry in the log (%s)",
                    ctx.self, slot, entry);
            Command full = entry.isComplete() ? entry.command() : ctx.cache.get(entry);
            if (full != null) {
                appliedState.resolve(slot, full.payload());
                resolving.remove(slot);
                continue;
            }
            all = false;
            resolving.add(slot);
            recovery.need(entry);
        }
        return all;
    }

    /** Resolves what recovery reads rebuilt into the cache; drops slots no longer unresolved (overwritten since). */
    private void resolveRebuilt() {
        if (resolving.isEmpty()) {
            return;
        }
        TreeSet<Long> unresolved = new TreeSet<>();
        for (long slot : appliedState.unresolvedSlots()) {
            unresolved.add(slot);
        }
        for (Iterator<Long> it = resolving.iterator(); it.hasNext();) {
            long slot = it.next();
            if (!unresolved.contains(slot)) {
                it.remove();
                continue;
            }
            Entry entry = acceptor.entry(slot);
            Command full = entry == null ? null : entry.isComplete() ? entry.command() : ctx.cache.get(entry);
            if (full != null) {
                appliedState.resolve(slot, full.payload());
                it.remove();
            }
        }
    }

    /**
     * Whether a local read of {@code payload} may be served now: no deferred key it reads is unresolved
     * (otherwise their rebuild starts, and the caller serves the read another way).
     */
    boolean resolvedForRead(byte[] payload) {
        return ctx.coding.readsUnresolved() || resolve(appliedState.unresolvedSlotsFor(payload));
    }

    /** Starts rebuilding every deferred key (the simulator's end-of-seed check compares resolved state). */
    void resolveAll() {
        resolve(appliedState.unresolvedSlots());
    }

    /**
     * Entries handed out but not applied yet (still in the outbox: the application applies a Ready as soon as it
     * is taken) are taken back when a snapshot at {@code slot} is installed: those at or below it must not be
     * applied over it (their waiting clients are answered from the restored session table, or UNKNOWN); those
     * above it are handed out again after it, so that their protocol part (membership, coding) follows the
     * snapshot's configuration.
     */
    private void takeBackHandedOut(long slot) {
        for (Committed dropped : ctx.out.dropCommitted()) {
            Command command = dropped.entry().command();
            if (!dropped.awaited()) {
                continue;
            }
            ClientReply known = dropped.slot() <= slot ? clients.answerFromSession(command) : null;
            if (dropped.slot() > slot) {
                clients.await(command);
            } else if (known != null) {
                clients.reply(command, known.status(), known.slot(), known.result());
            } else {
                clients.reply(command, ClientReply.Status.UNKNOWN);
            }
        }
        handedOutSlot = slot;
        deferredPending = false;
    }

    /** Starts recovery reads for {@code stuck} and the committed coded slots after it (bounded). */
    private void needRecovery(long stuck) {
        long last = Math.min(commitSlot, stuck + ctx.config.maxInFlightSlots() - 1);
        for (long slot = stuck; slot <= last; slot++) {
            Entry entry = acceptor.entry(slot);
            if (entry != null && entry.coded() != null && !entry.isComplete() && ctx.cache.get(entry) == null) {
                recovery.need(entry);
            }
        }
    }

    /** Repeats an unanswered recovery read. */
    void tick() {
        recovery.tick();
        if (!resolving.isEmpty()) {
            resolveRebuilt();
            resolve(resolving.stream().mapToLong(Long::longValue).toArray()); // Those the in-flight bound held back.
        }
    }

    /** A peer answered our recovery read: once the value is rebuilt, applying goes on. */
    void onShardReply(Message.ShardReply m) {
        if (recovery.onReply(m)) {
            resolveRebuilt();
            applyCommitted();
        }
    }

    /** Whether {@code m} is a chunk of a snapshot a recovery read fetches (then it was handled here). */
    boolean onRecoverySnapshotChunk(Message.InstallSnapshot m) {
        if (!recovery.fetchesSnapshotFrom(m)) {
            return false;
        }
        Snapshot complete = recovery.onSnapshotChunk(m);
        if (complete != null && complete.lastIncludedSlot() > appliedSlot) {
            installSnapshot(complete);
        } else if (complete != null && !resolving.isEmpty()) {
            // A peer compacted a slot we are resolving: its snapshot (full values, at or below our applied
            // slot) holds the bytes of every key still unresolved at or below its slot.
            appliedState.resolveFrom(complete.lastIncludedSlot(), complete.stateMachine());
            resolveRebuilt();
            recovery.forgetThrough(complete.lastIncludedSlot(), resolving);
            applyCommitted();
        }
        return true;
    }

    void onShardRequest(Message.ShardRequest m) {
        recovery.onRequest(m);
    }

    /**
     * The snapshot's session part; once the coding or the membership changed it also records the configuration
     * in effect after the snapshot's slot (the session table's format 2), so the change survives compaction and restarts.
     */
    private byte[] encodeSessions() {
        byte[] trailer = ConfigurationTrailer.encode(ctx);
        return trailer == null ? sessions.encode() : sessions.encode(trailer);
    }

    private void restoreSessions(byte[] bytes) {
        byte[] trailer = sessions.restoreWithTrailer(bytes);
        ctx.coding = ConfigurationTrailer.coding(ctx.initialCoding, trailer);
        ctx.membership = ConfigurationTrailer.membership(ctx.initialMembership, trailer);
    }

    /** The coding a snapshot records (the constructor's if it records none); for phase 1's read quorum. */
    Coding codingOf(Snapshot snapshot) {
        return ConfigurationTrailer.coding(ctx.initialCoding, ClientSessions.trailerOf(snapshot.sessions()));
    }

    /** The membership a snapshot records (the constructor's if it records none); for phase 1's quorums. */
    GroupMembership membershipOf(Snapshot snapshot) {
        return ConfigurationTrailer.membership(ctx.initialMembership, ClientSessions.trailerOf(snapshot.sessions()));
    }

    private void takeSnapshot() {
        Check.state(handedOutSlot == appliedSlot, "node %d: snapshot at applied %d with slots through %d not applied",
                ctx.self, appliedSlot, handedOutSlot);
        snapshotOwed = false;
        bytesSinceSnapshot = 0;
        long previous = acceptor.snapshot().lastIncludedSlot();
        acceptor.replaceSnapshot(new Snapshot(appliedSlot, appliedState.snapshotSource(appliedSlot), encodeSessions()));
        // With deferred rebuild, peers resolve the keys they deferred since their last snapshot when their
        // next one is due, by asking for shards of those slots: keep the log through the previous snapshot
        // (plus the retention), so a peer up to one snapshot interval behind gets shards, not our snapshot.
        long compactThrough = retainedBelow(ctx.coding.defersRebuild() ? previous : appliedSlot);
        if (compactThrough > 0) {
            acceptor.compactThrough(compactThrough);
        }
    }

    /**
     * The slot to compact through so that the log keeps, at and below {@code base}, at most
     * {@link ReplicaConfig#logRetainSlots()} slots and {@link ReplicaConfig#logRetainBytes()} bytes of entries
     * (a peer further behind catches up from the snapshot). Walks the retained slots once per snapshot.
     */
    private long retainedBelow(long base) {
        long through = base - ctx.config.logRetainSlots();
        long bytes = 0;
        for (long slot = base; slot > Math.max(through, 0); slot--) {
            Entry entry = acceptor.entry(slot);
            if (entry != null) {
                bytes += entry.sizeBytes();
                if (bytes > ctx.config.logRetainBytes()) {
                    return slot;
                }
            }
        }
        return through;
    }

    /** Jumps to a snapshot of chosen state (from the leader's catch-up, or from phase 1 promises). */
    void installSnapshot(Snapshot snapshot) {
        Check.state(snapshot.lastIncludedSlot() > appliedSlot, "snapshot at %d does not move applied %d forward",
                snapshot.lastIncludedSlot(), appliedSlot);
        restoreSessions(snapshot.sessions());
        appliedState.restore(snapshot.lastIncludedSlot(), snapshot.stateMachine(), sessions.records());
        acceptor.replaceSnapshot(snapshot);
        ctx.leases.onSnapshotInstalled(snapshot.lastIncludedSlot());
        commitSlot = Math.max(commitSlot, snapshot.lastIncludedSlot()); // Commits learned past it stay learned.
        appliedSlot = snapshot.lastIncludedSlot();
        takeBackHandedOut(appliedSlot);
        recovery.clear();
        resolving.clear(); // The restored state is full (every snapshot is taken with nothing unresolved).
        snapshotOwed = false;
        bytesSinceSnapshot = 0;
        // Everything at or below the snapshot is chosen and applied; older entries there may be
        // values that were never chosen, so they must not be served in catch-up.
        acceptor.compactThrough(snapshot.lastIncludedSlot());
        if (commitSlot > appliedSlot) {
            applyCommitted(); // Commits this replica learned beyond the snapshot (coded values it could not apply yet).
        }
    }
}
