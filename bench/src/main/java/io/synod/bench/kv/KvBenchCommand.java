package io.synod.bench.kv;

import io.synod.bench.BenchCli;
import io.synod.bench.ensemble.EnsembleOptions;
import io.synod.bench.ensemble.ZkEnsemble;
import io.synod.bench.report.Charts;
import io.synod.bench.report.CsvTable;
import io.synod.server.cli.ClusterFile;
import io.synod.server.cli.DemoCommand;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import org.knowm.xchart.CategoryChart;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code synod bench kv}: a real 3-server ZooKeeper 3.9.5 ensemble (fsync on) and Synod clusters of
 * real processes (3 nodes x 4 groups, 3 nodes x 1 group, 1 node x 4 groups), measured one after the
 * other in the same run with the same value sizes, client threads and in-flight window: pipelined
 * write throughput for 128 B, 1 KiB and 8 KiB values, sync write latency, linearizable read throughput
 * and latency. Prints a table with the ratio Synod (3 x 4) / ZooKeeper per row; writes kv.csv and kv.png.
 * Synod clusters speak mutual TLS, as they do by default; the 3 x 4 cluster is measured once more with
 * {@code --insecure} (row {@code synod-3x4-insecure}) and the ratio TLS / no TLS per row is the cost of TLS.
 * The servers' cost per write (CPU, user and system, context switches, disk, fsyncs, peer frames) is taken over
 * each row's measured part, after a warm-up phase per system that waits (bounded) for the JIT to settle.
 */
@Command(name = "kv", mixinStandardHelpOptions = true, usageHelpWidth = BenchCli.HELP_WIDTH,
        description = {"Key-value throughput and latency: ZooKeeper 3.9.5 (3 servers, fsync on) vs Synod clusters of real",
                "processes, side by side in one run; table with the ratio Synod/ZooKeeper, CSV and PNG under --out."})
public final class KvBenchCommand implements Callable<Integer> {
    static final int[] VALUE_SIZES = {128, 1024, 8192};

    @Spec
    CommandSpec spec;

    @Option(names = "--quick", description = "short measurements (1 s warm-up + 3 s each, after a warm-up phase of at most "
            + "20 s per system; the whole run about 5 minutes)")
    boolean quick;

    @Option(names = "--out", paramLabel = "DIR", description = "output directory (default bench-results/kv-<UTC timestamp>)")
    Path outDir;

    @Option(names = "--threads", defaultValue = "4", description = "client threads issuing operations (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--window", defaultValue = "64", description = "operations in flight in total (default ${DEFAULT-VALUE})")
    int window;

    @Option(names = "--keys", defaultValue = "1000", description = "distinct keys written and read (default ${DEFAULT-VALUE})")
    int keys;

    @Option(names = "--systems", split = ",", paramLabel = "NAME",
            description = "which systems to run, of: zookeeper-3, synod-3x4, synod-3x4-insecure, synod-3x1, synod-1x4 "
                    + "(default: all)")
    List<String> systems;

    @Option(names = "--insecure", description = "run every Synod cluster without TLS (synod cluster start --insecure); "
            + "by default they speak mutual TLS and synod-3x4-insecure measures the same cluster without it")
    boolean insecure;

    @Option(names = "--lease-reads", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "also measure the read row: lease reads vs log reads on a 3-node lease=leader cluster "
                    + "(default on; --no-lease-reads skips it)")
    boolean leaseReads;

    @Option(names = "--quorum-reads", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "also measure the quorum-lease row: reads at a follower (readFrom) vs log reads on a 3-node "
                    + "lease=quorum cluster (default on; --no-quorum-reads skips it)")
    boolean quorumReads;

    @Option(names = "--sweep", description = "also run the 1 KiB and 8 KiB async write rows at windows "
            + "16, 64, 256 and 1024 on every system and print each system's best and the best ratio")
    boolean sweep;

    @Option(names = "--set", paramLabel = "KEY=VALUE",
            description = "a server setting for every Synod cluster of the run (synod cluster start --set), e.g. "
                    + "group.workers=1: to compare a setting's cost per write in the same run; repeatable")
    List<String> serverSets = new ArrayList<>();

    @Option(names = "--settle-seconds", paramLabel = "S",
            description = "bound of each system's warm-up phase before its first measured row: 1 KiB async writes in "
                    + "slices until the JIT compiler threads spend at most 10%% of the servers' CPU and the CPU per "
                    + "write of two slices in a row agrees within 10%%, at most S seconds (default 20 with --quick, 60 without; 0 skips the phase)")
    Integer settleSeconds;

