package io.synod.sim;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.ReadyLoop;
import io.synod.core.paxos.Replica;

/** One simulated machine: its disk and clock survive crashes, its replica (and Ready loop) does not. */
final class SimNode {
    final int id;
    /** Replaced only by the membership-reused-identity negative control (a wiped disk). */
    SimDisk disk;
    final SimClock clock;
    /** The running incarnation's replica and its Ready loop; both null while the node is down. */
    Replica replica;
    ReadyLoop loop;
    int incarnation;
    boolean crashDuringNextFsync;
    /** Crash right after the next phase 1 promise leaves, and come back fast: the acceptor must still remember it. */
    boolean crashAfterNextPromise;
    long pausedUntilNanos;
    Ballot lastPromised;
    long lastAppliedSlot;

    SimNode(int id, SimDisk disk, SimClock clock) {
        this.id = id;
        this.disk = disk;
        this.clock = clock;
    }

    boolean isUp() {
        return replica != null;
    }

    long localNanos(long simNanos) {
        return clock.localNanos(simNanos);
    }
}
