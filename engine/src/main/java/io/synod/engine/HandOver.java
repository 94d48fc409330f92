package io.synod.engine;

import io.synod.core.paxos.Message;
import io.synod.core.paxos.Replica;
import io.synod.core.paxos.Role;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * A graceful leader stop under a leader lease (docs/leases.md "On the server", LeaseGuard SIGMOD 2026 §3,
 * rule 7 there): before a stopping node leaves the election, its group driver appends the end-lease entry
 * ({@link Replica#handOver()}; from its stamp on the replica serves no lease read and takes no new
 * command) and waits, bounded by {@link #BOUND_NANOS}, until the entry is committed and every peer has
 * applied it (peers learn the commit from the next heartbeat or Accept); once it is committed, peers that
 * have not reported it within {@link #STRAGGLER_HEARTBEATS} heartbeat intervals (down, partitioned, slow)
 * are not waited for. A successor whose commit point is that entry commits at once instead of waiting Δ;
 * one that did not learn it waits Δ as after a crash: slower, never unsafe.
 * A crash (the runner halts) does none of this.
 *
 * <p>Sans-I/O: the time is passed in; the runner waits for {@link #done()} (its stopping thread, bounded).
 */
final class HandOver {
    /** How long a stopping leader waits for its end-lease entry to commit and reach every peer. */
    static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(2);

    /** After its commit, how many heartbeat intervals the entry gets to reach every peer. */
    static final int STRAGGLER_HEARTBEATS = 10;

    private final int group;
    private final int self;
    private final DriverLog log;
    /** Per node id: the highest applied slot that node reported to this leader since the hand-over began. */
    private final long[] peerApplied;
    private boolean done;
    private boolean requested;
    private boolean started;
    private long slot = -1;
    private long deadlineNanos;
    private boolean committed;
    /** When the driver first saw the end-lease entry committed (if {@link #committed}). */
    private long committedAtNanos;
    private final long stragglerNanos;

    HandOver(int group, int self, int clusterSize, long heartbeatNanos, DriverLog log) {
        this.group = group;
        this.log = log;
        this.self = self;
        this.stragglerNanos = Math.min(BOUND_NANOS, Math.multiplyExact(heartbeatNanos, STRAGGLER_HEARTBEATS));
        this.peerApplied = new long[clusterSize];
        Arrays.fill(peerApplied, -1);
    }

    /** Asks for the hand-over (idempotent); it starts with the next {@link #step}. */
    void request() {
        requested = true;
    }

    /** Whether a hand-over was asked for (and not {@link #reset} since). */
    boolean requested() {
        return requested;
    }

    /**
     * Forgets a finished hand-over so that a later one can run: a leadership move (the leader balancer)
     * hands over and resigns, and the node may lead the group again later and hand it over again.
     */
    void reset() {
        requested = false;
        started = false;
        done = false;
        committed = false;
        slot = -1;
        Arrays.fill(peerApplied, -1);
    }

    /** Whether the hand-over is over: done, not needed, or timed out. */
    boolean done() {
        return done;
    }

    /** A peer message reached the driver: an Accepted or HeartbeatReply says how far its sender applied. */
    void onPeerMessage(Message m) {
        if (slot < 0 || m.from() < 0 || m.from() >= peerApplied.length) {
            return;
        }
        if (m instanceof Message.Accepted a) {
            peerApplied[a.from()] = Math.max(peerApplied[a.from()], a.appliedSlot());
        } else if (m instanceof Message.HeartbeatReply r) {
            peerApplied[r.from()] = Math.max(peerApplied[r.from()], r.appliedSlot());
        }
    }

    /**
     * Before each Ready pass: starts the hand-over once it is requested (the entry
     * leaves with this pass), and ends it when the entry is committed and known everywhere, when this
     * replica no longer leads, or at the bound.
     */
    void step(Replica replica, long nowNanos) {
        if (!requested || done) {
            return;
        }
        if (!started) {
            started = true;
            slot = replica.handOver();
            deadlineNanos = nowNanos + BOUND_NANOS;
            if (slot < 0) {
                done = true; // Not leading, or a lease without an end-lease entry: nothing to hand over.
            } else {
                log.log(DriverLog.Level.INFO, "group " + group + ": handing over, end-lease entry at slot " + slot);
            }
            return;
        }
        if (replica.role() != Role.LEADER) {
            log.log(DriverLog.Level.INFO, "group " + group + ": stopped leading during the hand-over (commit slot "
                    + replica.commitSlot() + ", end-lease slot " + slot + ")");
            done = true;
            return;
        }
        if (replica.commitSlot() >= slot && !committed) {
            committed = true;
            committedAtNanos = nowNanos;
        }
        if (committed && everyPeerApplied(replica)) {
            log.log(DriverLog.Level.INFO, "group " + group + ": handed over, end-lease entry at slot " + slot
                    + " committed and applied by every peer");
            done = true;
        } else if (committed && nowNanos - committedAtNanos >= stragglerNanos) {
            log.log(DriverLog.Level.INFO, "group " + group + ": handed over, end-lease entry at slot " + slot
                    + " committed; peers applied " + Arrays.toString(peerApplied) + " (not waiting longer)");
            done = true;
        } else if (nowNanos - deadlineNanos >= 0) {
            log.log(DriverLog.Level.WARN, "group " + group + ": hand-over bound of " + TimeUnit.NANOSECONDS.toMillis(BOUND_NANOS)
                    + " ms reached (commit slot " + replica.commitSlot() + ", end-lease slot " + slot + ", peers applied "
                    + Arrays.toString(peerApplied) + "); leaving anyway, a successor that did not learn it waits out the lease");
            done = true;
        }
    }

    /** Whether every other member (voter or learner: ids outside the membership run no replica) applied the entry. */
    private boolean everyPeerApplied(Replica replica) {
        long members = replica.membership().applied().members();
        for (int i = 0; i < peerApplied.length; i++) {
            if (i != self && (members & (1L << i)) != 0 && peerApplied[i] < slot) {
                return false;
            }
        }
        return true;
    }
}
