package io.synod.bench.locks;

import io.synod.bench.ensemble.EnsembleOptions;
import io.synod.bench.report.Charts;
import io.synod.bench.report.CsvTable;
import io.synod.bench.report.LatencySummary;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import org.apache.curator.framework.CuratorFramework;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.XYChart;

/**
 * Runs the seed paper's experiments against a real ZooKeeper ensemble behind delay proxies and writes
 * CSV files, PNG plots and the findings table into one output directory.
 */
public final class LockExperiments {

    /**
     * Everything a run needs besides the cluster. {@code ensembleSize} and {@code lockFactory} are the ZooKeeper
     * backend's; {@code synodLocks} the Synod backend's (null when this build has none).
     */
    public record Config(Profile profile, Path outDir, int ensembleSize, Set<Experiment> experiments, long seed,
                         int clientCount, boolean keepServerFiles, LockUnderTest.Factory lockFactory, Backend backend,
                         SynodLockFactory synodLocks) {

        /** The ZooKeeper backend. */
        public Config(Profile profile, Path outDir, int ensembleSize, Set<Experiment> experiments, long seed,
                      int clientCount, boolean keepServerFiles, LockUnderTest.Factory lockFactory) {
            this(profile, outDir, ensembleSize, experiments, seed, clientCount, keepServerFiles, lockFactory, Backend.ZK,
                    null);
        }
    }

    /** Sequential writes per lock point that measure "client RTT + one commit" on the backend. */
    static final int WRITE_PROBES = 10;

    /**
     * Every run uses fresh paths under this root and nothing is deleted mid-run: deletes would cost
     * round trips at the injected RTTs, and the ensemble's data dir is discarded at the end anyway.
     */
    private static final String ROOT = "/synod-bench";

    private final Config config;
    private final PrintWriter out;
    private final long startNanos = System.nanoTime();
    private final Map<LockPoint, Map<LockPrimitive, LockRunResult>> lockResults = new LinkedHashMap<>();
    private final Map<LockPoint, LatencySummary> writeBaselines = new LinkedHashMap<>();
    private final CsvTable lockRuns = new CsvTable("backend", "point", "primitive", "client_rtt_ms", "server_rtt_ms",
            "inter_arrival_ms", "critical_section_ms", "clients", "requests", "completed", "timeouts", "errors",
            "unfinished", "acquire_median_ms", "acquire_p99_ms", "acquire_mean_ms", "acquire_max_ms",
            "wait_median_ms", "wait_p99_ms", "throughput_per_s", "jain_index", "inversion_rate",
            "exclusion_violations", "token_order_violations", "first_error");
    private final CsvTable lockRequests = new CsvTable("point", "primitive", "request", "client", "outcome",
            "arrival_ms", "acquire_start_ms", "acquired_ms", "critical_section_end_ms", "released_ms",
            "fencing_token");
    private LockCluster cluster;
    /** The same cluster when the backend is ZooKeeper (the ZooKeeper-only experiments need its sessions). */
    private ZkLockCluster zk;
    private List<CuratorFramework> clients = new ArrayList<>();
    private CuratorFramework admin;
    private ScheduledExecutorService timer;
    private int lockRunCounter;

    public LockExperiments(Config config, PrintWriter out) {
        this.config = config;
        this.out = out;
    }

