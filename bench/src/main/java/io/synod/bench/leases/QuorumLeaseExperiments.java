package io.synod.bench.leases;

import io.synod.core.paxos.Command;
import io.synod.sim.FaultProfile;
import io.synod.sim.LatencyMatrix;
import io.synod.sim.ScenarioResult;
import io.synod.sim.SimConfig;
import io.synod.sim.SimLeases;
import io.synod.sim.SimOp;
import io.synod.sim.SimScenario;
import io.synod.sim.Simulation;
import io.synod.leases.AutoAssignment;
import io.synod.leases.KeyAssignment;
import io.synod.leases.KeyExtractor;
import io.synod.leases.LeaderLease;
import io.synod.leases.LeaderLeaseConfig;
import io.synod.leases.QuorumLease;
import io.synod.leases.QuorumLeaseConfig;
import io.synod.sim.SimLeaseModes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The quorum-lease paper's wide-area experiments (Moraru, Andersen, Kaminsky, "Paxos Quorum Leases",
 * SoCC 2014: Fig. 6 and Table 2) in the seeded simulator: five sites (JP, CA, OR, VA, IE) with the
 * {@code ec2-five-sites} RTTs, one replica per site, the leader in California, 10 clients per site,
 * Zipf 0.99 key popularity with a different permutation per site (§5), no injected faults, the
 * simulator's fixed LAN environment for everything but the links (150 µs fsyncs, regular replica
 * configuration), whatever the seed.
 *
 * <p>Lease quorums: for {@code quorum-lease}, each key is held by the ⌊N/2⌋ + 1 sites that rank it
 * highest in the workload's own per-site popularity (a static {@link KeyAssignment}: what an assignment
 * from read statistics would converge to), so the run measures the lease mechanism, not the
 * assignment algorithm. {@code ql-auto} measures the assignment too: configurations go through the
 * log, assigned by the leader from the replicas' read counts ({@link #AUTO}), starting from the hashed
 * static assignment (version 0).
 */
final class QuorumLeaseExperiments {
    static final long MILLIS = 1_000_000L;
    static final LatencyMatrix SITES = LatencyMatrix.named("ec2-five-sites");
    static final int LEADER = SITES.indexOf("CA");
    static final int CLIENTS_PER_SITE = 10;
    static final double ZIPF = 0.99;
    /** Lease timings for RTTs up to 212 ms: t_lease 2 s, t_guard 500 ms (> the largest RTT), renew every 250 ms, t_grace 1 s. */
    static final QuorumLeaseConfig QL = QuorumLeaseConfig.quorum(2_000 * MILLIS, 500 * MILLIS, 250 * MILLIS, 1_000 * MILLIS,
            SimLeaseModes.QUORUM_DRIFT_PPM);
    /** The leader lease Δ in this setting. */
    static final long LEADER_LEASE_NANOS = 2_000 * MILLIS;
    /**
     * The replicas' pipeline window: the server's default (ReplicaConfig.defaults), not the simulator's
     * 32 slots (small to reach more states). With 32, the ~250 writes/s offered at 1:1 fill the window
     * while slots wait about an IE round trip to commit in order, and writes queue behind it.
     */
    static final int PIPELINE_SLOTS = 256;
    /** Operations invoked before this are warm-up (leases being established) and not measured. */
    static final long WARMUP_NANOS = 2_000 * MILLIS;

    /**
     * ql-auto's assignment: replicas report their 256 most-read keys (of up to 1024 counted) every 100 ms
     * (so that an idle group stops changing soon after its last read: the simulator's end-of-seed check
     * allows 100 ms) and halve their counts every 2 s (a site reads about 90 times a second over 1000
     * keys: a shorter memory forgets most of them), the leader lists the keys read at least 8 times in the reports (each
     * held by the leader plus its two top readers, a holder keeping a key unless another site reads it
     * twice as often); every other (cold) key is held by every site: reads of cold keys stay local, and
     * their rare writes wait for everyone.
     */
    static final AutoAssignment AUTO = new AutoAssignment(100 * MILLIS, 256, 1024, 1024, 8, 2.0, 20).withUnlistedToAll();

    enum Policy {
        QUORUM("quorum-lease"), QUORUM_AUTO("ql-auto"), LEADER("leader-lease"), MEGASTORE("megastore");

        final String name;

        Policy(String name) {
            this.name = name;
        }
    }

