package io.synod.core.paxos;

import io.synod.core.util.Check;
import java.util.ArrayList;
import java.util.List;

/**
 * The learner and applier: the commit point, applying chosen entries in slot order to the state
 * machine and the at-most-once session table, answering the clients that wait here, and the
 * snapshots that let the log be compacted. Its state is volatile: after a restart it starts from
 * the snapshot (or from a durable state machine's own applied slot and session table, see
 * {@link StateMachine#durableAppliedSlot()}) and learns the rest from the leader.
 *
 * <p>Rule (Paxos Made Simple §3, and the Multi-Paxos commit point): a follower takes a slot as
 * chosen only if the entry it holds there was accepted in the ballot of the leader that reports the
 * commit point, because older-ballot entries may be values that were never chosen.
 */
final class Learner {
    private final ReplicaContext ctx;
    private final Acceptor acceptor;
    private final StateMachine stateMachine;
    private final ClientSessions sessions;
    private final Clients clients;
    private long commitSlot;
    private long appliedSlot;
    private final Recovery recovery;

    Learner(ReplicaContext ctx, Acceptor acceptor, StateMachine stateMachine, ClientSessions sessions, Clients clients) {
        this.ctx = ctx;
        this.acceptor = acceptor;
        this.stateMachine = stateMachine;
        this.sessions = sessions;
        this.clients = clients;
        this.recovery = new Recovery(ctx, acceptor, stateMachine);
        Snapshot snapshot = acceptor.snapshot();
        long durableSlot = stateMachine.durableAppliedSlot();
        if (durableSlot >= 0 && durableSlot >= snapshot.lastIncludedSlot()) {
            // The state machine kept its applied state, sessions included, on its own disk. Everything
            // it applied was chosen, so that state is chosen state even where the log lags behind it.
            sessions.restore(stateMachine.durableSessions());
            this.commitSlot = durableSlot;
            this.appliedSlot = durableSlot;
            if (durableSlot > snapshot.lastIncludedSlot()) {
                // The log may hold entries at or below that slot that were never chosen (an older
                // ballot's, whose replacement was applied but not yet durable in the log): make the
                // durable state the snapshot and drop the log through it, so no catch-up serves them.
                acceptor.replaceSnapshot(new Snapshot(durableSlot, stateMachine.snapshotSource(durableSlot), sessions.encode()));
                acceptor.compactThrough(durableSlot);
            }
            return;
        }
        sessions.restore(snapshot.sessions());
        stateMachine.restore(snapshot.lastIncludedSlot(), snapshot.stateMachine(), sessions.records());
        this.commitSlot = snapshot.lastIncludedSlot();
        this.appliedSlot = snapshot.lastIncludedSlot();
    }

    long commitSlot() {
        return commitSlot;
    }

    long appliedSlot() {
        return appliedSlot;
    }

    StateMachine stateMachine() {
        return stateMachine;
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
     * (slot order, from the commit point on) are applied, if certain now; else null. Asks the state
     * machine only when everything committed is applied and neither the session table nor a command
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
        return stateMachine.resultBeforeApply(command.payload(), payloads);
    }

    /** The leader's commit rule chose the next slot. */
    void commitNext() {
        commitSlot++;
    }

    void applyCommitted() {
        while (appliedSlot < commitSlot) {
            long slot = appliedSlot + 1;
            Entry entry = acceptor.entry(slot);
            Check.state(entry != null, "node %d: committed slot %d missing from the log", ctx.self, slot);
            if (entry.coded() != null) {
                // A coded value is applied whole: from a full copy, the cache, or a recovery read.
                Command full = entry.isComplete() ? entry.command() : ctx.cache.get(entry);
                if (full == null) {
                    needRecovery(slot);
                    break;
                }
                entry = new Entry(slot, entry.ballot(), full, null, entry.stamp());
            }
            apply(entry);
            appliedSlot = slot;
        }
        recovery.forgetThrough(appliedSlot);
        if (appliedSlot - acceptor.snapshot().lastIncludedSlot() >= ctx.config.snapshotEverySlots()) {
            takeSnapshot();
        }
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
    }

    /** A peer answered our recovery read: once the value is rebuilt, applying goes on. */
    void onShardReply(Message.ShardReply m) {
        if (recovery.onReply(m)) {
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
        }
        return true;
    }

    void onShardRequest(Message.ShardRequest m) {
        recovery.onRequest(m);
    }

    private void apply(Entry entry) {
        ctx.out.applied(entry);
        ctx.leases.onApplied(entry);
        Command command = entry.command();
        if (command.isNoop()) {
            return;
        }
        // A retried command already applied in an earlier slot is not applied again (at most once).
        ClientReply known = clients.answerFromSession(command);
        if (known != null) {
            clients.answerAwaiting(command, known.status(), known.slot(), known.result());
            return;
        }
        byte[] result = stateMachine.apply(entry.slot(), command.payload(), new StateMachine.SessionWrite(
                command.clientId(), command.sequence(), sessions.evictedBy(command.clientId())));
        sessions.recordApplied(command.clientId(), command.sequence(), entry.slot(), result);
        clients.answerAwaiting(command, ClientReply.Status.OK, entry.slot(), result);
    }

    private void takeSnapshot() {
        acceptor.replaceSnapshot(new Snapshot(appliedSlot, stateMachine.snapshotSource(appliedSlot), sessions.encode()));
        long compactThrough = appliedSlot - ctx.config.logRetainSlots();
        if (compactThrough > 0) {
            acceptor.compactThrough(compactThrough);
        }
    }

    /** Jumps to a snapshot of chosen state (from the leader's catch-up, or from phase 1 promises). */
    void installSnapshot(Snapshot snapshot) {
        Check.state(snapshot.lastIncludedSlot() > appliedSlot, "snapshot at %d does not move applied %d forward",
                snapshot.lastIncludedSlot(), appliedSlot);
        sessions.restore(snapshot.sessions());
        stateMachine.restore(snapshot.lastIncludedSlot(), snapshot.stateMachine(), sessions.records());
        acceptor.replaceSnapshot(snapshot);
        ctx.leases.onSnapshotInstalled(snapshot.lastIncludedSlot());
        commitSlot = Math.max(commitSlot, snapshot.lastIncludedSlot()); // Commits learned past it stay learned.
        appliedSlot = snapshot.lastIncludedSlot();
        recovery.clear();
        // Everything at or below the snapshot is chosen and applied; older entries there may be
        // values that were never chosen, so they must not be served in catch-up.
        acceptor.compactThrough(snapshot.lastIncludedSlot());
        if (commitSlot > appliedSlot) {
            applyCommitted(); // Commits this replica learned beyond the snapshot (coded values it could not apply yet).
        }
    }
}
