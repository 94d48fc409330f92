package io.synod.bench.locks;

import io.synod.bench.ensemble.ZkEnsemble;
import io.synod.bench.report.Charts;
import io.synod.bench.report.CsvTable;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZKUtil;
import org.knowm.xchart.CategoryChart;

/**
 * One run of {@code synod bench locks-at}: connects to an existing ensemble, measures a sync-vs-async
 * operation baseline and then each selected lock kind with {@link LockWorkload}, prints and writes the
 * results, and deletes everything it created. Launches no servers and injects no delay.
 */
final class LocksAtRun {

    /** One client address of the ensemble. */
    record Server(String host, int port) {
        String address() {
            return host + ":" + port;
        }
    }

    record Config(List<Server> servers, boolean contactFollower, Path outDir, String label, int clientCount,
                  int requestsPerKind, double interArrivalMillis, double serviceMillis, Set<LockPrimitive> kinds,
                  long seed, int sessionTimeoutMillis, int connectTimeoutSeconds, int baselineOps,
                  LockUnderTest.Factory lockFactory) {
    }

    /** What the command needs to pick its exit code; everything else is printed and written. */
    record Outcome(Map<LockPrimitive, LockRunResult> results, boolean exclusionHeld) {
    }

    /** The ensemble did not accept a session within the connect timeout. */
    static final class EnsembleUnreachableException extends Exception {
        EnsembleUnreachableException(String message) {
            super(message);
        }
    }

    /** Parent of every run's unique root. Left in place (other runs may be using it). */
    static final String PARENT = "/synod-bench";
    /** Acquire bound of one request: a waiter that long behind one grid point's delays means a stuck lock. */
    static final Duration ACQUIRE_TIMEOUT = Duration.ofSeconds(60);
    /** Bound of one lock run after its last arrival (the backlog drains in this time or is recorded unfinished). */
    static final Duration RUN_TIMEOUT_AFTER_LAST_ARRIVAL = Duration.ofSeconds(120);
    /** Bound on deleting this run's nodes; a cleanup that does not finish is reported, not retried. */
    static final Duration CLEANUP_TIMEOUT = Duration.ofSeconds(60);
    /** Pipelined operations in flight in the async baseline, as the harness's quick profile. */
    static final int ASYNC_WINDOW = 8;
    /** Unmeasured operations of each kind per client session before measuring (JIT, connections). */
    static final int WARM_UP_OPS = 5;
    /** srvr probe bounds: a few RTTs at the largest RTTs of the paper's grid (200 ms). */
    static final int PROBE_CONNECT_TIMEOUT_MILLIS = 3_000;
    static final int PROBE_READ_TIMEOUT_MILLIS = 5_000;

    private final Config config;
    private final PrintWriter out;
    private final long startNanos = System.nanoTime();
    private final String root;
    private final List<CuratorFramework> sessions = new ArrayList<>();

    LocksAtRun(Config config, PrintWriter out) {
        this.config = config;
        this.out = out;
        // Unique per run, so concurrent or aborted runs never share lock paths.
        this.root = PARENT + "/locks-at-" + ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                + "-" + Long.toHexString(new SplittableRandom().nextLong() & 0xffffffL);
    }

