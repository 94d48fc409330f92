package io.synod.core.paxos;

import java.util.Arrays;

/**
 * CheckQuorum for a leader: when it last heard a peer answer in its own ballot, and whether a quorum
 * (itself included) answered within {@link ReplicaConfig#checkQuorumNanos()}. A leader that cannot
 * reach a quorum cannot commit, yet the election service may go on naming it (its ZooKeeper session
 * is healthy while its peer links are down); without this check nobody would ever replace it. The
 * rule is etcd/raft's CheckQuorum ({@code raft.go}: a leader that has not heard from a quorum within
 * an election timeout steps down), with the replica's clock passed in like every other timer.
 *
 * <p>Only answers count that prove the round trip in the current ballot: {@code Accepted} and
 * {@code HeartbeatReply} carrying the leader's ballot. The window starts again each time the replica
 * becomes leader, so a fresh leader is not judged by silence from before its election, and after a
 * gap of half a window or more between two of its ticks: the silence it would judge then is its own
 * (a paused process, a clock that jumped, a single test tick across seconds), and its peers' answers
 * may be waiting unread. etcd counts logical ticks, which a pause does not advance either.
 */
final class QuorumContact {
    private final ReplicaContext ctx;
    private final long[] lastHeardNanos;
    private Ballot ballot;
    private long lastTickNanos;

    QuorumContact(ReplicaContext ctx) {
        this.ctx = ctx;
        this.lastHeardNanos = new long[ctx.clusterSize];
    }

    /** Records an answer from a peer if it is one to the current leadership's ballot. */
    void onMessage(Message message) {
        Ballot answered = null;
        if (message instanceof Message.Accepted m) {
            answered = m.ballot();
        } else if (message instanceof Message.HeartbeatReply m) {
            answered = m.ballot();
        }
        if (answered != null && ctx.role == Role.LEADER && answered.equals(ctx.ownBallot)) {
            track();
            lastHeardNanos[message.from()] = ctx.nowNanos;
        }
    }

    /**
     * Whether this leader went a whole {@link ReplicaConfig#checkQuorumNanos()} (at least four heartbeat
     * intervals) without hearing from
     * enough peers to make, with itself, {@code quorum} (always false when the check is off).
     */
    boolean lostQuorum(int quorum, long voters) {
        if (ctx.config.checkQuorumNanos() == 0 || ctx.role != Role.LEADER) {
            return false;
        }
        long window = window();
        track();
        if (ctx.nowNanos - lastTickNanos >= window / 2) {
            Arrays.fill(lastHeardNanos, ctx.nowNanos);
        }
        lastTickNanos = ctx.nowNanos;
        int reachable = (voters & (1L << ctx.self)) != 0 ? 1 : 0; // Only voters count (docs/membership.md).
        for (int peer = 0; peer < lastHeardNanos.length; peer++) {
            if (peer != ctx.self && (voters & (1L << peer)) != 0 && ctx.nowNanos - lastHeardNanos[peer] < window) {
                reachable++;
            }
        }
        return reachable < quorum;
    }

    /**
     * The ids that answered this leadership's ballot within the CheckQuorum window, and this replica: the live ones a
     * strict reconfiguration check counts (docs/membership.md, "Removing a node"). A fresh leadership counts every
     * peer as just heard from, as {@link #lostQuorum} does.
     */
    long heardRecently() {
        long window = window();
        track();
        long out = 1L << ctx.self;
        for (int peer = 0; peer < lastHeardNanos.length; peer++) {
            if (ctx.nowNanos - lastHeardNanos[peer] < window) {
                out |= 1L << peer;
            }
        }
        return out;
    }

    /**
     * Peers answer heartbeats: a window shorter than a few heartbeat intervals would depose an idle leader whose peers
     * are fine (heartbeat.ms is configurable up to a minute).
     */
    private long window() {
        return Math.max(ctx.config.checkQuorumNanos(), 4 * ctx.config.heartbeatIntervalNanos());
    }

    /** A new leadership (another ballot): every peer counts as just heard from. */
    private void track() {
        if (!ctx.ownBallot.equals(ballot)) {
            ballot = ctx.ownBallot;
            lastTickNanos = ctx.nowNanos;
            Arrays.fill(lastHeardNanos, ctx.nowNanos);
        }
    }
}
