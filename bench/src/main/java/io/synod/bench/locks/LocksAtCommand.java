package io.synod.bench.locks;

import io.synod.bench.BenchCli;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code synod bench locks-at}: the lock experiment at ONE network condition, against an ensemble that
 * is already running (for example the docker-compose ensemble whose links are delayed by tc netem).
 * Launches no servers and no proxies: the latency is whatever the network has.
 */
@Command(name = "locks-at",
        header = "The lock experiment at one network condition, against an ensemble already running.",
        mixinStandardHelpOptions = true,
        usageHelpWidth = BenchCli.HELP_WIDTH,
        sortOptions = false,
        description = {
                "Runs the lock experiment of \"The Cost of Consensus\" at one network condition against an",
                "EXISTING ZooKeeper ensemble: sync/async queue and sync/async test-and-set (TAS) locks from",
                "synod-recipes under an open-loop workload (exponential inter-arrival and critical-section",
                "times). Starts no servers and injects no delay: use it where the network already has the",
                "latency to measure (docker-compose.yml with tc netem, or real hosts).",
                "",
                "It first measures sync vs async create and get latency (a check of the network's RTTs: a get",
                "costs one client RTT; a create on a follower one client RTT plus two server RTTs), then each",
                "lock kind in turn with the same arrival and critical-section draws. Per kind it reports the",
                "median, p99 and mean acquire latency, throughput, Jain's index over the clients' mean acquire",
                "latencies, the wait-order inversion rate (0 = FIFO) and the mutual-exclusion check.",
                "All nodes live under a unique root /synod-bench/locks-at-<UTC time>-<random>, deleted at the end.",
                "Output: locks-at.csv, lock-requests.csv, ops-baseline.csv, locks-at.png, summary.md in --out.",
                ""},
        footer = {"",
                "Example: synod bench locks-at --connect zk1:2181,zk2:2181,zk3:2181 --label 'client 100 ms / server 50 ms'",
                "Exit codes: 0 success, 1 the ensemble was unreachable, the run failed or mutual exclusion was",
                "violated, 2 bad arguments."})
public final class LocksAtCommand implements Callable<Integer> {

    /** Largest request count per lock kind: keeps one invocation's duration and memory bounded. */
    static final int MAX_REQUESTS = 10_000;
    static final int MAX_CLIENTS = 64;
    static final int MAX_SERVERS = 16;
    static final int MAX_LABEL_CHARS = 200;

    @Spec
    CommandSpec spec;

    @Option(names = "--connect", required = true, paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = "The ensemble's client addresses (required).")
    String connect;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Output directory (created if missing). Default: bench-results/locks-at-<UTC timestamp>.")
    Path outDir;

