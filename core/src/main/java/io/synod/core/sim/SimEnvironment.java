package io.synod.core.sim;

import io.synod.core.paxos.ReplicaConfig;

/**
 * The hardware and configuration a seed runs on, drawn from the seed: how fast links and disks
 * are relative to the replica's timers, and how tight its pipeline, queues and snapshots are. One
 * sweep thereby covers a LAN with fast disks, slow disks (Readys pile up behind the fsync and group
 * commit batches them), a slow network (retransmissions and phase 1 timeouts race the answers), and
 * a replica with a tiny window, queue and snapshot interval (BUSY replies, catch-up by snapshot).
 *
 * @param name                 short description for reports
 * @param linkMedianMinNanos   per-link median latency is drawn from [min, max]
 * @param linkMedianMaxNanos   see above
 * @param fsyncMedianNanos     median of one fsync
 * @param tightReplica         small pipeline window, batches, proposal queue and snapshot interval
 */
record SimEnvironment(String name, long linkMedianMinNanos, long linkMedianMaxNanos, long fsyncMedianNanos,
        boolean tightReplica) {

    static SimEnvironment draw(SimRandom random) {
        double network = random.nextDouble();
        double disk = random.nextDouble();
        boolean tight = random.chance(0.25);
        long linkMin = network < 0.8 ? 50 * SimTiming.MICROS : 1 * SimTiming.MILLIS;
        long linkMax = network < 0.8 ? 500 * SimTiming.MICROS : 6 * SimTiming.MILLIS;
        long fsync = disk < 0.7 ? 150 * SimTiming.MICROS : disk < 0.9 ? 1 * SimTiming.MILLIS : 3 * SimTiming.MILLIS;
        String name = (network < 0.8 ? "lan" : "slow-net") + "/fsync-" + fsync / SimTiming.MICROS + "us"
                + (tight ? "/tight-replica" : "");
        return new SimEnvironment(name, linkMin, linkMax, fsync, tight);
    }

    /** The replica configuration of this environment: short timers always, so faults are noticed within a seed. */
    ReplicaConfig replicaConfig(int nodeId, int clusterSize) {
        ReplicaConfig config = Simulation.replicaConfig(nodeId, clusterSize);
        return tightReplica ? config.withBatching(4, 2, 64 * 1024, 3).withSnapshotEverySlots(5, 0) : config;
    }
}
