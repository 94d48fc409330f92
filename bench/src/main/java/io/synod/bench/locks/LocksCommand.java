package io.synod.bench.locks;

import io.synod.bench.BenchCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code synod bench locks}: the seed paper's lock experiments on a real ZooKeeper ensemble with injected latency. */
@Command(name = "locks",
        header = "The seed paper's lock experiments on a real ZooKeeper ensemble with injected latency.",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpWidth = BenchCli.HELP_WIDTH,
        description = {
                "Reproduces the experiments of \"The Cost of Consensus: Synchronization in Distributed Systems\"",
                "on a real ZooKeeper ensemble (1, 3 or 5 server JVMs on 127.0.0.1) whose client-server and",
                "server-server links pass through user-space delay proxies (this kernel has no tc netem).",
                "",
                "Locks measured at every point (synod-recipes):",
                "  the paper's four primitives, as the paper defines them (findings F1-F4 are judged on these):",
                "    sync TAS     re-create after each negative reply, one request in flight  (RETRY)",
                "    async TAS    a create every 5 ms, up to 8 in flight, until one succeeds   (POLL)",
                "    sync queue   sequential node, watch on the predecessor                    (WATCH)",
                "    async queue  create in parallel with a children listing every 5 ms       (POLL)",
                "  this project's watch-based locks: async queue/watch, sync TAS/watch, async TAS/watch",
                "  adaptive     TAS that picks WATCH or POLL from measured RTT and contention",
                "",
                "Experiments (--experiments, default all; each cites the paper figure it reproduces):",
                "  baseline             Fig. 7     sync vs async create/set/get/exists/getChildren",
                "  create-grid          Figs. 8-9  async and sync create over client RTT x server RTT",
                "  lock-grid            Fig. 10    the locks over client RTT x server RTT (heatmaps)",
                "  server-rtt           Fig. 11    server-server RTT sweep at client RTT 100 ms",
                "  contention-high-rtt  Fig. 13    critical-section sweep, client RTT 100 ms, arrivals 200 ms",
                "  contention-low-rtt   Fig. 14    critical-section sweep, client RTT 0 ms, arrivals 200 ms",
                "  low-contention-rtt   Fig. 15    client RTT sweep, critical section 1 ms, arrivals 500 ms",
                "  high-contention-rtt  Fig. 16    client RTT sweep, critical section 150 ms, arrivals 200 ms",
                "",
                "Lock requests arrive open-loop (exponential inter-arrival) and hold the lock for an exponential",
                "critical section; each request is served by the first idle client session. Reported per run:",
                "median, p99 and mean acquire latency, throughput, Jain's index over the clients' mean acquire",
                "latencies and the wait-order inversion rate (0 = FIFO). At the end: the findings table (per",
                "finding of the paper, whether this run confirms it, with the rule used) and the adaptive lock's",
                "ratio to the best fixed lock at each point. Output: CSV + PNG files in --out.",
                "",
                "Backends (--backend zk|synod|both, default zk): synod runs the same locks (SynodLocks) on a",
                "Synod cluster of 3 server processes + ZooKeeper for election; client-server RTT by delay proxies",
                "in front of the client ports, server-server RTT by the peer transport's delay (peer.delay.ms).",
                "With synod or both and no --experiments, the experiments are lock-grid and contention-high-rtt",
                "(the RTT grid and the contention levels; the others measure ZooKeeper operations), and with both",
                "--quick runs " + LocksCommand.BOTH_QUICK_REQUESTS + " requests per run so both backends fit in 10 minutes. both writes",
                "DIR/zk, DIR/synod, a combined DIR/lock-runs.csv (backend column) and the side-by-side table",
                "DIR/backend-comparison.csv/.png with the targets: Synod's uncontended TAS acquire <= 1.1 x",
                "(client RTT + one commit), and Synod's best lock at least as fast as ZooKeeper's at every point.",
                ""},
        footer = {"",
                "Profiles: --quick runs a reduced grid in under 10 minutes; --full runs the paper-sized grid",
                "(hours). With neither, --quick is used.",
                "Exit codes: 0 success, 1 the run failed, 2 bad arguments."})
public final class LocksCommand implements Callable<Integer> {

    /** Lock requests per run with {@code --backend both --quick} (unless --requests says otherwise). */
    static final int BOTH_QUICK_REQUESTS = 8;

    /** The experiments of {@code --backend synod|both} when --experiments is not given. */
    static final Set<Experiment> SYNOD_DEFAULT_EXPERIMENTS = EnumSet.of(Experiment.LOCK_GRID, Experiment.CONTENTION_HIGH_RTT);

    @Spec
    CommandSpec spec;

    @CommandLine.ArgGroup(exclusive = true)
    ProfileChoice profileChoice;

    static final class ProfileChoice {
        @Option(names = "--quick", required = true, description = "Reduced grid that finishes in under 10 minutes.")
        boolean quick;

        @Option(names = "--full", required = true, description = "Paper-sized grid: many hours. Opt-in.")
        boolean full;
    }

    @Option(names = "--out", paramLabel = "DIR",
            description = "Output directory (created if missing). Default: bench-results/locks-<UTC timestamp>.")
    Path outDir;

    @Option(names = "--backend", paramLabel = "zk|synod|both", defaultValue = "zk",
            description = "zk (ZooKeeper), synod, or both side by side (default: ${DEFAULT-VALUE}).")
    String backendText;

