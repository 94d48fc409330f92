package io.synod.sim;

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
 * @param smallMessages        tiny Promise pages and snapshot chunks, so phase 1 pages through many
 *                             promises and snapshots travel in many chunks (and lose some); and, unless the
 *                             replica is tight, a log bounded in bytes: snapshots by bytes before the slot
 *                             bound, and only a few hundred bytes kept below them
 */
record SimEnvironment(String name, long linkMedianMinNanos, long linkMedianMaxNanos, long fsyncMedianNanos,
        boolean tightReplica, boolean smallMessages) {
    /** Promise page and snapshot chunk bounds of a small-messages environment: a few entries per page. */
    static final int SMALL_PROMISE_BYTES = 200;
    static final int SMALL_CHUNK_BYTES = 256;
    /**
     * Log byte bounds of a small-messages environment ({@link ReplicaConfig#snapshotEveryBytes()}): a snapshot after
     * about 30 of the simulator's small commands (before the slot bound of 40) or a few coded values, and about four
     * small entries kept below it.
     */
    static final long SMALL_SNAPSHOT_EVERY_BYTES = 2048;
    static final long SMALL_LOG_RETAIN_BYTES = 256;


    /**
     * The fixed environment of experiments ({@link SimScenario#fixedLan()}): LAN links (medians drawn per link
     * from 50–500 µs, as the drawn LAN), 150 µs median fsyncs, the regular replica configuration.
     */
    static final SimEnvironment LAN = new SimEnvironment("lan/fsync-150us (fixed)", 50 * SimTiming.MICROS,
            500 * SimTiming.MICROS, 150 * SimTiming.MICROS, false, false);

    static SimEnvironment draw(SimRandom random) {
        double network = random.nextDouble();
        double disk = random.nextDouble();
        boolean tight = random.chance(0.25);
        // Tiny pages and chunks on a LAN only: a snapshot of a few KiB travels in about ten chunks, one
        // round trip each, and must arrive within the 100 ms quiesce phase (twice, if the leader
        // snapshots again meanwhile); on the slow network (1-6 ms links) it would not.
        boolean small = random.chance(0.4) && network < 0.8;
        long linkMin = network < 0.8 ? 50 * SimTiming.MICROS : 1 * SimTiming.MILLIS;
        long linkMax = network < 0.8 ? 500 * SimTiming.MICROS : 6 * SimTiming.MILLIS;
        long fsync = disk < 0.7 ? 150 * SimTiming.MICROS : disk < 0.9 ? 1 * SimTiming.MILLIS : 3 * SimTiming.MILLIS;
        String name = (network < 0.8 ? "lan" : "slow-net") + "/fsync-" + fsync / SimTiming.MICROS + "us"
                + (tight ? "/tight-replica" : "") + (small ? "/small-messages" : "");
        return new SimEnvironment(name, linkMin, linkMax, fsync, tight, small);
    }

    /** The replica configuration of this environment: short timers always, so faults are noticed within a seed. */
    ReplicaConfig replicaConfig(int nodeId, int clusterSize) {
        ReplicaConfig config = Simulation.replicaConfig(nodeId, clusterSize);
        if (tightReplica) {
            config = config.withBatching(4, 2, 64 * 1024, 3).withSnapshotEverySlots(5, 0);
        }
        if (smallMessages) {
            config = config.toBuilder().maxPromiseBytes(SMALL_PROMISE_BYTES).snapshotChunkBytes(SMALL_CHUNK_BYTES).build();
            if (!tightReplica) {
                config = config.withSnapshotEveryBytes(SMALL_SNAPSHOT_EVERY_BYTES, SMALL_LOG_RETAIN_BYTES);
            }
        }
        return config;
    }
}
