package io.synod.core.paxos;

/**
 * When and by whom a log entry was created, as a lease policy records it (LeaseGuard, SIGMOD 2026
 * §3: "every entry carries the leader's clock interval at creation"). {@code creator} is the ballot
 * of the leader that created the entry (re-proposals by later leaders keep it); {@code earliestNanos}
 * and {@code latestNanos} bound the true time of creation on a bounded-uncertainty clock
 * ({@link ClockReading}); a policy without such a clock stores its local monotonic reading in both.
 */
public record LeaseStamp(Ballot creator, long earliestNanos, long latestNanos) {
    /** Bytes a stamp adds to an entry on the wire and on disk (for batch bounds). */
    public static final int BYTES = 32;

    public LeaseStamp {
        if (creator == null || earliestNanos > latestNanos) {
            throw new IllegalArgumentException("lease stamp needs a creator and earliest <= latest, got " + creator + " ["
                    + earliestNanos + ", " + latestNanos + "]");
        }
    }
}