    static SimLeases world(Policy policy, long seed, int keys, ReadBreakdown breakdown) {
        return switch (policy) {
            case QUORUM -> quorumWorld(policy.name, QL.withAssignment(assignment(seed, keys)), breakdown);
            case QUORUM_AUTO -> SimLeases.of(policy.name, (nodeId, clusterSize) -> new QuorumLease(QL, KeyExtractor.KV,
                    (read, decision, nowNanos) -> breakdown.add(nodeId, read, decision, nowNanos), AUTO))
                    .withDriftWithin(SimLeaseModes.QUORUM_DRIFT_PPM, false);
            case MEGASTORE -> quorumWorld(policy.name, QL.withAssignment(KeyAssignment.ALL), breakdown);
            case LEADER -> SimLeases.of(policy.name, (nodeId, clusterSize) ->
                    new LeaderLease(LeaderLeaseConfig.bounded(LEADER_LEASE_NANOS), KeyExtractor.KV));
        };
    }

    /** {@link SimLeaseModes#quorumWorld}, with every holder's local-read decisions going to {@code breakdown}. */
    private static SimLeases quorumWorld(String name, QuorumLeaseConfig config, ReadBreakdown breakdown) {
        return SimLeases.of(name, (nodeId, clusterSize) -> new QuorumLease(config, KeyExtractor.KV,
                (read, decision, nowNanos) -> breakdown.add(nodeId, read, decision, nowNanos)))
                .withDriftWithin(SimLeaseModes.QUORUM_DRIFT_PPM, false);
    }

    /**
     * Why reads were or were not served locally (finding 2 of docs/leases.md): the decisions of each
     * site's own replica on its own clients' reads (their first attempt; a refused read then goes to the
     * leader, whose decision is not counted again), after the warm-up by the replica's clock (±2 % drift).
     * A client is mapped to its site by its first process's client id; replaced processes are left out.
     */
    static final class ReadBreakdown {
        final long[][] counts = new long[SITES.size()][QuorumLease.ReadDecision.values().length];

        void add(int node, Command read, QuorumLease.ReadDecision decision, long nowNanos) {
            long worker = read.clientId() - 1; // SimClients: client id = process + 1, processes 0.. are the workers in order
            if (nowNanos < WARMUP_NANOS || worker < 0 || worker >= (long) CLIENTS_PER_SITE * SITES.size()) {
                return;
            }
            int site = (int) (worker / CLIENTS_PER_SITE);
            if (site == node) {
                counts[site][decision.ordinal()]++;
            }
        }

        long total(int site) {
            long total = 0;
            for (long c : counts[site]) {
                total += c;
            }
            return total;
        }
    }

    /** Key "k<i>" is held by the ⌊N/2⌋ + 1 sites ranking it highest (ties: lower site index); other keys by everyone. */
    static KeyAssignment assignment(long seed, int keys) {
        int sites = SITES.size();
        int[][] order = SimScenario.siteKeyOrder(seed, sites, keys);
        int[][] rank = new int[sites][keys];
        for (int site = 0; site < sites; site++) {
            for (int r = 0; r < keys; r++) {
                rank[site][order[site][r]] = r;
            }
        }
        long[] holders = new long[keys];
        for (int key = 0; key < keys; key++) {
            Integer[] bySite = new Integer[sites];
            for (int site = 0; site < sites; site++) {
                bySite[site] = site;
            }
            final int k = key;
            Arrays.sort(bySite, (a, b) -> rank[a][k] != rank[b][k] ? Integer.compare(rank[a][k], rank[b][k]) : Integer.compare(a, b));
            for (int i = 0; i <= sites / 2; i++) {
                holders[key] |= 1L << bySite[i];
            }
        }
        return (key, clusterSize) -> {
            if (key != null && key.length() > 1 && key.charAt(0) == 'k') {
                try {
                    int index = Integer.parseInt(key.substring(1));
                    if (index >= 0 && index < keys) {
                        return holders[index];
                    }
                } catch (NumberFormatException e) {
                    // not a workload key: held by everyone
                }
            }
            return KeyAssignment.allNodes(clusterSize);
        };
    }

    static ScenarioResult run(Policy policy, long seed, int keys, int readPercent, long measuredNanos) {
        return run(policy, seed, keys, readPercent, measuredNanos, new ReadBreakdown());
    }

    static ScenarioResult run(Policy policy, long seed, int keys, int readPercent, long measuredNanos, ReadBreakdown breakdown) {
        long until = WARMUP_NANOS + measuredNanos;
        long interval = 2 * MILLIS;
        int ops = (int) (until / interval * 12 / 10);
        SimConfig config = SimConfig.defaults(SITES.size(), FaultProfile.NONE).withSeed(seed).withOpsPerSeed(ops)
                .withWorkload(CLIENTS_PER_SITE * SITES.size(), keys, false, readPercent, interval);
        SimScenario scenario = SimScenario.DEFAULT.withZipf(ZIPF).withSites(SITES, CLIENTS_PER_SITE, true)
                .withClientRetries(SimScenario.geoClientTimeoutNanos(SITES), 20).withElection(0, LEADER).withInvokeUntil(until)
                .withPipelineSlots(PIPELINE_SLOTS).withFixedLan();
        return Simulation.runScenario(config, world(policy, seed, keys, breakdown), scenario);
    }

