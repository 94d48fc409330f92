package io.synod.sim;

import io.synod.protocol.ElectionEvent;

/**
 * The simulator's stand-in for the ZooKeeper epoch watch: every epoch the oracle issues reaches every
 * live node as {@link ElectionEvent.EpochSeen} (with the announcement's delay), and a restarted node reads
 * the newest one (as the watch's first read at join does). The replicas bound the ballots they accept by it.
 * It changes no draw of any random stream, so runs in which no ballot is refused keep their trace.
 */
final class SimEpochWatch {
    private final Simulation sim;

    SimEpochWatch(Simulation sim) {
        this.sim = sim;
    }

    /** The oracle issued {@code epoch}; it reaches the nodes after {@code delayNanos}. */
    void issued(long epoch, long delayNanos) {
        sim.queue.after(delayNanos, () -> {
            for (SimNode node : sim.nodes) {
                if (node.isUp()) {
                    node.driver.onElection(new ElectionEvent.EpochSeen(epoch), node.localNanos(sim.queue.now()));
                }
            }
        });
    }

    /** A node (re)started: it reads the newest epoch issued. */
    void onRestart(SimNode node) {
        node.driver.onElection(new ElectionEvent.EpochSeen(sim.oracle.issuedEpoch()), node.localNanos(sim.queue.now()));
    }
}
