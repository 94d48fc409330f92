package io.synod.sim;

import io.synod.core.util.Check;

/**
 * What one simulated seed runs. Timing constants of the model (latencies, fsync, timers) live in
 * {@link SimTiming}; this record holds what callers choose.
 *
 * @param nodes                 replicas in the group
 * @param seed                  the only source of randomness: the same config replays exactly
 * @param faults                which faults the fault phase injects
 * @param mutation              a deliberate bug (negative control), or {@link Mutation#NONE}
 * @param opsPerSeed            client operations invoked in the whole seed (fault phase plus liveness phase)
 * @param workers               client processes that may have an operation outstanding at once
 * @param keys                  distinct keys the workload touches
 * @param zipfKeys              Zipf (s = 1) key popularity instead of uniform
 * @param readPercent           share of reads among operations, 0..100
 * @param meanOpIntervalNanos   mean of the exponential inter-arrival time of operations (open loop)
 * @param livenessBoundNanos    after faults stop, every operation invoked must succeed within this
 * @param maxSimulatedNanos     a seed that has not finished by this simulated time is a violation
 * @param maxEvents             a seed that needs more events than this is a violation
 * @param coding                RS-Paxos value coding and the value sizes clients write ({@link SimCoding#OFF}: plain)
 * @param linkBitsPerSecond     bandwidth of every directed replica link ({@link LinkBandwidth}), or 0: unlimited
 *                              (the default, under which seeds replay exactly as before the bandwidth model existed)
 * @param membershipChanges     the group starts with {@code nodes - 2} voters and the fault phase changes its membership
 *                              ({@link SimMembershipChanges}, docs/membership.md); false: every node votes throughout
 */