    /** Fig. 7: the non-leader that fails (JP: not in the leader's nearest majority, so only leases can slow writes). */
    static final int FIG7_CRASHED = SITES.indexOf("JP");
    /** Fig. 7: it fails this long after the warm-up. */
    static final long FIG7_CRASH_AFTER_WARMUP_NANOS = 1_000 * MILLIS;
    /** Fig. 7: simulated time measured after the warm-up (the stall, about t_grace + t_guard + t_lease, must fit). */
    static final long FIG7_MEASURED_NANOS = 7_000 * MILLIS;

    /**
     * Quorum leases Fig. 7: as {@link #run} at 1:1, with the non-leader {@link #FIG7_CRASHED} crashing
     * {@link #FIG7_CRASH_AFTER_WARMUP_NANOS} after the warm-up and restarting after the measured window.
     */
    static ScenarioResult runFig7(Policy policy, long seed, int keys) {
        long until = WARMUP_NANOS + FIG7_MEASURED_NANOS;
        long interval = 2 * MILLIS;
        int ops = (int) (until / interval * 12 / 10);
        long crashAt = WARMUP_NANOS + FIG7_CRASH_AFTER_WARMUP_NANOS;
        SimConfig config = SimConfig.defaults(SITES.size(), FaultProfile.NONE).withSeed(seed).withOpsPerSeed(ops)
                .withWorkload(CLIENTS_PER_SITE * SITES.size(), keys, false, 50, interval);
        SimScenario scenario = SimScenario.DEFAULT.withZipf(ZIPF).withSites(SITES, CLIENTS_PER_SITE, true)
                .withClientRetries(SimScenario.geoClientTimeoutNanos(SITES), 20).withElection(0, LEADER).withInvokeUntil(until)
                .withPipelineSlots(PIPELINE_SLOTS).withFixedLan().withNodeCrash(crashAt, FIG7_CRASHED, until - crashAt + 500 * MILLIS);
        return Simulation.runScenario(config, world(policy, seed, keys, new ReadBreakdown()), scenario);
    }

