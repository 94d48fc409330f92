package io.synod.bench.leases;

import io.synod.sim.FaultProfile;
import io.synod.sim.LeaseHooksFactory;
import io.synod.sim.ScenarioResult;
import io.synod.sim.SimConfig;
import io.synod.sim.SimLeases;
import io.synod.sim.SimOp;
import io.synod.sim.SimScenario;
import io.synod.sim.Simulation;
import io.synod.leases.KeyExtractor;
import io.synod.leases.LeaderLease;
import io.synod.leases.LeaderLeaseConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * LeaseGuard's availability experiments (Davis, Demirbas, Deng, "LeaseGuard: Raft Leases Done Right",
 * SIGMOD 2026, Fig. 7 and Fig. 8) in the seeded simulator, with the paper's parameters: lease Δ = 1 s,
 * election timeout 500 ms (the oracle notices the crashed leader after exactly that long).
 *
 * <p>A run: 3 replicas on the simulator's fixed LAN ({@link SimScenario#withFixedLan()}: the hardware does
 * not change with the seed; a drawn environment with 256-byte snapshot chunks made the restarted old leader
 * fetch the 1.4 MB snapshot of a Zipf 2 run in 5,500 round trips, longer than the seed), no injected faults, open-loop clients (one operation
 * per simulated millisecond on average, half reads), a scripted crash of the leader at 2 s, clients
 * invoking until 2.5 s after it. Every run still ends with the simulator's checks (liveness phase,
 * convergence, linearizability of the whole history), so a measured run is also a checked one.
 */
final class LeaseGuardExperiments {
    static final long MILLIS = 1_000_000L;
    /** Δ and the election timeout of the paper's Fig. 7. */
    static final long LEASE_NANOS = 1_000 * MILLIS;
    static final long ELECTION_TIMEOUT_NANOS = 500 * MILLIS;
    static final long CRASH_AT_NANOS = 2_000 * MILLIS;
    static final long AFTER_CRASH_NANOS = 2_500 * MILLIS;
    /** The crashed leader comes back 1.5 s after its crash, after the measured outage, and catches up before the seed ends. */
    static final long RESTART_AFTER_NANOS = 1_500 * MILLIS;
    static final long BUCKET_NANOS = 50 * MILLIS;
    /** Timeline window around the crash that the CSV and plot show. */
    static final long WINDOW_BEFORE_NANOS = 500 * MILLIS;

    /** The five configurations of Fig. 7. */
    enum Variant {
        INCONSISTENT("inconsistent", "leader reads locally with no lease; a new leader commits at once"),
        QUORUM("quorum", "no lease: every read goes through the log (a quorum round)"),
        LOG_LEASE("log-lease", "lease reads; a new leader takes no command, commits nothing and serves no read until the old lease expired"),
        DEFERRED_COMMIT("deferred-commit", "lease reads + deferred commit (§3.2), no inherited reads"),
        LEASEGUARD("leaseguard", "deferred commit + inherited lease reads (§3.3): full LeaseGuard");

        final String name;
        final String description;

        Variant(String name, String description) {
            this.name = name;
            this.description = description;
        }

        SimLeases world() {
            return switch (this) {
                case INCONSISTENT -> SimLeases.of(name, factory(LeaderLeaseConfig.inconsistent(LEASE_NANOS)));
                case QUORUM -> SimLeases.NONE;
                case LOG_LEASE -> SimLeases.of(name, factory(LeaderLeaseConfig.logLease(LEASE_NANOS)));
                case DEFERRED_COMMIT -> SimLeases.of(name, factory(LeaderLeaseConfig.bounded(LEASE_NANOS).withInheritedReads(false, true)));
                case LEASEGUARD -> SimLeases.of(name, factory(LeaderLeaseConfig.bounded(LEASE_NANOS)));
            };
        }

        private static LeaseHooksFactory factory(LeaderLeaseConfig config) {
            return (nodeId, clusterSize) -> new LeaderLease(config, KeyExtractor.KV);
        }
    }

    /** Workload of a run. */
    record Workload(int keys, double zipf, int limboEntries) {}

    /**
     * Client workers: enough that the operations blocked during the outage (about 1.5 s of arrivals) do not
     * use them all up, so that reads the new leader could serve are still offered (open loop, as in the paper).
     */
    static final int WORKERS = 1500;
    /** Pipeline window and proposal queue: a new leader holds every write it accepts while it defers its commit. */
    static final int PIPELINE_SLOTS = 4000;

    /** The config of one run: 3 nodes, no random faults, {@link #WORKERS} client workers. */
    static SimConfig config(long seed, Workload workload) {
        long invokeNanos = CRASH_AT_NANOS + AFTER_CRASH_NANOS;
        // One op per ms: ~invokeNanos/1ms fault-phase invocations. The count limit must not end the fault
        // phase first (the time limit does); the liveness phase then probes a tenth of the total.
        int ops = (int) (invokeNanos / MILLIS * 12 / 10);
        return SimConfig.defaults(3, FaultProfile.NONE).withSeed(seed).withOpsPerSeed(ops)
                .withWorkload(WORKERS, workload.keys(), false, 50, MILLIS);
    }

