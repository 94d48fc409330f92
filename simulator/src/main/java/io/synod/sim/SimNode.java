package io.synod.sim;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.Replica;
import io.synod.engine.GroupDriver;

/**
 * One simulated machine: its disk and clock survive crashes; its group driver (with the replica inside it and the
 * outputs' sink) does not.
 */
final class SimNode {
    final int id;
    /** Replaced only by the membership-reused-identity negative control (a wiped disk). */
    SimDisk disk;
    final SimClock clock;
    /** The running incarnation's driver, its replica (read-only use: inputs go through the driver) and its outputs; null while down. */
    GroupDriver driver;
    Replica replica;
    SimNodeOutput output;
    /** The Ready whose simulated fsync is under way, or null. */
    Ready fsyncing;
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
        return driver != null;
    }

    long localNanos(long simNanos) {
        return clock.localNanos(simNanos);
    }
}