    /** Runs the selected experiments; returns the findings (also written and printed). */
    public List<Findings.Finding> run() throws Exception {
        Files.createDirectories(config.outDir());
        progress("output directory " + config.outDir().toAbsolutePath());
        timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "critical-section-timer");
            thread.setDaemon(true);
            return thread;
        });
        try (LockCluster started = startCluster()) {
            cluster = started;
            progress(cluster.describe());
            if (cluster instanceof ZkLockCluster z) {
                zk = z;
                admin = z.admin();
                clients = z.clients();
            }
            warmUp();
            for (Experiment experiment : experimentOrder(config.backend())) {
                if (config.experiments().contains(experiment)) {
                    runExperiment(experiment);
                }
            }
        } finally {
            timer.shutdownNow();
        }
        if (lockRuns.rowCount() > 0) {
            lockRuns.write(config.outDir().resolve("lock-runs.csv"));
            lockRequests.write(config.outDir().resolve("lock-requests.csv"));
        }
        List<Findings.Finding> findings = Findings.evaluate(config.profile(), config.experiments(), lockResults);
        Findings.write(findings, config.outDir());
        progress("done");
        out.println();
        out.println(Findings.table(findings));
        String adaptive = adaptiveVersusBest();
        if (!adaptive.isEmpty()) {
            out.println(adaptive);
        }
        out.println("Files written to " + config.outDir().toAbsolutePath());
        return findings;
    }

    private LockCluster startCluster() throws Exception {
        if (config.backend() == Backend.SYNOD) {
            if (config.synodLocks() == null) {
                throw new IllegalArgumentException("the Synod backend needs a SynodLockFactory");
            }
            progress("starting a Synod cluster (" + SynodLockCluster.NODES + " server processes + ZooKeeper for election;"
                    + " client links through delay proxies, server links delayed by the peer transport)");
            Path dir = config.keepServerFiles() ? config.outDir().resolve("synod-cluster")
                    : Files.createTempDirectory("synod-lockbench-");
            return SynodLockCluster.start(dir, config.keepServerFiles(), config.clientCount(), config.synodLocks(),
                    config.seed(), out);
        }
        progress("starting a " + config.ensembleSize() + "-server ZooKeeper ensemble (separate JVMs, links through delay proxies)");
        EnsembleOptions options = EnsembleOptions.of(config.ensembleSize()).withSeed(config.seed());
        if (config.keepServerFiles()) {
            options = options.withBaseDir(config.outDir().resolve("ensemble"), true);
        }
        return ZkLockCluster.start(options, config.clientCount(), config.lockFactory());
    }

    /**
     * The order experiments run in: the paper's, except on Synod, where the experiments at server RTT 0 come
     * first and the ones that vary it (lock grid, server-RTT sweep; their points ascend in server RTT) last, so
     * the cluster restarts once per distinct server RTT (its delay is server configuration) and not back and forth.
     */
    static List<Experiment> experimentOrder(Backend backend) {
        List<Experiment> order = new ArrayList<>(List.of(Experiment.values()));
        if (backend == Backend.SYNOD) {
            order.remove(Experiment.LOCK_GRID);
            order.remove(Experiment.SERVER_RTT);
            order.add(Experiment.LOCK_GRID);
            order.add(Experiment.SERVER_RTT);
        }
        return order;
    }

    /** The lock results of this run, per point and primitive (after {@link #run}). */
    public Map<LockPoint, Map<LockPrimitive, LockRunResult>> lockResults() {
        return lockResults;
    }

    /** Per lock point: {@value #WRITE_PROBES} sequential writes from client 0, "client RTT + one commit". */
    public Map<LockPoint, LatencySummary> writeBaselines() {
        return writeBaselines;
    }

    private void runExperiment(Experiment experiment) throws Exception {
        progress("== " + experiment.cliName() + " (" + experiment.figure() + "): " + experiment.description());
        Profile p = config.profile();
        if (zk == null && (experiment == Experiment.BASELINE || experiment == Experiment.CREATE_GRID)) {
            progress(experiment.cliName() + " measures ZooKeeper operations: skipped on " + cluster.backend().label());
            return;
        }
        switch (experiment) {
            case BASELINE -> runBaseline();
            case CREATE_GRID -> runCreateGrid();
            case LOCK_GRID -> runLockGrid();
            case SERVER_RTT -> {
                List<LockPoint> points = new ArrayList<>();
                for (int serverRtt : p.serverSweepServerRttsMillis()) {
                    points.add(new LockPoint(p.serverSweepClientRttMillis(), serverRtt,
                            p.lowContentionInterArrivalMillis(), p.lowContentionServiceMillis()));
                }
                runSweep(experiment, "fig11-server-rtt", "server-server RTT (ms)", points,
                        LockPoint::serverRttMillis, "client RTT " + p.serverSweepClientRttMillis() + " ms");
            }
            case CONTENTION_HIGH_RTT, CONTENTION_LOW_RTT -> {
                boolean high = experiment == Experiment.CONTENTION_HIGH_RTT;
                int clientRtt = high ? p.highClientRttMillis() : p.lowClientRttMillis();
                List<LockPoint> points = new ArrayList<>();
                for (int service : p.contentionServiceMillis()) {
                    points.add(new LockPoint(clientRtt, 0, p.contentionInterArrivalMillis(), service));
                }
                runSweep(experiment, high ? "fig13-contention-high-rtt" : "fig14-contention-low-rtt",
                        "mean critical section (ms)", points, LockPoint::serviceMillis,
                        "client RTT " + clientRtt + " ms, inter-arrival " + p.contentionInterArrivalMillis() + " ms");
            }
            case LOW_CONTENTION_RTT, HIGH_CONTENTION_RTT -> {
                boolean low = experiment == Experiment.LOW_CONTENTION_RTT;
                int interArrival = low ? p.lowContentionInterArrivalMillis() : p.highContentionInterArrivalMillis();
                int service = low ? p.lowContentionServiceMillis() : p.highContentionServiceMillis();
                List<LockPoint> points = new ArrayList<>();
                for (int clientRtt : p.rttSweepClientRttsMillis()) {
                    points.add(new LockPoint(clientRtt, 0, interArrival, service));
                }
                runSweep(experiment, low ? "fig15-low-contention-rtt" : "fig16-high-contention-rtt",
                        "client-server RTT (ms)", points, LockPoint::clientRttMillis,
                        "inter-arrival " + interArrival + " ms, critical section " + service + " ms");
            }
        }
    }

    /**
     * Unmeasured operations at zero injected delay, so the first measured numbers are not the JIT's and
     * connection set-up's: every client creates, writes and reads a few nodes and takes an uncontended lock.
     */
    private void warmUp() throws Exception {
        progress("warm-up: unmeasured operations on every client session (JIT, connections)");
        setRtts(0, 0);
        String base = ROOT + "/warmup";
        if (zk != null) {
            ZkOpsBenchmark.prepare(admin, base);
            for (int k = 0; k < clients.size(); k++) {
                String clientBase = base + "/client-" + k;
                clients.get(k).create().forPath(clientBase);
                for (ZkOpsBenchmark.Op op : ZkOpsBenchmark.Op.values()) {
                    ZkOpsBenchmark.runSync(clients.get(k), op, clientBase, 40);
                }
            }
        } else {
            cluster.writeLatency(base + "/writes", 40);
        }
        for (LockPrimitive primitive : LockPrimitive.values()) {
            String lockPath = base + "/lock-" + primitive.name().toLowerCase();
            cluster.prepareLockPath(lockPath);
            LockWorkloadSpec spec = new LockWorkloadSpec(primitive, 2 * cluster.clientCount(), TimeUnit.MILLISECONDS.toNanos(5),
                    TimeUnit.MILLISECONDS.toNanos(1), config.seed(), Duration.ofSeconds(30), Duration.ofSeconds(30));
            new LockWorkload(spec, cluster.clientCount(), lockPath, cluster.locks(), timer).run();
        }
    }

    // ---------------------------------------------------------------- Fig. 7

    private void runBaseline() throws Exception {
        Profile p = config.profile();
        CsvTable table = new CsvTable("client_rtt_ms", "server_rtt_ms", "op", "mode", "count", "errors", "mean_ms",
                "median_ms", "p99_ms", "throughput_per_s");
        List<CategoryChart> charts = new ArrayList<>();
        int round = 0;
        for (int clientRtt : p.baselineClientRttsMillis()) {
            setRtts(clientRtt, 0);
            progress("baseline: client RTT " + clientRtt + " ms, " + p.baselineOps() + " ops of each kind, sync then async (window "
                    + p.asyncWindow() + ")");
            LinkedHashMap<String, double[]> medians = new LinkedHashMap<>();
            LinkedHashMap<String, double[]> throughput = new LinkedHashMap<>();
            List<String> categories = new ArrayList<>();
            for (ZkOpsBenchmark.Op op : ZkOpsBenchmark.Op.values()) {
                categories.add(op.label());
            }
            for (boolean async : new boolean[] {false, true}) {
                String mode = async ? "async" : "sync";
                String base = ROOT + "/ops/baseline-" + round++ + "-" + mode;
                ZkOpsBenchmark.prepare(admin, base);
                double[] medianRow = new double[categories.size()];
                double[] throughputRow = new double[categories.size()];
                CuratorFramework client = clients.get(0);
                for (ZkOpsBenchmark.Op op : ZkOpsBenchmark.Op.values()) {
                    ZkOpsBenchmark.OpResult result = async
                            ? ZkOpsBenchmark.runAsync(client, op, base, p.baselineOps(), p.asyncWindow())
                            : ZkOpsBenchmark.runSync(client, op, base, p.baselineOps());
                    table.add(clientRtt, 0, op.label(), mode, result.latency().count(), result.errors(),
                            result.latency().meanMillis(), result.latency().medianMillis(),
                            result.latency().p99Millis(), result.throughputPerSecond());
                    medianRow[op.ordinal()] = result.latency().medianMillis();
                    throughputRow[op.ordinal()] = result.throughputPerSecond();
                    progress(String.format("baseline: client RTT %d ms, %-11s %-5s median %7.2f ms, p99 %7.2f ms, %8.1f ops/s",
                            clientRtt, op.label(), mode, result.latency().medianMillis(),
                            result.latency().p99Millis(), result.throughputPerSecond()));
                }
                medians.put(mode, medianRow);
                throughput.put(mode, throughputRow);
            }
            charts.add(Charts.bars("Fig. 7: median latency, client RTT " + clientRtt + " ms", "median latency (ms)",
                    categories, medians));
            charts.add(Charts.bars("Fig. 7: throughput, client RTT " + clientRtt + " ms", "operations / s",
                    categories, throughput));
        }
        table.write(config.outDir().resolve("fig07-baseline.csv"));
        Charts.savePngGrid(charts, 2, config.outDir().resolve("fig07-baseline.png"));
    }

    // ---------------------------------------------------------------- Figs. 8-9

    private void runCreateGrid() throws Exception {
        Profile p = config.profile();
        List<Integer> clientRtts = p.createGridClientRttsMillis();
        List<Integer> serverRtts = p.createGridServerRttsMillis();
        CsvTable table = new CsvTable("client_rtt_ms", "server_rtt_ms", "mode", "count", "errors", "mean_ms",
                "median_ms", "p99_ms", "throughput_per_s");
        double[][] asyncMedian = nanGrid(serverRtts.size(), clientRtts.size());
        double[][] syncMedian = nanGrid(serverRtts.size(), clientRtts.size());
        int pointIndex = 0;
        int points = clientRtts.size() * serverRtts.size();
        for (int s = 0; s < serverRtts.size(); s++) {
            for (int c = 0; c < clientRtts.size(); c++) {
                pointIndex++;
                setRtts(clientRtts.get(c), serverRtts.get(s));
                for (boolean async : new boolean[] {true, false}) {
                    String mode = async ? "async" : "sync";
                    String base = ROOT + "/ops/create-" + pointIndex + "-" + mode;
                    ZkOpsBenchmark.prepare(admin, base);
                    ZkOpsBenchmark.OpResult result = async
                            ? ZkOpsBenchmark.runAsync(clients.get(0), ZkOpsBenchmark.Op.CREATE, base, p.createOps(), p.asyncWindow())
                            : ZkOpsBenchmark.runSync(clients.get(0), ZkOpsBenchmark.Op.CREATE, base, p.createOps());
                    table.add(clientRtts.get(c), serverRtts.get(s), mode, result.latency().count(), result.errors(),
                            result.latency().meanMillis(), result.latency().medianMillis(), result.latency().p99Millis(),
                            result.throughputPerSecond());
                    (async ? asyncMedian : syncMedian)[s][c] = result.latency().medianMillis();
                    progress(String.format("create-grid point %d/%d: client RTT %d ms, server RTT %d ms, %-5s create median %7.2f ms, p99 %7.2f ms",
                            pointIndex, points, clientRtts.get(c), serverRtts.get(s), mode,
                            result.latency().medianMillis(), result.latency().p99Millis()));
                }
            }
        }
        table.write(config.outDir().resolve("fig08-09-create-grid.csv"));
        List<String> xLabels = labels(clientRtts);
        List<String> yLabels = labels(serverRtts);
        Charts.savePng(Charts.heatmap("Fig. 8: async create, median latency (ms)", "client-server RTT (ms)", xLabels,
                "server-server RTT (ms)", yLabels, asyncMedian), config.outDir().resolve("fig08-async-create-heatmap.png"));
        Charts.savePng(Charts.heatmap("Fig. 9: sync create, median latency (ms)", "client-server RTT (ms)", xLabels,
                "server-server RTT (ms)", yLabels, syncMedian), config.outDir().resolve("fig09-sync-create-heatmap.png"));
    }

    // ---------------------------------------------------------------- Fig. 10

    private void runLockGrid() throws Exception {
        Profile p = config.profile();
        List<Integer> clientRtts = p.lockGridClientRttsMillis();
        List<Integer> serverRtts = p.lockGridServerRttsMillis();
        List<LockPoint> points = new ArrayList<>();
        for (int serverRtt : serverRtts) {
            for (int clientRtt : clientRtts) {
                points.add(new LockPoint(clientRtt, serverRtt, p.lowContentionInterArrivalMillis(),
                        p.lowContentionServiceMillis()));
            }
        }
        measureAll(Experiment.LOCK_GRID, points);
        CsvTable table = new CsvTable("client_rtt_ms", "server_rtt_ms", "primitive", "completed", "acquire_median_ms",
                "acquire_p99_ms", "acquire_mean_ms", "throughput_per_s", "jain_index", "inversion_rate");
        Map<String, ToDoubleFunction<LockRunResult>> metrics = new LinkedHashMap<>();
        metrics.put("median", r -> r.acquire().medianMillis());
        metrics.put("mean", r -> r.acquire().meanMillis());
        metrics.put("p99", r -> r.acquire().p99Millis());
        for (int s = 0; s < serverRtts.size(); s++) {
            for (int c = 0; c < clientRtts.size(); c++) {
                LockPoint point = new LockPoint(clientRtts.get(c), serverRtts.get(s), p.lowContentionInterArrivalMillis(),
                        p.lowContentionServiceMillis());
                for (LockPrimitive primitive : LockPrimitive.values()) {
                    LockRunResult result = lockResults.get(point).get(primitive);
                    table.add(point.clientRttMillis(), point.serverRttMillis(), primitive.label(), result.completed(),
                            result.acquire().medianMillis(), result.acquire().p99Millis(), result.acquire().meanMillis(),
                            result.throughputPerSecond(), result.jainIndex(), result.inversionRate());
                }
            }
        }
        table.write(config.outDir().resolve("fig10-lock-grid.csv"));
        for (Map.Entry<String, ToDoubleFunction<LockRunResult>> metric : metrics.entrySet()) {
            Map<LockPrimitive, double[][]> grids = new EnumMap<>(LockPrimitive.class);
            for (LockPrimitive primitive : LockPrimitive.values()) {
                double[][] grid = nanGrid(serverRtts.size(), clientRtts.size());
                for (int s = 0; s < serverRtts.size(); s++) {
                    for (int c = 0; c < clientRtts.size(); c++) {
                        LockPoint point = new LockPoint(clientRtts.get(c), serverRtts.get(s),
                                p.lowContentionInterArrivalMillis(), p.lowContentionServiceMillis());
                        grid[s][c] = metric.getValue().applyAsDouble(lockResults.get(point).get(primitive));
                    }
                }
                grids.put(primitive, grid);
            }
            // One colour scale for all primitives, so colours compare across panels.
            double[] scale = Charts.range(grids.values());
            List<HeatMapChart> charts = new ArrayList<>();
            for (LockPrimitive primitive : LockPrimitive.values()) {
                charts.add(Charts.heatmap("Fig. 10: " + primitive.label() + ", " + metric.getKey() + " acquire (ms)",
                        "client-server RTT (ms)", labels(clientRtts), "server-server RTT (ms)", labels(serverRtts),
                        grids.get(primitive), scale[0], scale[1]));
            }
            Charts.savePngGrid(charts, 2, config.outDir().resolve("fig10-lock-grid-" + metric.getKey() + ".png"));
        }
    }

    // ---------------------------------------------------------------- Figs. 11, 13-16

    private void runSweep(Experiment experiment, String fileStem, String xTitle, List<LockPoint> points,
                          ToIntFunction<LockPoint> xOf, String fixed) throws Exception {
        measureAll(experiment, points);
        CsvTable table = new CsvTable("x", "client_rtt_ms", "server_rtt_ms", "inter_arrival_ms", "critical_section_ms",
                "primitive", "completed", "acquire_median_ms", "acquire_p99_ms", "acquire_mean_ms", "wait_median_ms",
                "throughput_per_s", "jain_index", "inversion_rate");
        for (LockPoint point : points) {
            for (LockPrimitive primitive : LockPrimitive.values()) {
                LockRunResult r = lockResults.get(point).get(primitive);
                table.add(xOf.applyAsInt(point), point.clientRttMillis(), point.serverRttMillis(),
                        point.interArrivalMillis(), point.serviceMillis(), primitive.label(), r.completed(),
                        r.acquire().medianMillis(), r.acquire().p99Millis(), r.acquire().meanMillis(),
                        r.waitIncludingBacklog().medianMillis(), r.throughputPerSecond(), r.jainIndex(), r.inversionRate());
            }
        }
        table.write(config.outDir().resolve(fileStem + ".csv"));
        String title = experiment.figure() + " (" + fixed + ")";
        List<XYChart> charts = List.of(
                Charts.lines(title + ": mean acquire", xTitle, "mean acquire latency (ms)",
                        series(points, xOf, r -> r.acquire().meanMillis())),
                Charts.lines(title + ": median acquire", xTitle, "median acquire latency (ms)",
                        series(points, xOf, r -> r.acquire().medianMillis())),
                Charts.lines(title + ": p99 acquire", xTitle, "p99 acquire latency (ms)",
                        series(points, xOf, r -> r.acquire().p99Millis())),
                Charts.lines(title + ": throughput", xTitle, "critical sections / s",
                        series(points, xOf, LockRunResult::throughputPerSecond)),
                Charts.lines(title + ": wait-order inversions", xTitle, "inversion rate (0 = FIFO)",
                        series(points, xOf, LockRunResult::inversionRate)),
                Charts.lines(title + ": Jain's index", xTitle, "Jain's index of clients' mean acquire (1 = equal)",
                        series(points, xOf, LockRunResult::jainIndex)));
        Charts.savePngGrid(charts, 3, config.outDir().resolve(fileStem + ".png"));
    }

    private List<Charts.Series> series(List<LockPoint> points, ToIntFunction<LockPoint> xOf,
                                       ToDoubleFunction<LockRunResult> metric) {
        List<Charts.Series> series = new ArrayList<>();
        for (LockPrimitive primitive : LockPrimitive.values()) {
            double[] x = new double[points.size()];
            double[] y = new double[points.size()];
            for (int i = 0; i < points.size(); i++) {
                x[i] = xOf.applyAsInt(points.get(i));
                y[i] = metric.applyAsDouble(lockResults.get(points.get(i)).get(primitive));
            }
            series.add(new Charts.Series(primitive.label(), x, y));
        }
        return series;
    }

    /** Measures every primitive at every point not measured yet (shared points are measured once). */
    private void measureAll(Experiment experiment, List<LockPoint> points) throws Exception {
        int index = 0;
        for (LockPoint point : points) {
            index++;
            if (lockResults.containsKey(point)) {
                progress(experiment.cliName() + " point " + index + "/" + points.size() + ": " + point.describe()
                        + " (already measured, reused)");
                continue;
            }
            setRtts(point.clientRttMillis(), point.serverRttMillis());
            LatencySummary writes = cluster.writeLatency(ROOT + "/writes/" + point.slug(), WRITE_PROBES);
            writeBaselines.put(point, writes);
            progress(String.format("%s point %d/%d: %s | %d sequential writes (client RTT + one commit): median %.1f ms,"
                            + " mean %.1f ms", experiment.cliName(), index, points.size(), point.describe(), writes.count(),
                    writes.medianMillis(), writes.meanMillis()));
            Map<LockPrimitive, LockRunResult> byPrimitive = new EnumMap<>(LockPrimitive.class);
            for (LockPrimitive primitive : LockPrimitive.values()) {
                LockRunResult result = runLock(point, primitive);
                byPrimitive.put(primitive, result);
                progress(String.format("%s point %d/%d: %s | %-17s median %7.1f ms, p99 %7.1f ms, mean %7.1f ms, %5.2f/s, "
                                + "Jain %.2f, inversions %.2f, %d/%d ok%s",
                        experiment.cliName(), index, points.size(), point.describe(), primitive.label(),
                        result.acquire().medianMillis(), result.acquire().p99Millis(), result.acquire().meanMillis(),
                        result.throughputPerSecond(), result.jainIndex(), result.inversionRate(), result.completed(),
                        result.spec().requestCount(),
                        result.firstError() == null ? "" : " (" + result.firstError() + ")"));
            }
            lockResults.put(point, byPrimitive);
        }
    }

    private LockRunResult runLock(LockPoint point, LockPrimitive primitive) throws Exception {
        Profile p = config.profile();
        LockWorkloadSpec spec = new LockWorkloadSpec(primitive, p.lockRequestsPerRun(),
                TimeUnit.MILLISECONDS.toNanos(point.interArrivalMillis()),
                TimeUnit.MILLISECONDS.toNanos(point.serviceMillis()), point.seed(config.seed()), p.acquireTimeout(),
                p.runTimeout());
        String lockPath = ROOT + "/locks/run-" + (++lockRunCounter) + "-" + primitive.name().toLowerCase();
        // The lock node exists before the run, as for a long-lived lock: otherwise the first request of every
        // run would also pay for creating its parents.
        cluster.prepareLockPath(lockPath);
        LockRunResult result = new LockWorkload(spec, cluster.clientCount(), lockPath, cluster.locks(), timer).run();
        recordLockRun(point, primitive, result);
        return result;
    }

    private void recordLockRun(LockPoint point, LockPrimitive primitive, LockRunResult r) {
        lockRuns.add(config.backend().cliName(), point.slug(), primitive.label(), point.clientRttMillis(), point.serverRttMillis(),
                point.interArrivalMillis(), point.serviceMillis(), r.clientCount(), r.spec().requestCount(),
                r.completed(), r.timeouts(), r.errors(), r.unfinished(), r.acquire().medianMillis(),
                r.acquire().p99Millis(), r.acquire().meanMillis(), r.acquire().maxMillis(),
                r.waitIncludingBacklog().medianMillis(), r.waitIncludingBacklog().p99Millis(), r.throughputPerSecond(),
                r.jainIndex(), r.inversionRate(), r.exclusionViolations(), r.tokenOrderViolations(), r.firstError());
        for (LockRequestRecord q : r.requests()) {
            lockRequests.add(point.slug(), primitive.label(), q.requestIndex(), q.clientIndex(), q.outcome(),
                    relativeMillis(r, q.arrivalNanos()), relativeMillis(r, q.acquireStartNanos()),
                    relativeMillis(r, q.acquiredNanos()), relativeMillis(r, q.criticalSectionEndNanos()),
                    relativeMillis(r, q.releasedNanos()), q.fencingToken());
        }
    }

    private static Double relativeMillis(LockRunResult r, long nanos) {
        return nanos == 0 ? Double.NaN : (nanos - r.runStartNanos()) / 1e6;
    }

    /**
     * Per lock point: the adaptive lock's mean acquire latency against the best fixed primitive's (printed, and
     * written to adaptive-vs-best.csv). Empty when the adaptive lock was not measured.
     */
    private String adaptiveVersusBest() throws IOException {
        CsvTable csv = new CsvTable("point", "client_rtt_ms", "server_rtt_ms", "inter_arrival_ms", "critical_section_ms",
                "adaptive_mean_ms", "best_primitive", "best_mean_ms", "ratio", "within_target");
        StringBuilder text = new StringBuilder("Adaptive lock vs the best fixed primitive at each point (mean acquire; target <= "
                + Findings.ADAPTIVE_TARGET + " x or a tie; point = c<client RTT>-s<server RTT>-ia<inter-arrival>-cs<critical"
                + " section>, in ms)\n");
        text.append(String.format("%-22s %11s  %-18s %10s %6s%n", "point", "adaptive", "best fixed", "best", "ratio"));
        for (Map.Entry<LockPoint, Map<LockPrimitive, LockRunResult>> entry : lockResults.entrySet()) {
            Optional<Findings.AdaptiveRatio> ratio = Findings.adaptiveRatio(entry.getValue());
            if (ratio.isEmpty()) {
                continue;
            }
            LockPoint point = entry.getKey();
            double adaptiveMean = entry.getValue().get(LockPrimitive.ADAPTIVE).acquire().meanMillis();
            double bestMean = entry.getValue().get(ratio.get().best()).acquire().meanMillis();
            csv.add(point.slug(), point.clientRttMillis(), point.serverRttMillis(), point.interArrivalMillis(),
                    point.serviceMillis(), adaptiveMean, ratio.get().best().label(), bestMean, ratio.get().ratio(),
                    ratio.get().withinTarget());
            text.append(String.format(Locale.ROOT, "%-22s %8.1f ms  %-18s %7.1f ms %6.2f%s%n", point.slug(),
                    adaptiveMean, ratio.get().best().label(), bestMean, ratio.get().ratio(),
                    ratio.get().withinTarget() ? "" : "  (beyond target)"));
        }
        if (csv.rowCount() == 0) {
            return "";
        }
        csv.write(config.outDir().resolve("adaptive-vs-best.csv"));
        return text.toString();
    }

    // ---------------------------------------------------------------- helpers

    private void setRtts(int clientRttMillis, int serverRttMillis) throws Exception {
        cluster.setRtts(clientRttMillis, serverRttMillis);
    }

    private static double[][] nanGrid(int rows, int columns) {
        double[][] grid = new double[rows][columns];
        for (double[] row : grid) {
            Arrays.fill(row, Double.NaN);
        }
        return grid;
    }

    private static List<String> labels(List<Integer> values) {
        return values.stream().map(String::valueOf).toList();
    }

    private void progress(String message) {
        double elapsedSeconds = (System.nanoTime() - startNanos) / 1e9;
        out.printf("[%7.1fs] %s | %s%n", elapsedSeconds, config.backend().cliName(), message);
        out.flush();
    }

    /** The experiments in paper order, as a set. */
    public static Set<Experiment> allExperiments() {
        return EnumSet.allOf(Experiment.class);
    }
}
