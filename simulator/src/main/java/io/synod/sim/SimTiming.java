package io.synod.sim;

/**
 * Time constants of the simulated world, in simulated nanoseconds. They model a LAN cluster with
 * fast disks, scaled so that a few hundred client operations see several failovers: replica timers
 * are a few milliseconds and faults arrive every few tens of milliseconds.
 */
final class SimTiming {
    private SimTiming() {}

    static final long MICROS = 1_000L;
    static final long MILLIS = 1_000_000L;

    /** Replica timers (ReplicaConfig.withTimers). */
    static final long HEARTBEAT_NANOS = 4 * MILLIS;
    static final long RETRANSMIT_NANOS = 8 * MILLIS;
    static final long PHASE1_TIMEOUT_NANOS = 50 * MILLIS;
    /** CheckQuorum window (ReplicaConfig.checkQuorumNanos): as long as phase 1 may go without progress. */
    static final long CHECK_QUORUM_NANOS = 50 * MILLIS;

    /** Each node's runtime calls tick() about this often (jittered by up to a quarter). */
    static final long TICK_INTERVAL_NANOS = 1 * MILLIS;

    /** Spread of one-way latency samples around a link's median (medians: {@link SimEnvironment}). */
    static final double LINK_LATENCY_SIGMA = 0.6;

    /** Client to replica one-way latency. */
    static final long CLIENT_MEDIAN_NANOS = 150 * MICROS;

    /** Spread of fsync durations around the environment's median (one fsync per Ready, whatever its size). */
    static final double FSYNC_SIGMA = 0.8;

    /** Client attempt timeout, retry backoff, attempts per operation during the fault phase. */
    static final long CLIENT_ATTEMPT_TIMEOUT_NANOS = 25 * MILLIS;
    static final long CLIENT_BACKOFF_MAX_NANOS = 5 * MILLIS;
    static final int CLIENT_MAX_ATTEMPTS = 8;

    /** The oracle notices a crashed leader or a resignation after this long (a ZooKeeper session timeout). */
    static final long ORACLE_DETECT_MIN_NANOS = 10 * MILLIS;
    static final long ORACLE_DETECT_MAX_NANOS = 40 * MILLIS;
    /** Normal announcement delay, and the delay of a hostile late announcement. */
    static final long ORACLE_NOTIFY_MAX_NANOS = 2 * MILLIS;
    static final long ORACLE_LATE_MAX_NANOS = 100 * MILLIS;

    /** Mean time between injected faults. */
    static final long FAULT_INTERVAL_MEAN_NANOS = 12 * MILLIS;
    static final long CRASH_DOWNTIME_MIN_NANOS = 2 * MILLIS;
    static final long CRASH_DOWNTIME_MAX_NANOS = 60 * MILLIS;
    static final long PARTITION_MIN_NANOS = 5 * MILLIS;
    static final long PARTITION_MAX_NANOS = 120 * MILLIS;
    static final long PAUSE_MAX_NANOS = 60 * MILLIS;
    static final long CLOCK_JUMP_MAX_NANOS = 200 * MILLIS;

    /** Clock drift bound: normal hardware, and under clock faults (still bounded, as the lease designs assume). */
    static final long DRIFT_NORMAL_MAX_PPM = 100;
    static final long DRIFT_FAULT_MAX_PPM = 20_000;
    /** Initial clock offsets between nodes. */
    static final long CLOCK_OFFSET_MAX_NANOS = 1_000 * MILLIS;

    /** After the last operation completes, replicas get this long to converge before the final checks. */
    static final long QUIESCE_NANOS = 100 * MILLIS;
}