    @Option(names = "--ensemble-size", paramLabel = "N", defaultValue = "3",
            description = "ZooKeeper servers: 1, 3 or 5 (default: ${DEFAULT-VALUE}). The Synod cluster has 3.")
    int ensembleSize;

    @Option(names = "--experiments", paramLabel = "LIST", split = ",",
            description = "Comma-separated experiments to run (default: all). See the list above.")
    List<String> experimentNames;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42",
            description = "Seed of the arrival/critical-section draws and proxy jitter (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "5",
            description = "Client sessions (separate ZooKeeper sessions) contending for the lock (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--requests", paramLabel = "N",
            description = "Lock requests per run (per primitive and grid point); default: the profile's (quick 16, full 100).")
    Integer requests;

    @Option(names = "--keep-server-files", description = "Keep the ensemble's configs, data and logs under DIR/ensemble.")
    boolean keepServerFiles;

    @Override
    public Integer call() throws Exception {
        Set<Backend> backends;
        try {
            backends = Backend.parse(backendText);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (ensembleSize != 1 && ensembleSize != 3 && ensembleSize != 5) {
            throw new ParameterException(spec.commandLine(), "--ensemble-size must be 1, 3 or 5, was " + ensembleSize);
        }
        if (clients < 1 || clients > 64) {
            throw new ParameterException(spec.commandLine(), "--clients must be in [1, 64], was " + clients);
        }
        if (requests != null && (requests < 1 || requests > 100_000)) {
            throw new ParameterException(spec.commandLine(), "--requests must be in [1, 100000], was " + requests);
        }
        Set<Experiment> experiments = EnumSet.noneOf(Experiment.class);
        if ((experimentNames == null || experimentNames.isEmpty()) && backends.contains(Backend.SYNOD)) {
            experiments = EnumSet.copyOf(SYNOD_DEFAULT_EXPERIMENTS);
        } else if (experimentNames == null || experimentNames.isEmpty()) {
            experiments = EnumSet.allOf(Experiment.class);
        } else {
            for (String name : experimentNames) {
                try {
                    experiments.add(Experiment.fromCliName(name));
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), e.getMessage());
                }
            }
        }
        SynodLockFactory synodLocks = backends.contains(Backend.SYNOD) ? SynodLockSupport.factory() : null;
        boolean full = profileChoice != null && profileChoice.full;
        Profile profile = full ? Profile.full() : Profile.quick();
        if (profileChoice == null) {
            spec.commandLine().getOut().println("No profile given: running --quick (pass --full for the paper-sized grid).");
        }
        if (requests != null) {
            profile = profile.withLockRequestsPerRun(requests);
        } else if (!full && backends.size() > 1) {
            profile = profile.withLockRequestsPerRun(BOTH_QUICK_REQUESTS);
        }
        Path out = outDir != null ? outDir : Path.of("bench-results", "locks-"
                + ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        BenchCli.requireWritableDirectory(spec, "--out", out); // before the ensemble starts, not after
        PrintWriter printer = spec.commandLine().getOut();
        printer.println("synod bench locks: backend " + backends.stream().map(Backend::cliName).toList() + ", profile "
                + profile.name() + ", " + profile.lockRequestsPerRun() + " requests per run, ZooKeeper ensemble of "
                + ensembleSize + ", " + clients + " clients, seed " + seed + ", experiments "
                + experiments.stream().map(Experiment::cliName).toList());
        Map<Backend, BackendComparison.Measured> measured = new EnumMap<>(Backend.class);
        for (Backend backend : backends) {
            Path backendOut = backends.size() > 1 ? out.resolve(backend.cliName()) : out;
            LockExperiments.Config config = new LockExperiments.Config(profile, backendOut, ensembleSize, experiments,
                    seed, clients, keepServerFiles, new RecipesLocks(), backend, synodLocks);
            LockExperiments run = new LockExperiments(config, printer);
            run.run();
            measured.put(backend, new BackendComparison.Measured(run.lockResults(), run.writeBaselines()));
        }
        if (backends.size() > 1) {
            concatenateCsv(List.of(out.resolve("zk").resolve("lock-runs.csv"), out.resolve("synod").resolve("lock-runs.csv")),
                    out.resolve("lock-runs.csv"));
            printer.println();
            printer.println(BackendComparison.write(measured.get(Backend.ZK), measured.get(Backend.SYNOD), out));
            printer.println("Side-by-side files written to " + out.toAbsolutePath());
        } else if (backends.contains(Backend.SYNOD)) {
            printer.println();
            printer.println(BackendComparison.writeSynodOnly(measured.get(Backend.SYNOD), out));
        }
        printer.flush();
        return 0;
    }

    /** Files of the same CSV schema (header line first) as one file: one header, every row, in order. */
    static void concatenateCsv(List<Path> inputs, Path output) throws IOException {
        List<String> lines = new ArrayList<>();
        for (Path input : inputs) {
            if (!Files.exists(input)) {
                continue;
            }
            List<String> in = Files.readAllLines(input, StandardCharsets.UTF_8);
            if (in.isEmpty()) {
                continue;
            }
            if (lines.isEmpty()) {
                lines.add(in.get(0));
            } else if (!lines.get(0).equals(in.get(0))) {
                throw new IOException(input + " has another CSV header than " + inputs.get(0));
            }
            lines.addAll(in.subList(1, in.size()));
        }
        if (!lines.isEmpty()) {
            Files.write(output, lines, StandardCharsets.UTF_8);
        }
    }
}