    static SimScenario scenario(Workload workload) {
        return SimScenario.DEFAULT.withZipf(workload.zipf())
                .withClientRetries(200 * MILLIS, 40)
                .withElection(ELECTION_TIMEOUT_NANOS, -1)
                .withLeaderCrash(CRASH_AT_NANOS, workload.limboEntries(), RESTART_AFTER_NANOS)
                .withInvokeUntil(CRASH_AT_NANOS + AFTER_CRASH_NANOS)
                .withPipelineSlots(PIPELINE_SLOTS)
                .withFixedLan();
    }

    static ScenarioResult run(Variant variant, long seed, Workload workload) {
        return Simulation.runScenario(config(seed, workload), variant.world(), scenario(workload));
    }

    /** Reads and writes completed OK per bucket, relative to the crash: buckets from -WINDOW_BEFORE to +AFTER_CRASH. */
    static double[][] timeline(ScenarioResult run) {
        int buckets = (int) ((WINDOW_BEFORE_NANOS + AFTER_CRASH_NANOS) / BUCKET_NANOS);
        double[][] perSecond = new double[2][buckets];
        long start = run.crashNanos() - WINDOW_BEFORE_NANOS;
        for (SimOp op : run.ops()) {
            if (op.outcome() != SimOp.Outcome.OK || op.completeNanos() < start) {
                continue;
            }
            int bucket = (int) ((op.completeNanos() - start) / BUCKET_NANOS);
            if (bucket < buckets) {
                perSecond[op.write() ? 1 : 0][bucket] += 1e9 / BUCKET_NANOS;
            }
        }
        return perSecond;
    }

    /** Availability figures of one timeline (reads or writes per second per bucket). */
    record Recovery(double beforePerSecond, double recoveryMillis, double peakRatio) {}

    /**
     * Mean throughput in the window before the crash; the time after the crash when throughput is back to
     * half of it (the first such bucket after the first bucket below a tenth of it, so the tail of the
     * pre-crash traffic does not count); the highest post-crash bucket as a multiple of the mean before.
     */
    static Recovery recovery(double[] perSecond) {
        int crashBucket = (int) (WINDOW_BEFORE_NANOS / BUCKET_NANOS);
        double before = 0;
        for (int i = 0; i < crashBucket; i++) {
            before += perSecond[i];
        }
        before /= crashBucket;
        int i = crashBucket;
        while (i < perSecond.length && perSecond[i] >= before / 10) {
            i++;
        }
        double recovery = Double.NaN;
        for (; i < perSecond.length; i++) {
            if (perSecond[i] >= before / 2) {
                recovery = (i - crashBucket) * (BUCKET_NANOS / (double) MILLIS);
                break;
            }
        }
        double peak = 0;
        for (int j = crashBucket; j < perSecond.length; j++) {
            peak = Math.max(peak, perSecond[j]);
        }
        return new Recovery(before, recovery, before == 0 ? Double.NaN : peak / before);
    }

    /** Fig. 8: reads the new leader answered while it waited for the old lease, per second of that wait. */
    record WaitReads(double readsPerSecond, double waitMillis, long readsServed, long limbo, double beforeReadsPerSecond) {}

    static WaitReads waitReads(ScenarioResult run) {
        ScenarioResult.Election election = run.firstElectionAfter(run.crashNanos());
        if (election == null) {
            return new WaitReads(Double.NaN, Double.NaN, 0, run.limboAtCrash(), Double.NaN);
        }
        int leader = election.node();
        long firstWrite = Long.MAX_VALUE;
        for (SimOp op : run.ops()) {
            if (op.write() && op.outcome() == SimOp.Outcome.OK && op.node() == leader && op.completeNanos() > election.atNanos()) {
                firstWrite = Math.min(firstWrite, op.completeNanos());
            }
        }
        if (firstWrite == Long.MAX_VALUE) {
            return new WaitReads(Double.NaN, Double.NaN, 0, run.limboAtCrash(), Double.NaN);
        }
        long served = 0;
        long before = 0;
        long beforeStart = run.crashNanos() - WINDOW_BEFORE_NANOS;
        for (SimOp op : run.ops()) {
            if (op.write() || op.outcome() != SimOp.Outcome.OK) {
                continue;
            }
            if (op.node() == leader && op.completeNanos() >= election.atNanos() && op.completeNanos() < firstWrite) {
                served++;
            }
            if (op.completeNanos() >= beforeStart && op.completeNanos() < run.crashNanos()) {
                before++;
            }
        }
        double wait = (firstWrite - election.atNanos()) / 1e9;
        return new WaitReads(served / wait, wait * 1000, served, run.limboAtCrash(), before / (WINDOW_BEFORE_NANOS / 1e9));
    }

    static List<Double> zipfSkews(boolean quick) {
        List<Double> skews = new ArrayList<>();
        double step = quick ? 0.5 : 0.25;
        for (double s = 0; s <= 2.0 + 1e-9; s += step) {
            skews.add(Math.round(s * 100) / 100.0);
        }
        return skews;
    }
}