    @Option(names = "--label", paramLabel = "TEXT", defaultValue = "",
            description = "The network condition, e.g. 'client 100 ms / server 50 ms'; written into every output.")
    String label;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "5",
            description = "Client sessions contending for the lock (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--requests", paramLabel = "N", defaultValue = "100",
            description = "Lock requests per lock kind, at most " + MAX_REQUESTS + " (default: ${DEFAULT-VALUE}).")
    int requests;

    @Option(names = "--interarrival-ms", paramLabel = "MS", defaultValue = "500",
            description = "Mean of the exponential inter-arrival time of lock requests (default: ${DEFAULT-VALUE}).")
    double interArrivalMillis;

    @Option(names = "--service-ms", paramLabel = "MS", defaultValue = "1",
            description = "Mean of the exponential critical section (default: ${DEFAULT-VALUE}).")
    double serviceMillis;

    @Option(names = "--locks", paramLabel = "LIST", split = ",",
            description = "Locks to measure: sync-queue, async-queue, sync-tas, async-tas (the paper's four), "
                    + "async-queue-watch, sync-tas-watch, async-tas-watch, adaptive (default: all).")
    List<String> lockNames;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42",
            description = "Seed of the arrival and critical-section draws, the same for every kind (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--session-timeout-ms", paramLabel = "MS", defaultValue = "30000",
            description = "ZooKeeper session timeout asked for by every client (default: ${DEFAULT-VALUE}).")
    int sessionTimeoutMillis;

    @Option(names = "--connect-timeout-s", paramLabel = "S", defaultValue = "60",
            description = "How long to wait for the ensemble before giving up with exit code 1 (default: ${DEFAULT-VALUE}).")
    int connectTimeoutSeconds;

    @Option(names = "--contact", paramLabel = "follower|any", defaultValue = "follower",
            description = "follower: every client connects to one follower, as the harness does, so every write "
                    + "crosses a server-server link (found with the 'srvr' four-letter word; falls back to 'any'); "
                    + "any: clients use the whole connect string (default: ${DEFAULT-VALUE}).")
    String contact;

    @Option(names = "--baseline-ops", paramLabel = "N", defaultValue = "50",
            description = "Creates and gets per mode in the sync-vs-async baseline; 0 skips it (default: ${DEFAULT-VALUE}).")
    int baselineOps;

    /** The locks under test: the recipes; a test swaps in a broken lock to see the exclusion check fire. */
    LockUnderTest.Factory lockFactory = new RecipesLocks();

    @Override
    public Integer call() {
        LocksAtRun.Config config = validate();
        BenchCli.requireWritableDirectory(spec, "--out", config.outDir());
        try {
            LocksAtRun.Outcome outcome = new LocksAtRun(config, spec.commandLine().getOut()).run();
            if (!outcome.exclusionHeld()) {
                spec.commandLine().getErr().println("synod bench locks-at: MUTUAL EXCLUSION VIOLATED (see "
                        + config.outDir().resolve("locks-at.csv") + ")");
                return 1;
            }
            return 0;
        } catch (LocksAtRun.EnsembleUnreachableException e) {
            spec.commandLine().getErr().println("synod bench locks-at: " + e.getMessage());
            return 1;
        } catch (Exception e) {
            spec.commandLine().getErr().println("synod bench locks-at: run failed: " + e);
            return 1;
        }
    }

    private LocksAtRun.Config validate() {
        List<LocksAtRun.Server> servers = parseConnect(connect);
        require(clients >= 1 && clients <= MAX_CLIENTS, "--clients must be in [1, " + MAX_CLIENTS + "], was " + clients);
        require(requests >= 1 && requests <= MAX_REQUESTS,
                "--requests must be in [1, " + MAX_REQUESTS + "], was " + requests);
        require(interArrivalMillis > 0 && interArrivalMillis <= 600_000,
                "--interarrival-ms must be in (0, 600000], was " + interArrivalMillis);
        require(serviceMillis > 0 && serviceMillis <= 600_000, "--service-ms must be in (0, 600000], was " + serviceMillis);
        require(sessionTimeoutMillis >= 1_000 && sessionTimeoutMillis <= 600_000,
                "--session-timeout-ms must be in [1000, 600000], was " + sessionTimeoutMillis);
        require(connectTimeoutSeconds >= 1 && connectTimeoutSeconds <= 3_600,
                "--connect-timeout-s must be in [1, 3600], was " + connectTimeoutSeconds);
        require(baselineOps >= 0 && baselineOps <= 10_000, "--baseline-ops must be in [0, 10000], was " + baselineOps);
        require(label.length() <= MAX_LABEL_CHARS, "--label must be at most " + MAX_LABEL_CHARS + " characters");
        require(label.chars().noneMatch(Character::isISOControl), "--label must not contain control characters");
        String contactMode = contact.toLowerCase(Locale.ROOT);
        require(contactMode.equals("follower") || contactMode.equals("any"),
                "--contact must be 'follower' or 'any', was '" + contact + "'");
        Set<LockPrimitive> kinds = EnumSet.noneOf(LockPrimitive.class);
        if (lockNames == null || lockNames.isEmpty()) {
            kinds = EnumSet.allOf(LockPrimitive.class);
        } else {
            for (String name : lockNames) {
                kinds.add(parseLockPrimitive(name));
            }
        }
        Path out = outDir != null ? outDir : Path.of("bench-results", "locks-at-"
                + ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        return new LocksAtRun.Config(servers, contactMode.equals("follower"), out, label, clients, requests,
                interArrivalMillis, serviceMillis, kinds, seed, sessionTimeoutMillis, connectTimeoutSeconds, baselineOps,
                lockFactory);
    }

    /** The CLI name of a lock: SYNC_QUEUE is sync-queue. */
    static String cliName(LockPrimitive kind) {
        return kind.cliName();
    }

    private LockPrimitive parseLockPrimitive(String name) {
        for (LockPrimitive kind : LockPrimitive.values()) {
            if (cliName(kind).equalsIgnoreCase(name.trim())) {
                return kind;
            }
        }
        throw new ParameterException(spec.commandLine(), "unknown lock '" + name + "' (choose from "
                + Arrays.stream(LockPrimitive.values()).map(LockPrimitive::cliName)
                        .collect(Collectors.joining(", ")) + ")");
    }

    private List<LocksAtRun.Server> parseConnect(String connectString) {
        List<LocksAtRun.Server> servers = new ArrayList<>();
        for (String entry : connectString.split(",", -1)) {
            String item = entry.trim();
            int colon = item.lastIndexOf(':');
            require(colon > 0 && colon < item.length() - 1,
                    "--connect entries must be HOST:PORT, got '" + item + "' in '" + connectString + "'");
            String host = item.substring(0, colon);
            require(host.matches("[A-Za-z0-9._-]+"), "bad host '" + host + "' in --connect");
            int port;
            try {
                port = Integer.parseInt(item.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new ParameterException(spec.commandLine(), "bad port in --connect entry '" + item + "'");
            }
            require(port >= 1 && port <= 65_535, "port out of range in --connect entry '" + item + "'");
            servers.add(new LocksAtRun.Server(host, port));
        }
        require(servers.size() <= MAX_SERVERS, "--connect lists more than " + MAX_SERVERS + " servers");
        return servers;
    }

    private void require(boolean condition, String message) {
        if (!condition) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}