public record SimConfig(
        int nodes,
        long seed,
        FaultProfile faults,
        Mutation mutation,
        int opsPerSeed,
        int workers,
        int keys,
        boolean zipfKeys,
        int readPercent,
        long meanOpIntervalNanos,
        long livenessBoundNanos,
        long maxSimulatedNanos,
        long maxEvents,
        SimCoding coding,
        long linkBitsPerSecond,
        boolean membershipChanges) {

    public static final int MIN_NODES = 3;
    public static final int MAX_NODES = 9;
    public static final int MIN_OPS_PER_SEED = 10;

    /** A configuration without a bandwidth limit. */
    public SimConfig(int nodes, long seed, FaultProfile faults, Mutation mutation, int opsPerSeed, int workers, int keys,
            boolean zipfKeys, int readPercent, long meanOpIntervalNanos, long livenessBoundNanos, long maxSimulatedNanos,
            long maxEvents, SimCoding coding) {
        this(nodes, seed, faults, mutation, opsPerSeed, workers, keys, zipfKeys, readPercent, meanOpIntervalNanos,
                livenessBoundNanos, maxSimulatedNanos, maxEvents, coding, 0);
    }

    /** A configuration without membership changes. */
    public SimConfig(int nodes, long seed, FaultProfile faults, Mutation mutation, int opsPerSeed, int workers, int keys,
            boolean zipfKeys, int readPercent, long meanOpIntervalNanos, long livenessBoundNanos, long maxSimulatedNanos,
            long maxEvents, SimCoding coding, long linkBitsPerSecond) {
        this(nodes, seed, faults, mutation, opsPerSeed, workers, keys, zipfKeys, readPercent, meanOpIntervalNanos,
                livenessBoundNanos, maxSimulatedNanos, maxEvents, coding, linkBitsPerSecond, false);
    }

    public SimConfig {
        Check.argument(nodes >= MIN_NODES && nodes <= MAX_NODES, "nodes must be %d..%d, got %d", MIN_NODES, MAX_NODES, nodes);
        Check.argument(faults != null && mutation != null, "faults and mutation must not be null");
        Check.argument(opsPerSeed >= MIN_OPS_PER_SEED, "opsPerSeed must be >= %d, got %d", MIN_OPS_PER_SEED, opsPerSeed);
        Check.argument(workers >= 1, "workers must be >= 1, got %d", workers);
        Check.argument(keys >= 1, "keys must be >= 1, got %d", keys);
        Check.argument(readPercent >= 0 && readPercent <= 100, "readPercent must be 0..100, got %d", readPercent);
        Check.argument(meanOpIntervalNanos > 0, "meanOpIntervalNanos must be > 0, got %d", meanOpIntervalNanos);
        Check.argument(livenessBoundNanos > 0, "livenessBoundNanos must be > 0, got %d", livenessBoundNanos);
        Check.argument(maxSimulatedNanos > livenessBoundNanos, "maxSimulatedNanos must exceed livenessBoundNanos");
        Check.argument(maxEvents > 0, "maxEvents must be > 0, got %d", maxEvents);
        Check.argument(coding != null, "coding must not be null (SimCoding.OFF for none)");
        Check.argument(!mutation.needsCoding() || coding.enabled(), "mutation %s needs coding on", mutation.cliName());
        // Nodes beyond the code length N take replica ids past it and get full copies (docs/membership.md, rule M9).
        Check.argument(!coding.enabled() || coding.coding().nodes() <= nodes, "coding %s is for %d nodes, more than the %d nodes",
                coding, coding.coding().nodes(), nodes);
        Check.argument(linkBitsPerSecond >= 0 && linkBitsPerSecond <= LinkBandwidth.MAX_BITS_PER_SECOND,
                "linkBitsPerSecond must be 0 (unlimited) or 1..%d, got %d", LinkBandwidth.MAX_BITS_PER_SECOND, linkBitsPerSecond);
        Check.argument(!membershipChanges || nodes >= 5, "membership changes need at least 5 nodes (3 voters, 2 spares), got %d", nodes);
        Check.argument(!mutation.needsMembershipChanges() || membershipChanges, "mutation %s needs membership changes on",
                mutation.cliName());
    }

    /** The defaults used by the tests and by {@code synod simulate}. */
    public static SimConfig defaults(int nodes, FaultProfile faults) {
        return new SimConfig(nodes, 1, faults, Mutation.NONE,
                150,            // operations per seed
                10,             // client processes
                4,              // keys: few, so operations on one key overlap
                true,
                50,
                1_000_000L,     // one operation per simulated millisecond on average
                3_000_000_000L, // liveness: 3 simulated seconds per operation after healing
                120_000_000_000L,
                5_000_000L,
                SimCoding.OFF);
    }

    public SimConfig withSeed(long newSeed) {
        return new SimConfig(nodes, newSeed, faults, mutation, opsPerSeed, workers, keys, zipfKeys, readPercent,
                meanOpIntervalNanos, livenessBoundNanos, maxSimulatedNanos, maxEvents, coding, linkBitsPerSecond, membershipChanges);
    }

    public SimConfig withMutation(Mutation newMutation) {
        return new SimConfig(nodes, seed, faults, newMutation, opsPerSeed, workers, keys, zipfKeys, readPercent,
                meanOpIntervalNanos, livenessBoundNanos, maxSimulatedNanos, maxEvents, coding, linkBitsPerSecond, membershipChanges);
    }

    public SimConfig withOpsPerSeed(int ops) {
        return new SimConfig(nodes, seed, faults, mutation, ops, workers, keys, zipfKeys, readPercent,
                meanOpIntervalNanos, livenessBoundNanos, maxSimulatedNanos, maxEvents, coding, linkBitsPerSecond, membershipChanges);
    }

    public SimConfig withWorkload(int newWorkers, int newKeys, boolean zipf, int newReadPercent, long opIntervalNanos) {
        return new SimConfig(nodes, seed, faults, mutation, opsPerSeed, newWorkers, newKeys, zipf, newReadPercent,
                opIntervalNanos, livenessBoundNanos, maxSimulatedNanos, maxEvents, coding, linkBitsPerSecond, membershipChanges);
    }

    public SimConfig withCoding(SimCoding newCoding) {
        return new SimConfig(nodes, seed, faults, mutation, opsPerSeed, workers, keys, zipfKeys, readPercent,
                meanOpIntervalNanos, livenessBoundNanos, maxSimulatedNanos, maxEvents, newCoding, linkBitsPerSecond, membershipChanges);
    }

    /** Every directed replica link limited to {@code bitsPerSecond} (0: unlimited). */
    public SimConfig withLinkBandwidth(long bitsPerSecond) {
        return new SimConfig(nodes, seed, faults, mutation, opsPerSeed, workers, keys, zipfKeys, readPercent,
                meanOpIntervalNanos, livenessBoundNanos, maxSimulatedNanos, maxEvents, coding, bitsPerSecond, membershipChanges);
    }

    /** The same seed with membership changes on or off ({@link SimMembershipChanges}). */
    public SimConfig withMembershipChanges(boolean on) {
        return new SimConfig(nodes, seed, faults, mutation, opsPerSeed, workers, keys, zipfKeys, readPercent,
                meanOpIntervalNanos, livenessBoundNanos, maxSimulatedNanos, maxEvents, coding, linkBitsPerSecond, on);
    }

    /** Operations invoked after faults stop; each of them must succeed within the liveness bound. */
    public int livenessOps() {
        return Math.max(5, opsPerSeed / 10);
    }

    /** Operations invoked while faults are injected. */
    public int faultPhaseOps() {
        return opsPerSeed - livenessOps();
    }
}
