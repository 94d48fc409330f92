package io.synod.core.paxos;

import io.synod.core.util.Check;

/**
 * The leader's retransmission timeout for Accepts, per peer, adapted to the round trips it measures
 * (Jacobson's estimator as specified for TCP in RFC 6298 §2; Karn's rule, RFC 6298 §3: only proposals
 * sent once are sampled; and so that a round trip longer than the timeout can ever be sampled, the
 * timeout of a peer doubles each time something is re-sent to it, until the next sample, RFC 6298 §5.5).
 *
 * <p>Why: a fixed timeout shorter than the round trip resends every Accept once per timeout while its
 * acknowledgement is still on the way. With the default 100 ms and a server RTT of 100 ms every
 * proposal went out twice to every follower, each answered twice; on a loaded machine, where a round
 * trip stretches to several timeouts, the extra traffic grows with the delay it adds to (issue 12's
 * lock experiments: a put at server RTT 100 ms measured 444 ms at load ~50).
 *
 * <p>The timeout of peer p is {@code clamp(srtt + max(4 * rttvar, floor / 4), floor, 16 * floor)},
 * where {@code floor} is the configured {@link ReplicaConfig#retransmitIntervalNanos()}; before the first
 * sample of p it is the floor, so a fast network behaves exactly as before; after a re-send it is
 * doubled (at most to the cap) until p's next sample. {@code floor / 4} stands in
 * for RFC 6298's clock granularity G (the replica's clock moves in ticks, so samples are coarse).
 * Deterministic: samples come from the replica's injected clock; no allocation after construction.
 */
final class RetransmitTimeout {
    /** The timeout never exceeds this many floors, whatever was measured (bounded, like everything). */
    static final int MAX_FLOORS = 16;

    private final long floorNanos;
    private final long[] srttNanos;
    private final long[] rttvarNanos;
    private final boolean[] sampled;
    /** Per peer: the doubled timeout after a re-send, 0 when none is pending. */
    private final long[] backedOffNanos;

    RetransmitTimeout(int clusterSize, long floorNanos) {
        Check.argument(clusterSize > 0 && floorNanos > 0, "cluster size %d and floor %d ns must be positive", clusterSize,
                floorNanos);
        this.floorNanos = floorNanos;
        this.srttNanos = new long[clusterSize];
        this.rttvarNanos = new long[clusterSize];
        this.sampled = new boolean[clusterSize];
        this.backedOffNanos = new long[clusterSize];
    }

    /** A round trip of {@code peer}: an Accept sent once, acknowledged {@code rttNanos} later (>= 0). */
    void sample(int peer, long rttNanos) {
        if (rttNanos < 0) {
            return; // A clock that stood still across the send cannot say anything.
        }
        long r = Math.min(rttNanos, floorNanos * MAX_FLOORS);
        backedOffNanos[peer] = 0;
        if (!sampled[peer]) {
            sampled[peer] = true;
            srttNanos[peer] = r;
            rttvarNanos[peer] = r / 2;
            return;
        }
        rttvarNanos[peer] = rttvarNanos[peer] - rttvarNanos[peer] / 4 + Math.abs(srttNanos[peer] - r) / 4;
        srttNanos[peer] = srttNanos[peer] - srttNanos[peer] / 8 + r / 8;
    }

    /** How long an Accept to {@code peer} may stay unacknowledged before it is sent again. */
    long timeoutNanos(int peer) {
        if (backedOffNanos[peer] > 0) {
            return backedOffNanos[peer];
        }
        if (!sampled[peer]) {
            return floorNanos;
        }
        long rto = srttNanos[peer] + Math.max(4 * rttvarNanos[peer], floorNanos / 4);
        return Math.min(Math.max(rto, floorNanos), floorNanos * MAX_FLOORS);
    }

    /** Something was re-sent to {@code peer} after its timeout: double it until the next sample. */
    void backOff(int peer) {
        backedOffNanos[peer] = Math.min(2 * timeoutNanos(peer), floorNanos * MAX_FLOORS);
    }

    long smoothedRttNanos(int peer) {
        return sampled[peer] ? srttNanos[peer] : -1;
    }
}
