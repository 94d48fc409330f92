package io.synod.core.paxos;

import java.util.ArrayList;
import java.util.List;

/**
 * A leader's retransmission of unacknowledged Accepts: which in-flight slots are due again for which
 * acceptor, with a per-peer {@link RetransmitTimeout} that adapts to the measured round trip.
 */
final class AcceptResends {
    private final ReplicaContext ctx;
    /** Per peer: when an unacknowledged Accept is sent again (adapts to the measured round trip). */
    private final RetransmitTimeout timeouts;
    /** Slot-to-peer sends by {@link #due}, for observation. */
    private long acceptRetransmits;

    AcceptResends(ReplicaContext ctx) {
        this.ctx = ctx;
        this.timeouts = new RetransmitTimeout(ctx.clusterSize, ctx.config.retransmitIntervalNanos());
    }

    /**
     * Runs on every leader tick, so it allocates only when some slot is due for a resend. A slot is
     * due for an acceptor in {@code reach} that has not acknowledged it once that acceptor's
     * {@link RetransmitTimeout} has passed since the slot was last sent; it is marked sent now.
     * Returns, per peer, the slots to send it again, or null if none is due.
     */
    List<List<InFlightProposal>> due(Iterable<InFlightProposal> inFlight, long reach) {
        List<List<InFlightProposal>> perPeer = null;
        long backedOff = 0;
        int budget = ctx.config.maxBatchEntries();
        for (InFlightProposal slot : inFlight) {
            if (budget == 0) {
                break;
            }
            long waited = ctx.nowNanos - slot.lastSentNanos;
            if (waited < ctx.config.retransmitIntervalNanos()) {
                continue; // Below every peer's timeout (the configured interval is the floor).
            }
            long due = 0;
            for (int peer = 0; peer < ctx.clusterSize; peer++) {
                if (peer != ctx.self && ((slot.acceptors | ~reach) & (1L << peer)) == 0 && waited >= timeouts.timeoutNanos(peer)) {
                    due |= 1L << peer;
                }
            }
            if (due == 0) {
                continue;
            }
            slot.lastSentNanos = ctx.nowNanos;
            slot.resent = true;
            budget--;
            for (int peer = 0; peer < ctx.clusterSize; peer++) {
                if ((due & (1L << peer)) != 0) {
                    backedOff |= 1L << peer;
                    if (perPeer == null) {
                        perPeer = new ArrayList<>(ctx.clusterSize);
                        for (int i = 0; i < ctx.clusterSize; i++) {
                            perPeer.add(new ArrayList<>());
                        }
                    }
                    perPeer.get(peer).add(slot);
                    acceptRetransmits++;
                }
            }
        }
        for (int peer = 0; peer < ctx.clusterSize; peer++) {
            if ((backedOff & (1L << peer)) != 0) {
                timeouts.backOff(peer); // Once per tick, however many slots were due.
            }
        }
        return perPeer;
    }

    /**
     * Acceptor {@code peer} acknowledged {@code slots}: records it as their acceptor and samples its round
     * trip. Karn's rule: only a slot sent once times the round trip (a re-send makes the ack ambiguous).
     */
    void acknowledged(int peer, long[] slots, SlotMap<InFlightProposal> inFlight) {
        long bit = 1L << peer;
        long sample = -1;
        for (long slot : slots) {
            InFlightProposal pending = inFlight.get(slot);
            if (pending != null) {
                if (!pending.resent && (pending.acceptors & bit) == 0) {
                    sample = Math.max(sample, ctx.nowNanos - pending.lastSentNanos);
                }
                pending.acceptors |= bit;
            }
        }
        if (sample >= 0) {
            timeouts.sample(peer, sample);
        }
    }

    long acceptRetransmits() {
        return acceptRetransmits;
    }

    /** The current retransmission timeout of Accepts to {@code peer}. */
    long retransmitTimeoutNanos(int peer) {
        return timeouts.timeoutNanos(peer);
    }
}
