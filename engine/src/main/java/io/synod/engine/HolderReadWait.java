package io.synod.engine;

import io.synod.core.paxos.Role;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Quorum-lease reads a holder could not answer yet, waiting briefly instead of being sent to the leader
 * (docs/leases.md, "On the server"). A follower that holds a key refuses a read of it while it holds an
 * accepted write to the key it has not applied (rule 4d), or while its promises are being renewed. The
 * write is normally committed by then: the follower learns so with the leader's next Accept or heartbeat.
 * Sending the client to the leader costs it a round trip to the leader and makes it skip this replica
 * for the key for a while; waiting for the commit point costs at most {@code waitNanos} (two heartbeats)
 * and keeps the read local. A waiting read is asked again after each pass of the loop, so it is answered
 * from the state at that later moment, within the read's own interval. Bounded: at most
 * {@link #MAX_WAITING} reads wait; one that cannot be served within {@code waitNanos} of its arrival is
 * refused as before (NOT_LEADER naming the key's holders).
 *
 * @param <R> the loop's record of a client request, asked again when the wait is over
 */
final class HolderReadWait<R> {
    /** Reads waiting at most (more are refused at once). */
    static final int MAX_WAITING = 1024;

    private final long waitNanos;
    private final ArrayDeque<R> waiting = new ArrayDeque<>();

    HolderReadWait(long waitNanos) {
        if (waitNanos < 0) {
            throw new IllegalArgumentException("holder read wait must be >= 0 ns, got " + waitNanos);
        }
        this.waitNanos = waitNanos;
    }

    /**
     * Whether the refused read {@code request} waits: this replica ({@code self}, a follower) is one of the
     * key's {@code holders} (bit i = node i; negative: not a quorum-lease read), the read arrived less than
     * the wait ago, and there is room. If so it is kept, to be asked again after the next pass.
     */
    boolean park(R request, long holders, int self, Role role, long receivedNanos, long nowNanos) {
        if (holders < 0 || role != Role.FOLLOWER || (holders & (1L << self)) == 0 || nowNanos - receivedNanos >= waitNanos
                || waiting.size() >= MAX_WAITING) {
            return false;
        }
        waiting.add(request);
        return true;
    }

    boolean isEmpty() {
        return waiting.isEmpty();
    }

    /** Every waiting read, oldest first; none waits afterwards. */
    List<R> takeAll() {
        List<R> out = new ArrayList<>(waiting);
        waiting.clear();
        return out;
    }
}