    /**
     * Fig. 7 timeline: for each {@code bucketNanos} bucket of invocation time from the warm-up on, the
     * OK writes invoked then by the sites that did not fail: {bucket start ms after the crash, count,
     * median ms, max ms}.
     */
    static List<double[]> writeTimeline(ScenarioResult run, long bucketNanos) {
        long crash = run.crashNanos();
        int buckets = (int) ((WARMUP_NANOS + FIG7_MEASURED_NANOS - WARMUP_NANOS) / bucketNanos);
        List<List<Double>> byBucket = new ArrayList<>();
        for (int i = 0; i < buckets; i++) {
            byBucket.add(new ArrayList<>());
        }
        for (SimOp op : run.ops()) {
            if (op.write() && op.site() != FIG7_CRASHED && op.outcome() == SimOp.Outcome.OK && op.invokeNanos() >= WARMUP_NANOS) {
                int b = (int) ((op.invokeNanos() - WARMUP_NANOS) / bucketNanos);
                if (b < buckets) {
                    byBucket.get(b).add(op.latencyNanos() / 1e6);
                }
            }
        }
        List<double[]> rows = new ArrayList<>();
        for (int i = 0; i < buckets; i++) {
            double[] sorted = byBucket.get(i).stream().mapToDouble(Double::doubleValue).sorted().toArray();
            double start = (WARMUP_NANOS + i * bucketNanos - crash) / 1e6;
            rows.add(new double[] {start, sorted.length, percentile(sorted, 50), sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1]});
        }
        return rows;
    }

    /**
     * Fig. 7 summary over the OK writes of the sites that did not fail: {median ms of those invoked before
     * the crash; largest latency ms of those invoked in the 500 ms after it; when the stall ended, ms after
     * the crash (the latest completion after the crash of a write invoked before it or within {@code boundMs} after it that took
     * longer than 1.5 × the 90th percentile before + 20 ms); median ms of those invoked 250 ms or more after that}.
     */
    static double[] fig7Summary(ScenarioResult run, double boundMs) {
        long crash = run.crashNanos();
        List<Double> before = new ArrayList<>();
        for (SimOp op : run.ops()) {
            if (isFig7Write(op) && op.invokeNanos() < crash) {
                before.add(op.latencyNanos() / 1e6);
            }
        }
        double[] beforeSorted = before.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double beforeMedian = percentile(beforeSorted, 50);
        double slow = percentile(beforeSorted, 90) * 1.5 + 20; // slower than normal writes (to the farthest holder and back)
        double stallMax = 0;
        double stallEnd = 0;
        for (SimOp op : run.ops()) {
            double since = (op.invokeNanos() - crash) / 1e6;
            double latency = op.latencyNanos() / 1e6;
            if (!isFig7Write(op)) {
                continue;
            }
            if (since >= 0 && since < 500) {
                stallMax = Math.max(stallMax, latency);
            }
            if (since <= boundMs && since + latency > 0 && latency > slow) {
                stallEnd = Math.max(stallEnd, since + latency); // in flight at the crash, or invoked after it
            }
        }
        List<Double> after = new ArrayList<>();
        for (SimOp op : run.ops()) {
            if (isFig7Write(op) && (op.invokeNanos() - crash) / 1e6 >= stallEnd + 250) {
                after.add(op.latencyNanos() / 1e6);
            }
        }
        return new double[] {beforeMedian, stallMax, stallEnd, percentile(after.stream().mapToDouble(Double::doubleValue).sorted().toArray(), 50)};
    }

    private static boolean isFig7Write(SimOp op) {
        return op.write() && op.site() != FIG7_CRASHED && op.outcome() == SimOp.Outcome.OK && op.invokeNanos() >= WARMUP_NANOS;
    }

    /** OK latencies in ms of measured operations of one site and kind, sorted. */
    static double[] latencies(ScenarioResult run, int site, boolean writes) {
        List<Double> values = new ArrayList<>();
        for (SimOp op : run.ops()) {
            if (op.site() == site && op.write() == writes && op.outcome() == SimOp.Outcome.OK && op.invokeNanos() >= WARMUP_NANOS) {
                values.add(op.latencyNanos() / 1e6);
            }
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        return sorted;
    }

    /**
     * The least latency a write of a key held by {@code holders} can have from {@code site}: to the leader
     * and back, plus the leader's round trip to the farthest of a majority (the nearest ⌊N/2⌋ followers)
     * and of the key's holders (Moraru §3: a write commits after every holder of its key accepted it).
     */
    static double minimumWriteMillis(int site, long holders) {
        long farthest = 0;
        for (int node = 0; node < SITES.size(); node++) {
            if ((holders & (1L << node)) != 0) {
                farthest = Math.max(farthest, SITES.rttNanos(LEADER, node));
            }
        }
        double majority = minimumWriteMillis(site) - SITES.rttNanos(site, LEADER) / 1e6;
        return SITES.rttNanos(site, LEADER) / 1e6 + Math.max(majority, farthest / 1e6);
    }

    /** Measured OK writes from {@code site}: {within 1.1 × their key's least latency + 5 ms, all}. */
    static long[] writesAtKeyMinimum(ScenarioResult run, int site, KeyAssignment holders) {
        long all = 0;
        long fast = 0;
        for (SimOp op : run.ops()) {
            if (op.site() == site && op.write() && op.outcome() == SimOp.Outcome.OK && op.invokeNanos() >= WARMUP_NANOS) {
                all++;
                double min = minimumWriteMillis(site, holders.holders(op.key(), SITES.size()));
                fast += op.latencyNanos() / 1e6 <= min * 1.1 + 5 ? 1 : 0;
            }
        }
        return new long[] {fast, all};
    }

    /** The lease configuration of {@code policy} in run {@code seed} (every node for the leader lease: its writes wait for a majority only). */
    static KeyAssignment holders(Policy policy, long seed, int keys) {
        return switch (policy) {
            case QUORUM -> assignment(seed, keys);
            case MEGASTORE -> KeyAssignment.ALL;
            // Holders change over the run: counted against the site's minimum (majority only), like the leader lease.
            case LEADER, QUORUM_AUTO -> (key, clusterSize) -> 0L;
        };
    }

    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(p / 100 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    static double fractionBelow(double[] sorted, double limit) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int n = 0;
        for (double v : sorted) {
            if (v < limit) {
                n++;
            }
        }
        return 100.0 * n / sorted.length;
    }

    /**
     * The least latency a write from {@code site} can have: to the leader and back, plus the leader's
     * round trip to the nearest ⌊N/2⌋ followers (a majority with itself).
     */
    static double minimumWriteMillis(int site) {
        int n = SITES.size();
        long[] rtts = new long[n - 1];
        int i = 0;
        for (int other = 0; other < n; other++) {
            if (other != LEADER) {
                rtts[i++] = SITES.rttNanos(LEADER, other);
            }
        }
        Arrays.sort(rtts);
        return (SITES.rttNanos(site, LEADER) + rtts[n / 2 - 1]) / 1e6;
    }
}