    Outcome run() throws Exception {
        progress("output directory " + config.outDir().toAbsolutePath());
        progress("condition: " + labelOrNone() + "; ensemble " + connectString(config.servers()));
        String contactString = chooseContact();
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "critical-section-timer");
            thread.setDaemon(true);
            return thread;
        });
        try {
            CuratorFramework admin = connectAll(contactString);
            progress("root " + root);
            admin.create().creatingParentsIfNeeded().forPath(root);
            List<CuratorFramework> clients = sessions.subList(1, sessions.size());
            List<ZkOpsBenchmark.OpResult> baseline;
            Map<LockPrimitive, LockRunResult> results;
            try {
                warmUp(admin, clients, timer);
                baseline = runBaseline(admin, clients.get(0));
                results = runLocks(admin, clients, timer);
            } finally {
                cleanUp(admin);
            }
            return report(contactString, baseline, results);
        } finally {
            // Sessions end before the timer, so no release callback is left pending on a closed timer.
            for (CuratorFramework session : sessions) {
                session.close();
            }
            timer.shutdownNow();
        }
    }

    /** The connect string the clients use: one follower's address (see --contact), or the whole ensemble. */
    private String chooseContact() {
        String all = connectString(config.servers());
        if (!config.contactFollower()) {
            progress("clients use the whole connect string (--contact any): each session picks a server");
            return all;
        }
        List<String> modes = new ArrayList<>();
        Server follower = null;
        for (Server server : config.servers()) {
            Optional<String> mode = ZkEnsemble.serverMode(server.host(), server.port(), PROBE_CONNECT_TIMEOUT_MILLIS,
                    PROBE_READ_TIMEOUT_MILLIS);
            modes.add(server.address() + " " + mode.orElse("(no srvr answer)"));
            if (follower == null && mode.filter("follower"::equals).isPresent()) {
                follower = server;
            }
        }
        progress("server modes: " + String.join(", ", modes));
        if (follower == null) {
            progress("no follower found (standalone server, srvr not whitelisted, or not serving yet): "
                    + "clients use the whole connect string");
            return all;
        }
        progress("clients connect to " + follower.address() + ", a follower, so every write crosses a server-server link");
        return follower.address();
    }

    /** Starts the admin session and the client sessions, all bounded by --connect-timeout-s together. */
    private CuratorFramework connectAll(String connectString) throws EnsembleUnreachableException, InterruptedException {
        long deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(config.connectTimeoutSeconds());
        for (int k = 0; k <= config.clientCount(); k++) {
            CuratorFramework session = CuratorFrameworkFactory.builder()
                    .connectString(connectString)
                    .sessionTimeoutMs(config.sessionTimeoutMillis())
                    .connectionTimeoutMs((int) Math.min(15_000, TimeUnit.SECONDS.toMillis(config.connectTimeoutSeconds())))
                    .retryPolicy(new RetryNTimes(3, 500))
                    .build();
            sessions.add(session);
            session.start();
        }
        for (CuratorFramework session : sessions) {
            long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            if (leftMillis <= 0 || !session.blockUntilConnected((int) leftMillis, TimeUnit.MILLISECONDS)) {
                throw new EnsembleUnreachableException("could not connect to ZooKeeper at " + connectString + " within "
                        + config.connectTimeoutSeconds() + " s (is the ensemble up and reachable?)"
                        + unresolvableHosts());
            }
        }
        progress("connected " + sessions.size() + " sessions (1 admin + " + config.clientCount() + " clients)");
        return sessions.get(0);
    }

    /** "; unknown host(s): a, b" for the --connect names that do not resolve (the ZooKeeper client only logs it). */
    private String unresolvableHosts() {
        List<String> unknown = new ArrayList<>();
        for (Server server : config.servers()) {
            try {
                InetAddress.getAllByName(server.host());
            } catch (UnknownHostException e) {
                unknown.add(server.host());
            }
        }
        return unknown.isEmpty() ? "" : "; unknown host(s): " + String.join(", ", unknown);
    }

    /** Unmeasured operations and one uncontended lock round per kind, so the JIT and connections are warm. */
    private void warmUp(CuratorFramework admin, List<CuratorFramework> clients, ScheduledExecutorService timer)
            throws Exception {
        progress("warm-up: " + WARM_UP_OPS + " unmeasured operations of each kind per client, one lock round per kind");
        String base = root + "/warmup";
        admin.create().forPath(base);
        for (int k = 0; k < clients.size(); k++) {
            String clientBase = base + "/client-" + k;
            clients.get(k).create().forPath(clientBase);
            for (ZkOpsBenchmark.Op op : ZkOpsBenchmark.Op.values()) {
                ZkOpsBenchmark.runSync(clients.get(k), op, clientBase, WARM_UP_OPS);
            }
        }
        for (LockPrimitive kind : config.kinds()) {
            String lockPath = base + "/lock-" + LocksAtCommand.cliName(kind);
            admin.create().forPath(lockPath);
            LockWorkloadSpec spec = new LockWorkloadSpec(kind, clients.size(), TimeUnit.MILLISECONDS.toNanos(5),
                    TimeUnit.MILLISECONDS.toNanos(1), config.seed(), ACQUIRE_TIMEOUT, RUN_TIMEOUT_AFTER_LAST_ARRIVAL);
            new LockWorkload(spec, clients, lockPath, config.lockFactory(), timer).run();
        }
    }

    /**
     * Sync vs async create and get on one client session (the paper's Fig. 7 at this condition). Also a
     * check of the network: a get is answered by the contacted server (one client RTT), a create on a
     * follower also pays the forward to the leader and the proposal round (two server RTTs).
     */
    private List<ZkOpsBenchmark.OpResult> runBaseline(CuratorFramework admin, CuratorFramework client) throws Exception {
        List<ZkOpsBenchmark.OpResult> results = new ArrayList<>();
        if (config.baselineOps() == 0) {
            progress("baseline skipped (--baseline-ops 0)");
            return results;
        }
        for (boolean async : new boolean[] {false, true}) {
            String mode = async ? "async" : "sync";
            String base = root + "/ops-" + mode;
            admin.create().forPath(base);
            for (ZkOpsBenchmark.Op op : List.of(ZkOpsBenchmark.Op.CREATE, ZkOpsBenchmark.Op.GET)) {
                ZkOpsBenchmark.OpResult result = async
                        ? ZkOpsBenchmark.runAsync(client, op, base, config.baselineOps(), ASYNC_WINDOW)
                        : ZkOpsBenchmark.runSync(client, op, base, config.baselineOps());
                results.add(result);
                progress(String.format(Locale.ROOT, "baseline: %-6s %-5s median %8.2f ms, p99 %8.2f ms, %8.1f ops/s%s",
                        op.label(), mode, result.latency().medianMillis(), result.latency().p99Millis(),
                        result.throughputPerSecond(), result.errors() == 0 ? "" : ", " + result.errors() + " errors"));
            }
        }
        return results;
    }

    private Map<LockPrimitive, LockRunResult> runLocks(CuratorFramework admin, List<CuratorFramework> clients,
                                                       ScheduledExecutorService timer) throws Exception {
        Map<LockPrimitive, LockRunResult> results = new EnumMap<>(LockPrimitive.class);
        double expectedSeconds = config.requestsPerKind() * config.interArrivalMillis() / 1000.0;
        progress(String.format(Locale.ROOT, "locks: %d kinds x %d requests, %d clients, mean inter-arrival %s ms, "
                        + "mean critical section %s ms (arrivals alone take about %.0f s per kind)",
                config.kinds().size(), config.requestsPerKind(), config.clientCount(),
                number(config.interArrivalMillis()), number(config.serviceMillis()), expectedSeconds));
        for (LockPrimitive kind : config.kinds()) {
            // The same seed for every kind: all of them see the same arrivals and critical sections.
            LockWorkloadSpec spec = new LockWorkloadSpec(kind, config.requestsPerKind(),
                    Math.round(config.interArrivalMillis() * 1e6), Math.round(config.serviceMillis() * 1e6),
                    config.seed(), ACQUIRE_TIMEOUT, RUN_TIMEOUT_AFTER_LAST_ARRIVAL);
            // The lock node exists before the run, as for a long-lived lock (the harness does the same).
            String lockPath = root + "/lock-" + LocksAtCommand.cliName(kind);
            admin.create().forPath(lockPath);
            progress(kind.label() + ": running");
            LockRunResult result = new LockWorkload(spec, clients, lockPath, config.lockFactory(), timer).run();
            results.put(kind, result);
            progress(String.format(Locale.ROOT, "%-17s median %8.1f ms, p99 %8.1f ms, mean %8.1f ms, %6.2f/s, Jain %.2f, "
                            + "inversions %.2f, %d/%d ok, %d overlapping grants, %d token-order violations%s",
                    kind.label(), result.acquire().medianMillis(), result.acquire().p99Millis(),
                    result.acquire().meanMillis(), result.throughputPerSecond(), result.jainIndex(),
                    result.inversionRate(), result.completed(), spec.requestCount(), result.exclusionViolations(),
                    result.tokenOrderViolations(), result.firstError() == null ? "" : " (" + result.firstError() + ")"));
        }
        return results;
    }

    private Outcome report(String contactString, List<ZkOpsBenchmark.OpResult> baseline,
                           Map<LockPrimitive, LockRunResult> results) throws Exception {
        Path dir = config.outDir();
        String label = config.label();
        String ensemble = connectString(config.servers());
        CsvTable locks = new CsvTable("label", "ensemble", "contact", "primitive", "clients", "requests",
                "inter_arrival_ms", "critical_section_ms", "seed", "completed", "timeouts", "errors", "unfinished",
                "acquire_median_ms", "acquire_p99_ms", "acquire_mean_ms", "acquire_max_ms", "wait_median_ms",
                "wait_p99_ms", "throughput_per_s", "jain_index", "inversion_rate", "exclusion_violations",
                "token_order_violations", "first_error");
        CsvTable requests = new CsvTable("label", "primitive", "request", "client", "outcome", "arrival_ms",
                "acquire_start_ms", "acquired_ms", "critical_section_end_ms", "released_ms", "fencing_token");
        boolean exclusionHeld = true;
        for (Map.Entry<LockPrimitive, LockRunResult> entry : results.entrySet()) {
            LockRunResult r = entry.getValue();
            locks.add(label, ensemble, contactString, entry.getKey().label(), r.clientCount(), r.spec().requestCount(),
                    config.interArrivalMillis(), config.serviceMillis(), config.seed(), r.completed(), r.timeouts(),
                    r.errors(), r.unfinished(), r.acquire().medianMillis(), r.acquire().p99Millis(),
                    r.acquire().meanMillis(), r.acquire().maxMillis(), r.waitIncludingBacklog().medianMillis(),
                    r.waitIncludingBacklog().p99Millis(), r.throughputPerSecond(), r.jainIndex(), r.inversionRate(),
                    r.exclusionViolations(), r.tokenOrderViolations(), r.firstError());
            for (LockRequestRecord q : r.requests()) {
                requests.add(label, entry.getKey().label(), q.requestIndex(), q.clientIndex(), q.outcome(),
                        relativeMillis(r, q.arrivalNanos()), relativeMillis(r, q.acquireStartNanos()),
                        relativeMillis(r, q.acquiredNanos()), relativeMillis(r, q.criticalSectionEndNanos()),
                        relativeMillis(r, q.releasedNanos()), q.fencingToken());
            }
            exclusionHeld &= r.exclusionViolations() == 0 && r.tokenOrderViolations() == 0;
        }
        locks.write(dir.resolve("locks-at.csv"));
        requests.write(dir.resolve("lock-requests.csv"));
        CsvTable ops = new CsvTable("label", "op", "mode", "count", "errors", "mean_ms", "median_ms", "p99_ms",
                "throughput_per_s");
        for (ZkOpsBenchmark.OpResult o : baseline) {
            ops.add(label, o.op().label(), o.async() ? "async" : "sync", o.latency().count(), o.errors(),
                    o.latency().meanMillis(), o.latency().medianMillis(), o.latency().p99Millis(), o.throughputPerSecond());
        }
        ops.write(dir.resolve("ops-baseline.csv"));
        writeChart(baseline, results);

        String table = table(baseline, results, exclusionHeld);
        Files.writeString(dir.resolve("summary.md"), "# synod bench locks-at\n\n"
                + "- condition: " + labelOrNone() + "\n"
                + "- ensemble: " + ensemble + "; clients connected to " + contactString + "\n"
                + "- " + config.clientCount() + " clients, " + config.requestsPerKind() + " requests per lock kind, mean "
                + "inter-arrival " + number(config.interArrivalMillis()) + " ms, mean critical section "
                + number(config.serviceMillis()) + " ms, seed " + config.seed() + "\n\n```\n" + table + "```\n",
                StandardCharsets.UTF_8);
        progress("done");
        out.println();
        out.print(table);
        out.println("Files written to " + dir.toAbsolutePath());
        out.flush();
        return new Outcome(results, exclusionHeld);
    }

    /** The printed results: one row per lock kind, then the baseline, then the exclusion verdict. */
    private String table(List<ZkOpsBenchmark.OpResult> baseline, Map<LockPrimitive, LockRunResult> results,
                         boolean exclusionHeld) {
        StringBuilder text = new StringBuilder();
        text.append("Locks at ").append(labelOrNone()).append(" (acquire latency in ms):\n");
        text.append(String.format(Locale.ROOT, "%-17s %9s %9s %9s %9s %10s %6s %10s %11s %11s%n", "lock", "ok/req",
                "median", "p99", "mean", "ops/s", "Jain", "inversions", "overlapping", "token-order"));
        int overlapping = 0;
        int tokenOrder = 0;
        for (Map.Entry<LockPrimitive, LockRunResult> entry : results.entrySet()) {
            LockRunResult r = entry.getValue();
            overlapping += r.exclusionViolations();
            tokenOrder += r.tokenOrderViolations();
            // "-": no two requests ever waited at the same time, so there is no order to invert.
            String inversions = Double.isNaN(r.inversionRate()) ? "-"
                    : String.format(Locale.ROOT, "%.2f", r.inversionRate());
            text.append(String.format(Locale.ROOT, "%-17s %9s %9.1f %9.1f %9.1f %10.2f %6.2f %10s %11d %11d%n",
                    entry.getKey().label(), r.completed() + "/" + r.spec().requestCount(), r.acquire().medianMillis(),
                    r.acquire().p99Millis(), r.acquire().meanMillis(), r.throughputPerSecond(), r.jainIndex(),
                    inversions, r.exclusionViolations(), r.tokenOrderViolations()));
        }
        if (!baseline.isEmpty()) {
            text.append("\nZooKeeper operations (ms; async with ").append(ASYNC_WINDOW).append(" in flight):\n");
            text.append(String.format(Locale.ROOT, "%-7s %-6s %9s %9s %9s %10s%n", "op", "mode", "median", "p99", "mean",
                    "ops/s"));
            for (ZkOpsBenchmark.OpResult o : baseline) {
                text.append(String.format(Locale.ROOT, "%-7s %-6s %9.2f %9.2f %9.2f %10.1f%n", o.op().label(),
                        o.async() ? "async" : "sync", o.latency().medianMillis(), o.latency().p99Millis(),
                        o.latency().meanMillis(), o.throughputPerSecond()));
            }
        }
        text.append('\n').append(exclusionHeld
                ? "Mutual exclusion held: " + overlapping + " overlapping grants, " + tokenOrder
                        + " fencing-token order violations over " + results.size() + " runs.\n"
                : "MUTUAL EXCLUSION VIOLATED: " + overlapping + " overlapping grants, " + tokenOrder
                        + " fencing-token order violations over " + results.size() + " runs.\n");
        return text.toString();
    }

    private void writeChart(List<ZkOpsBenchmark.OpResult> baseline, Map<LockPrimitive, LockRunResult> results)
            throws Exception {
        List<String> kinds = results.keySet().stream().map(LockPrimitive::label).toList();
        LinkedHashMap<String, double[]> latency = new LinkedHashMap<>();
        latency.put("median", results.values().stream().mapToDouble(r -> r.acquire().medianMillis()).toArray());
        latency.put("mean", results.values().stream().mapToDouble(r -> r.acquire().meanMillis()).toArray());
        latency.put("p99", results.values().stream().mapToDouble(r -> r.acquire().p99Millis()).toArray());
        LinkedHashMap<String, double[]> throughput = new LinkedHashMap<>();
        throughput.put("critical sections / s", results.values().stream()
                .mapToDouble(LockRunResult::throughputPerSecond).toArray());
        String condition = labelOrNone();
        List<CategoryChart> charts = new ArrayList<>();
        charts.add(Charts.bars("Acquire latency, " + condition, "acquire latency (ms)", kinds, latency));
        charts.add(Charts.bars("Throughput, " + condition, "critical sections / s", kinds, throughput));
        if (!baseline.isEmpty()) {
            List<String> ops = baseline.stream().filter(o -> !o.async()).map(o -> o.op().label()).toList();
            LinkedHashMap<String, double[]> medians = new LinkedHashMap<>();
            for (boolean async : new boolean[] {false, true}) {
                medians.put(async ? "async" : "sync", baseline.stream().filter(o -> o.async() == async)
                        .mapToDouble(o -> o.latency().medianMillis()).toArray());
            }
            charts.add(Charts.bars("Operations, " + condition, "median latency (ms)", ops, medians));
        }
        Charts.savePngGrid(charts, charts.size(), config.outDir().resolve("locks-at.png"));
    }

    /**
     * Deletes this run's root in multi batches (few round trips even at large RTTs), bounded in time.
     * A failure is reported and the run still counts: the nodes are in a path no other run uses.
     */
    private void cleanUp(CuratorFramework admin) {
        ExecutorService cleaner = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "locks-at-cleanup");
            thread.setDaemon(true);
            return thread;
        });
        try {
            Future<?> done = cleaner.submit(() -> {
                ZKUtil.deleteRecursive(admin.getZookeeperClient().getZooKeeper(), root, 1000);
                try {
                    // The shared parent goes too once the last run has removed its root.
                    admin.delete().forPath(PARENT);
                } catch (KeeperException.NotEmptyException | KeeperException.NoNodeException e) {
                    // Another run's root is still there (or another run removed the parent): leave it.
                }
                return null;
            });
            done.get(CLEANUP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            progress("deleted " + root);
        } catch (TimeoutException e) {
            progress("cleanup did not finish within " + CLEANUP_TIMEOUT.toSeconds() + " s; delete " + root + " by hand");
        } catch (Exception e) {
            progress("cleanup of " + root + " failed (" + e.getMessage() + "); delete it by hand");
        } finally {
            cleaner.shutdownNow();
        }
    }

    private String labelOrNone() {
        return config.label().isEmpty() ? "(no --label)" : config.label();
    }

    private static String connectString(List<Server> servers) {
        return servers.stream().map(Server::address).collect(Collectors.joining(","));
    }

    private static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }

    private static Double relativeMillis(LockRunResult r, long nanos) {
        return nanos == 0 ? Double.NaN : (nanos - r.runStartNanos()) / 1e6;
    }

    private void progress(String message) {
        double elapsedSeconds = (System.nanoTime() - startNanos) / 1e9;
        out.printf(Locale.ROOT, "[%7.1fs] %s%n", elapsedSeconds, message);
        out.flush();
    }
}
