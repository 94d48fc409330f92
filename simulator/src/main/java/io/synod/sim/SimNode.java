package io.synod.sim;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.Replica;
import io.synod.engine.GroupDriver;

/**
 * One simulated machine as one group sees it: its disk (the group's durable image) and clock survive crashes; its
 * group driver (with the replica inside it and the outputs' sink) does not. With several groups the machine's clock
 * and log ({@link SimNodeLog}) are the same objects in every group's view, and a crash or pause reaches them all.
 */
final class SimNode {
    final int id;
    /** Replaced only by the membership-reused-identity negative control (a wiped disk). */
    SimDisk disk;
    final SimClock clock;
    /** The node's log, shared by its groups. */
    final SimNodeLog log;
    /** The running incarnation's driver, its replica (read-only use: inputs go through the driver) and its outputs; null while down. */
    GroupDriver driver;
    Replica replica;
    SimNodeOutput output;
    /** The Ready whose simulated fsync is under way, or null. */
    Ready fsyncing;
    int incarnation;
    /** Crash right after the next phase 1 promise leaves, and come back fast: the acceptor must still remember it. */
    boolean crashAfterNextPromise;
    long pausedUntilNanos;
    Ballot lastPromised;
    long lastAppliedSlot;

    SimNode(int id, SimDisk disk, SimClock clock, SimNodeLog log) {
        this.id = id;
        this.disk = disk;
        this.clock = clock;
        this.log = log;
    }

    boolean isUp() {
        return driver != null;
    }

    long localNanos(long simNanos) {
        return clock.localNanos(simNanos);
    }
}