    /** Two slices in a row whose CPU per write differs by at most this share: the servers are warm. */
    static final double SETTLED = 0.10;
    /** At least this many slices, however steady: the first slice after start-up is never trusted alone. */
    static final int MIN_SLICES = 3;

    static final int[] SWEEP_WINDOWS = {16, 64, 256, 1024};
    static final int[] SWEEP_SIZES = {1024, 8192};

    private PrintWriter out;
    private long startNanos;
    private long settleMillis;
    private long sliceMillis;

    private static final String ZK = "zookeeper-3";
    private static final String SYNOD = "synod-3x4";
    /** Synod 3 x 4 without TLS: the denominator of the cost of TLS. */
    private static final String SYNOD_PLAIN = "synod-3x4-insecure";
    private static final List<String> ALL = List.of(ZK, SYNOD, SYNOD_PLAIN, "synod-3x1", "synod-1x4");

    @Override
    public Integer call() throws Exception {
        if (threads < 1 || threads > 64) {
            throw new ParameterException(spec.commandLine(), "--threads must be 1..64, got " + threads);
        }
        if (window < threads || window > 1024) {
            throw new ParameterException(spec.commandLine(), "--window must be --threads..1024, got " + window);
        }
        if (keys < 1 || keys > 100_000) {
            throw new ParameterException(spec.commandLine(), "--keys must be 1..100000, got " + keys);
        }
        // With --insecure every cluster runs without TLS, so the row without TLS would only repeat synod-3x4.
        List<String> chosen = systems != null ? systems
                : ALL.stream().filter(s -> !(insecure && s.equals(SYNOD_PLAIN))).toList();
        for (String s : chosen) {
            if (!ALL.contains(s)) {
                throw new ParameterException(spec.commandLine(), "unknown system '" + s + "' (choose of " + String.join(", ", ALL) + ")");
            }
        }
        Path dir = outDir != null ? outDir : Path.of("bench-results", "kv-"
                + ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        BenchCli.requireWritableDirectory(spec, "--out", dir);
        out = spec.commandLine().getOut();
        startNanos = System.nanoTime();
        long warmup = quick ? 1_000 : 3_000;
        long measure = quick ? 3_000 : 10_000;
        int settle = settleSeconds != null ? settleSeconds : quick ? 20 : 60;
        if (settle < 0 || settle > 3600) {
            throw new ParameterException(spec.commandLine(), "--settle-seconds must be 0..3600, got " + settle);
        }
        settleMillis = settle * 1000L;
        sliceMillis = quick ? 2_000 : 4_000;
        progress("bench kv: %s, %d client threads, window %d, %d keys, warm-up phase per system up to %d s, then %d ms "
                        + "warm-up + %d ms per measurement (costs over the measured part only), Synod %s",
                quick ? "quick" : "full", threads, window, keys, settle, warmup, measure,
                insecure ? "INSECURE (no TLS)" : "over mutual TLS (" + SYNOD_PLAIN + " without)");
        Map<String, Map<String, Double>> results = new LinkedHashMap<>();
        for (String system : chosen) {
            results.put(system, measureSystem(system, dir, warmup, measure));
        }
        int code = report(dir, chosen, results);
        if (leaseReads) {
            Path leaseDir = dir.resolve("work").resolve("synod-3x4-lease");
            deleteTree(leaseDir);
            LeaseReadRow.Result row = LeaseReadRow.measure(leaseDir, threads, window, keys, warmup, measure,
                    this::scramble, insecure, out, line -> progress("%s", line));
            deleteTree(leaseDir);
            LeaseReadRow.report(row, dir, out);
        }
        if (quorumReads) {
            Path quorumDir = dir.resolve("work").resolve("synod-3x4-quorum");
            deleteTree(quorumDir);
            QuorumReadRow.Result row = QuorumReadRow.measure(quorumDir, threads, window, keys, warmup, measure,
                    this::scramble, insecure, out, line -> progress("%s", line));
            deleteTree(quorumDir);
            QuorumReadRow.report(row, dir, out);
        }
        return code;
    }

    private Map<String, Double> measureSystem(String system, Path dir, long warmup, long measure) throws Exception {
        progress("%s: starting", system);
        if (system.equals(ZK)) {
            Path zkDir = dir.resolve("work").resolve(system);
            try (ZkEnsemble ensemble = ZkEnsemble.start(EnsembleOptions.of(3).withForceSync(true).withBaseDir(zkDir, false));
                 ZkTarget target = new ZkTarget(system, ensemble.directConnectString(), threads, keys, 1024)) {
                progress("%s: 3 ZooKeeper 3.9.5 server JVMs up (forceSync=yes), %d client sessions", system, threads);
                ServerCost cost = new ServerCost(ensemble.servers().stream().map(ZkEnsemble.ServerNode::pid).toList(),
                        zkDir, List.of());
                return measureTarget(target, cost, warmup, measure);
            } finally {
                deleteTree(zkDir);
            }
        }
        String shape = system.substring("synod-".length()).replace("-insecure", "");
        int nodes = Integer.parseInt(shape.substring(0, shape.indexOf('x')));
        int groups = Integer.parseInt(shape.substring(shape.indexOf('x') + 1));
        boolean plain = insecure || system.equals(SYNOD_PLAIN);
        Path clusterDir = dir.resolve("work").resolve(system);
        deleteTree(clusterDir);
        boolean ok = false;
        try (ProcessCluster cluster = ProcessCluster.start(clusterDir, nodes, groups, 4_000, serverSets, out, false, plain)) {
            int clientWindow = sweep ? Math.max(window, SWEEP_WINDOWS[SWEEP_WINDOWS.length - 1]) : window;
            try (SynodTarget target = new SynodTarget(system, new SdkKvClient(cluster.clientAddresses(), clientWindow,
                    Duration.ofSeconds(30), cluster.clientTls()), groups, keys)) {
                progress("%s: %d server processes, %d groups, %s, every group has a leader", system, nodes, groups,
                        plain ? "no TLS" : "mutual TLS");
                List<ClusterFile.NodeEntry> entries = cluster.file().nodes();
                ServerCost cost = new ServerCost(entries.stream().map(ClusterFile.NodeEntry::pid).toList(), clusterDir,
                        entries.stream().map(ClusterFile.NodeEntry::metricsPort).toList());
                Map<String, Double> r = measureTarget(target, cost, warmup, measure);
                ok = true;
                return r;
            }
        } finally {
            if (ok) {
                deleteTree(clusterDir);
            }
        }
    }

    static String writeMetric(int size) {
        return "async write " + sizeName(size) + " (ops/s)";
    }

    static String sizeName(int size) {
        return size >= 1024 ? (size / 1024) + " KiB" : size + " B";
    }

    static final String SYNC_P50 = "sync write 1 KiB p50 (ms)";
    static final String SYNC_P99 = "sync write 1 KiB p99 (ms)";
    static final String READ_TPUT = "lin. read 1 KiB (ops/s)";
    static final String READ_P50 = "lin. read p50 (ms)";
    static final String READ_P99 = "lin. read p99 (ms)";

    static String cpuMetric(int size) {
        return "CPU s/1k writes " + sizeName(size);
    }

    static String diskMetric(int size) {
        return "disk B/value B " + sizeName(size);
    }

    static String fsyncMetric(int size) {
        return "fsyncs/write " + sizeName(size);
    }

    /** System (kernel) CPU seconds per 1,000 writes: syscalls, wake-ups, TLS-free socket copies; part of {@link #cpuMetric}. */
    static String systemCpuMetric(int size) {
        return "sys CPU s/1k writes " + sizeName(size);
    }

    /** Context switches (voluntary + involuntary) of the server threads per acknowledged write: hand-offs show here. */
    static String switchMetric(int size) {
        return "ctx switches/write " + sizeName(size);
    }

    /** Peer frames the servers sent per acknowledged write: how well the groups' messages share frames. */
    static String peerFrameMetric(int size) {
        return "peer frames/write " + sizeName(size);
    }

    /** Peer messages per acknowledged write: the frames each would have been without batching. */
    static String peerMessageMetric(int size) {
        return "peer msgs/write " + sizeName(size);
    }

    static String sweepMetric(int size, int window) {
        return "sweep " + sizeName(size) + " w" + window + " (ops/s)";
    }

    private Map<String, Double> measureTarget(BenchTarget target, ServerCost cost, long warmup, long measure)
            throws InterruptedException, IOException {
        settle(target, cost);
        Map<String, Double> r = new LinkedHashMap<>();
        for (int size : VALUE_SIZES) {
            byte[] value = new byte[size];
            ThreadLocalRandom.current().nextBytes(value);
            CostMarks marks = new CostMarks(cost);
            LoadRun.Result res = LoadRun.run(threads, window, warmup, measure, i -> target.write(scramble(i), value), marks);
            ServerCost.Sample spent = marks.end.minus(marks.start);
            ThreadCosts.Spent byRole = marks.end.threadsSince(marks.start);
            r.put(writeMetric(size), res.opsPerSecond());
            long acked = Math.max(1, res.acknowledgedInWindow());
            r.put(cpuMetric(size), spent.cpuSeconds() * 1000.0 / acked);
            r.put(systemCpuMetric(size), spent.systemTicks() * 1000.0 / ServerCost.TICKS_PER_SECOND / acked);
            r.put(switchMetric(size), byRole.switches() / (double) acked);
            r.put(diskMetric(size), spent.diskWriteBytes() < 0 ? Double.NaN : spent.diskWriteBytes() / ((double) acked * size));
            r.put(fsyncMetric(size), spent.fsyncs() < 0 ? Double.NaN : spent.fsyncs() / (double) acked);
            r.put(peerFrameMetric(size), spent.peerFrames() < 0 ? Double.NaN : spent.peerFrames() / (double) acked);
            r.put(peerMessageMetric(size), spent.peerMessages() < 0 ? Double.NaN : spent.peerMessages() / (double) acked);
            progress("%s: cost of %d %s writes acknowledged in the measured part: %.3f CPU s per 1,000 (%.3f system), "
                            + "%.2f context switches per write (%.2f voluntary), %.2f disk bytes per value byte%s",
                    target.name(), res.acknowledgedInWindow(), sizeName(size), r.get(cpuMetric(size)),
                    r.get(systemCpuMetric(size)), r.get(switchMetric(size)), byRole.voluntary() / (double) acked,
                    r.get(diskMetric(size)),
                    (spent.fsyncs() < 0 ? "" : String.format(", %.3f fsyncs per write", r.get(fsyncMetric(size))))
                    + (spent.peerFrames() < 0 ? "" : String.format(", %.3f peer frames (%.3f messages) per write",
                            r.get(peerFrameMetric(size)), r.get(peerMessageMetric(size)))));
            progress("%s: threads, %s writes: %s", target.name(), sizeName(size), roles(byRole, acked));
            if (!spent.sentByKind().isEmpty()) {
                progress("%s: peer messages per %s write by kind: %s", target.name(), sizeName(size),
                        byKind(spent.sentByKind(), acked));
            }
            progress("%s: %s: %.0f ops/s (%.1f MiB/s), p50 %.2f ms, p99 %.2f ms, %d failed", target.name(), "async write "
                    + sizeName(size), res.opsPerSecond(), res.opsPerSecond() * size / (1 << 20), res.latency().medianMillis(),
                    res.latency().p99Millis(), res.failed());
        }
        byte[] value = new byte[1024];
        ThreadLocalRandom.current().nextBytes(value);
        LoadRun.Result sync = LoadRun.run(1, 1, warmup, measure, i -> target.write(scramble(i), value));
        r.put(SYNC_P50, sync.latency().medianMillis());
        r.put(SYNC_P99, sync.latency().p99Millis());
        progress("%s: sync write 1 KiB (1 in flight): p50 %.2f ms, p99 %.2f ms (%d writes)", target.name(),
                sync.latency().medianMillis(), sync.latency().p99Millis(), sync.completed());
        LoadRun.Result reads = LoadRun.run(threads, window, warmup, measure, i -> target.read(scramble(i)));
        r.put(READ_TPUT, reads.opsPerSecond());
        r.put(READ_P50, reads.latency().medianMillis());
        r.put(READ_P99, reads.latency().p99Millis());
        progress("%s: linearizable read 1 KiB: %.0f ops/s, p50 %.2f ms, p99 %.2f ms, %d failed", target.name(),
                reads.opsPerSecond(), reads.latency().medianMillis(), reads.latency().p99Millis(), reads.failed());
        if (sweep) {
            for (int size : SWEEP_SIZES) {
                byte[] sweepValue = new byte[size];
                ThreadLocalRandom.current().nextBytes(sweepValue);
                for (int w : SWEEP_WINDOWS) {
                    LoadRun.Result res = LoadRun.run(Math.min(threads, w), w, warmup, measure,
                            i -> target.write(scramble(i), sweepValue));
                    r.put(sweepMetric(size, w), res.opsPerSecond());
                    progress("%s: sweep: async write %s at window %d: %.0f ops/s, p50 %.2f ms, %d failed", target.name(),
                            sizeName(size), w, res.opsPerSecond(), res.latency().medianMillis(), res.failed());
                }
            }
        }
        return r;
    }

    /** Samples the servers' counters at the two marks of a {@link LoadRun}. */
    private static final class CostMarks implements LoadRun.Marks {
        private final ServerCost cost;
        ServerCost.Sample start;
        ServerCost.Sample end;

        CostMarks(ServerCost cost) {
            this.cost = cost;
        }

        @Override
        public void atStart() throws IOException, InterruptedException {
            start = cost.sample();
        }

        @Override
        public void atEnd() throws IOException, InterruptedException {
            end = cost.sample();
        }
    }

    /**
     * The warm-up phase of one system, before its first measured row: 1 KiB async writes in slices, each slice's
     * CPU per write and the JIT compiler threads' share of it printed, until a slice in which the compiler
     * threads spent at most {@link #SETTLED} of the servers' CPU and the CPU per write agrees with the slice
     * before within {@link #SETTLED} (after at least {@link #MIN_SLICES}), or {@code --settle-seconds} have
     * passed. The same rule for every system: a JVM a few seconds old spends most of its CPU compiling, and that
     * is not what a write costs.
     */
    private void settle(BenchTarget target, ServerCost cost) throws InterruptedException, IOException {
        if (settleMillis == 0) {
            return;
        }
        byte[] value = new byte[1024];
        ThreadLocalRandom.current().nextBytes(value);
        long began = System.nanoTime();
        List<String> slices = new ArrayList<>();
        double previous = Double.NaN;
        boolean settled = false;
        while (!settled && (System.nanoTime() - began) / 1_000_000 + sliceMillis <= settleMillis) {
            CostMarks marks = new CostMarks(cost);
            LoadRun.Result res = LoadRun.run(threads, window, 0, sliceMillis, i -> target.write(scramble(i), value), marks);
            ServerCost.Sample spent = marks.end.minus(marks.start);
            double perK = spent.cpuSeconds() * 1000.0 / Math.max(1, res.acknowledgedInWindow());
            double jit = compilerShare(marks.end.threadsSince(marks.start), spent.cpuTicks());
            slices.add(String.format("%.3f (JIT %.0f%%)", perK, 100 * jit));
            settled = slices.size() >= MIN_SLICES && jit <= SETTLED && Math.abs(perK - previous) <= SETTLED * previous;
            previous = perK;
        }
        progress("%s: warm-up phase %.1f s, CPU s per 1,000 1 KiB writes by %d ms slice: %s; %s", target.name(),
                (System.nanoTime() - began) / 1e9, sliceMillis, String.join(", ", slices),
                settled ? "settled" : "NOT settled within --settle-seconds " + settleMillis / 1000);
    }

    /** The share of the servers' CPU ticks that their JIT compiler threads (HotSpot's C1 and C2) spent. */
    static double compilerShare(ThreadCosts.Spent spent, long cpuTicks) {
        long jit = spent.byRole().values().stream().filter(c -> c.role().contains("CompilerThre"))
                .mapToLong(c -> c.userTicks() + c.systemTicks()).sum();
        return cpuTicks <= 0 ? 0 : jit / (double) cpuTicks;
    }

    /** The thread roles that spent the most, per acknowledged write: CPU ms per 1,000 (system part), switches. */
    static String roles(ThreadCosts.Spent spent, long acked) {
        List<ThreadCosts.Counters> top = spent.byRole().values().stream()
                .filter(c -> c.userTicks() + c.systemTicks() > 0 || c.voluntary() + c.involuntary() > acked / 100)
                .sorted((a, b) -> Long.compare(b.userTicks() + b.systemTicks(), a.userTicks() + a.systemTicks()))
                .limit(8).toList();
        StringBuilder line = new StringBuilder();
        for (ThreadCosts.Counters c : top) {
            line.append(String.format("%s%s %.0f ms/1k (%.0f sys) %.2f sw/w", line.length() == 0 ? "" : "; ", c.role(),
                    (c.userTicks() + c.systemTicks()) * 1e6 / ServerCost.TICKS_PER_SECOND / acked,
                    c.systemTicks() * 1e6 / ServerCost.TICKS_PER_SECOND / acked,
                    (c.voluntary() + c.involuntary()) / (double) acked));
        }
        return line.toString();
    }

    /** Messages per acknowledged write by kind, the kinds with any, most first: {@code accept 0.512; accepted 0.512}. */
    static String byKind(Map<String, Long> sent, long acked) {
        StringBuilder line = new StringBuilder();
        sent.entrySet().stream().filter(e -> e.getValue() > 0).sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .forEach(e -> line.append(line.length() == 0 ? "" : "; ")
                        .append(String.format("%s %.3f", e.getKey(), e.getValue() / (double) acked)));
        return line.toString();
    }

    private int scramble(int i) {
        return (int) Math.floorMod((long) i * 7919L, (long) keys);
    }

    private int report(Path dir, List<String> chosen, Map<String, Map<String, Double>> results) throws IOException {
        List<String> metrics = new ArrayList<>();
        for (int size : VALUE_SIZES) {
            metrics.add(writeMetric(size));
        }
        metrics.addAll(List.of(SYNC_P50, SYNC_P99, READ_TPUT, READ_P50, READ_P99));
        for (int size : VALUE_SIZES) {
            metrics.addAll(List.of(cpuMetric(size), systemCpuMetric(size), switchMetric(size), diskMetric(size),
                    fsyncMetric(size), peerFrameMetric(size), peerMessageMetric(size)));
        }
        if (sweep) {
            for (int size : SWEEP_SIZES) {
                for (int w : SWEEP_WINDOWS) {
                    metrics.add(sweepMetric(size, w));
                }
            }
        }
        boolean ratio = chosen.contains(ZK) && chosen.contains(SYNOD);
        boolean tlsCost = !insecure && chosen.contains(SYNOD) && chosen.contains(SYNOD_PLAIN);
        List<String> header = new ArrayList<>(List.of("metric"));
        header.addAll(chosen);
        if (ratio) {
            header.add(SYNOD + "/" + ZK);
        }
        if (tlsCost) {
            header.add(TLS_COLUMN);
        }
        CsvTable csv = new CsvTable(header);
        out.println();
        StringBuilder line = new StringBuilder(String.format("%-28s", "metric"));
        for (String h : header.subList(1, header.size())) {
            line.append(String.format(" %14s", h));
        }
        out.println(line);
        for (String m : metrics) {
            List<Object> row = new ArrayList<>(List.of(m));
            line = new StringBuilder(String.format("%-28s", m));
            for (String s : chosen) {
                double v = results.get(s).get(m);
                row.add(Double.isNaN(v) ? "" : String.format("%.4f", v));
                line.append(String.format(" %14s", cell(m, v)));
            }
            if (ratio) {
                ratioCell(results.get(SYNOD).get(m) / results.get(ZK).get(m), row, line);
            }
            if (tlsCost) {
                ratioCell(results.get(SYNOD).get(m) / results.get(SYNOD_PLAIN).get(m), row, line);
            }
            csv.add(row.toArray());
            out.println(line);
        }
        csv.write(dir.resolve("kv.csv"));
        List<CategoryChart> charts = new ArrayList<>();
        LinkedHashMap<String, double[]> tput = new LinkedHashMap<>();
        LinkedHashMap<String, double[]> lat = new LinkedHashMap<>();
        List<String> tputMetrics = new ArrayList<>();
        for (int size : VALUE_SIZES) {
            tputMetrics.add(writeMetric(size));
        }
        tputMetrics.add(READ_TPUT);
        List<String> latMetrics = List.of(SYNC_P50, SYNC_P99, READ_P50, READ_P99);
        for (String s : chosen) {
            tput.put(s, tputMetrics.stream().mapToDouble(m -> results.get(s).get(m)).toArray());
            lat.put(s, latMetrics.stream().mapToDouble(m -> results.get(s).get(m)).toArray());
        }
        charts.add(Charts.bars("Throughput (window " + window + ", " + threads + " threads)", "ops/s",
                tputMetrics.stream().map(m -> m.replace(" (ops/s)", "")).toList(), tput));
        charts.add(Charts.bars("Latency", "ms", latMetrics.stream().map(m -> m.replace(" (ms)", "")).toList(), lat));
        boolean drawn = Charts.savePngGrid(charts, 2, dir.resolve("kv.png"));
        out.println();
        String w1k = writeMetric(1024);
        if (ratio) {
            double q = results.get(SYNOD).get(w1k) / results.get(ZK).get(w1k);
            out.printf("target: 1 KiB async write throughput >= 3x ZooKeeper: %.2fx, %s%n", q, q >= 3 ? "met" : "MISSED");
        }
        if (chosen.contains(SYNOD) && chosen.contains("synod-1x4")) {
            double q = results.get(SYNOD).get(w1k) / results.get("synod-1x4").get(w1k);
            out.printf("target: 3-replica 1 KiB throughput within 30%% of 1-replica: %.2f of it, %s%n", q,
                    q >= 0.7 ? "met" : "MISSED");
        }
        if (tlsCost) {
            Map<String, Double> on = results.get(SYNOD);
            Map<String, Double> off = results.get(SYNOD_PLAIN);
            out.printf("cost of TLS (%s with mutual TLS / %s): 1 KiB async writes %.2fx, lin. reads %.2fx, "
                    + "sync write p50 %.2fx, CPU per 1 KiB write %.2fx%n", SYNOD, SYNOD_PLAIN, on.get(w1k) / off.get(w1k),
                    on.get(READ_TPUT) / off.get(READ_TPUT), on.get(SYNC_P50) / off.get(SYNC_P50),
                    on.get(cpuMetric(1024)) / off.get(cpuMetric(1024)));
        }
        if (sweep) {
            printSweep(chosen, results);
        }
        out.printf("wrote %s%s (%.1f s in all)%n", dir.resolve("kv.csv"),
                drawn ? " and " + dir.resolve("kv.png") : " (kv.png skipped: see the line above)",
                (System.nanoTime() - startNanos) / 1e9);
        out.flush();
        return 0;
    }

    /** Column of the ratio Synod 3 x 4 with TLS / without: below 1 for throughput, above 1 for latency, is TLS's cost. */
    static final String TLS_COLUMN = "TLS on/off";

    private static void ratioCell(double q, List<Object> row, StringBuilder line) {
        row.add(Double.isNaN(q) ? "" : String.format("%.2f", q));
        line.append(Double.isNaN(q) ? String.format(" %14s", "n/a") : String.format(" %13.2fx", q));
    }

    /** A table cell: latencies to 0.01 ms, rates whole, costs to 0.001, "n/a" where a system has no such figure. */
    static String cell(String metric, double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        if (metric.endsWith("(ms)")) {
            return String.format("%.2f", v);
        }
        return metric.endsWith("(ops/s)") ? String.format("%.0f", v) : String.format("%.3f", v);
    }

    /** Per swept size: each system's best window, and Synod 3x4's best over ZooKeeper's best. */
    private void printSweep(List<String> chosen, Map<String, Map<String, Double>> results) {
        out.println();
        for (int size : SWEEP_SIZES) {
            StringBuilder line = new StringBuilder("sweep " + sizeName(size) + " async writes, best window:");
            for (String s : chosen) {
                int best = bestWindow(results.get(s), size);
                line.append(String.format(" %s %.0f/s (w%d);", s, results.get(s).get(sweepMetric(size, best)), best));
            }
            if (chosen.contains(ZK) && chosen.contains(SYNOD)) {
                double q = results.get(SYNOD).get(sweepMetric(size, bestWindow(results.get(SYNOD), size)))
                        / results.get(ZK).get(sweepMetric(size, bestWindow(results.get(ZK), size)));
                line.append(String.format(" best ratio %s/%s %.2fx", SYNOD, ZK, q));
            }
            out.println(line);
        }
    }

    private static int bestWindow(Map<String, Double> result, int size) {
        int best = SWEEP_WINDOWS[0];
        for (int w : SWEEP_WINDOWS) {
            if (result.get(sweepMetric(size, w)) > result.get(sweepMetric(size, best))) {
                best = w;
            }
        }
        return best;
    }

    private void progress(String format, Object... args) {
        out.printf("[%6.1fs] %s%n", (System.nanoTime() - startNanos) / 1e9, String.format(format, args));
        out.flush();
    }

    private static void deleteTree(Path dir) throws IOException {
        DemoCommand.deleteTree(dir);
    }
}
