package io.synod.server.cli;

import io.synod.core.history.HistoryJson;
import io.synod.sim.FaultProfile;
import io.synod.sim.Mutation;
import io.synod.sim.SimCoding;
import io.synod.sim.SimConfig;
import io.synod.sim.SimLeases;
import io.synod.sim.SimMembershipChanges;
import io.synod.sim.SimResult;
import io.synod.sim.SimScenario;
import io.synod.sim.Simulation;
import io.synod.sim.SimLeaseModes;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code synod simulate}: runs the deterministic fault simulator over a range of seeds, in
 * parallel, and reports violations with the seed and trace hash that replay them.
 */
@Command(name = "simulate",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        headerHeading = "%n",
        header = "Runs the seeded deterministic fault simulator over a range of seeds.",
        descriptionHeading = "%n",
        description = "Each seed runs the server's group driver (the real replica inside it) on N simulated nodes in virtual time, with crashes (unsynced "
                + "writes lost, last record torn), partitions, loss, duplication, reordering, clock drift and pauses, "
                + "and a hostile election oracle, then a liveness phase. Each seed's client history goes through the "
                + "linearizability checker. Exit code 0: no violation; 1: violations; 2: bad usage.%n",
        footerHeading = "%n",
        footer = "Replay a seed exactly with the same options and --start-seed S --seeds 1: it prints the same trace hash.")
final class SimulateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--nodes", paramLabel = "3|5", converter = WholeNumber.Int.class,
            description = {"Replicas in the group: 3 or 5 (with --coding: N, which may be left out here; with --coding and",
                "--membership-changes more than N: the ids past N get full copies, e.g. --nodes 6 --coding 5,1,3)."})
    Integer nodesOption;

    /** Replicas in the group, from --nodes or --coding. */
    int nodes;

    @Option(names = "--coding", paramLabel = "N,F,X",
            description = {"RS-Paxos coded accepts: N replicas tolerating F failures, values of at least "
                    + SimCoding.THRESHOLD_BYTES + " bytes coded into X data shards",
                "(X <= N - 2F; e.g. 5,1,3 or 7,2,3); clients then write a value-size mix crossing that threshold."})
    String coding;

    @Option(names = "--coding-change", paramLabel = "F,X",
            description = {"With --coding: leaders change the coding between N,F,X of --coding and N,F,X of this option",
                "every 1-15 ms of the fault phase, through the log (e.g. --coding 5,1,3 --coding-change 2,1)."})
    String codingChange;

    @Option(names = "--membership-changes",
            description = {"The group starts with N-2 voters and 2 spares (with --coding: N-1 voters, 1 spare), and leaders replace",
                "voters (add a learner, promote it, remove a voter, a crashed one first) through the fault phase",
                "(docs/membership.md); every --lease mode; with --coding: --lease none|leader|leader-timer."})
    boolean membershipChanges;

    @Option(names = "--seeds", required = true, paramLabel = "N", converter = WholeNumber.Long.class, description = "Number of seeds to run (at least 1).")
    long seeds;

    @Option(names = "--start-seed", defaultValue = "1", paramLabel = "S", converter = WholeNumber.Long.class, description = "First seed (default: ${DEFAULT-VALUE}).")
    long startSeed;

    @Option(names = "--faults", defaultValue = "all", paramLabel = "none|crash|net|clock|all",
            description = "Fault profile (default: ${DEFAULT-VALUE}).")
    String faults;

    @Option(names = "--ops-per-seed", defaultValue = "150", paramLabel = "K", converter = WholeNumber.Int.class,
            description = "Client operations per seed (at least " + SimConfig.MIN_OPS_PER_SEED + "; default: ${DEFAULT-VALUE}).")
    int opsPerSeed;

    @Option(names = "--export-history", paramLabel = "DIR",
            description = "Write each seed's history as JSON lines to DIR/seed-<S>.jsonl.")
    Path exportDir;

    @Option(names = "--threads", paramLabel = "T", converter = WholeNumber.Int.class, description = "Seeds run in parallel (default: available processors).")
    Integer threads;

    @Option(names = "--mutation", defaultValue = "none", paramLabel = "NAME",
            description = {"Self-test: run a deliberate protocol bug (negative control) that must be caught:",
                "small-write-quorum, local-reads, forget-promise, send-before-fsync, reply-before-fsync,",
                "watch-out-of-order; with --groups 2+ also shared-fsync-skips-group; with --lease quorum also holder-read-early; with --coding also",
                "coded-majority-write, phase1-few-shards, recovery-skips-crc, deferred-stale-read; with --coding-change also",
                "coding-change-stale-quorum; with --membership-changes also membership-stale-phase1, membership-learner-votes,",
                "membership-raft-rule, membership-reused-identity, and with --coding membership-coded-majority-read,",
                "membership-shared-shard (with more nodes than N) (default: ${DEFAULT-VALUE})."})
    String mutation;

    @Option(names = "--lease", defaultValue = "none", paramLabel = "none|leader|leader-timer|quorum|quorum-auto|megastore",
            description = {"Lease policy: none (reads through the log), leader (LeaseGuard leader leases on a",
                "bounded-uncertainty clock), leader-timer (timer-only leader leases with drift margin),",
                "quorum (Moraru quorum leases, static lease quorums), quorum-auto (quorum leases whose",
                "configurations go through the log, assigned from read statistics), megastore (every replica holds every key)",
                "(default: ${DEFAULT-VALUE})."})
    String lease;

    @Option(names = "--lease-control", defaultValue = "none", paramLabel = "NAME",
            description = {"Self-test: a deliberately broken lease policy that must be caught: no-deferred-commit,",
                "inherited-ignores-limbo, end-lease-keeps-reading (with --lease leader), timer-no-drift-margin (with --lease leader-timer),",
                "ql-read-pending-write, ql-commit-without-holders, ql-read-behind-promises (with --lease quorum),",
                "ql-config-drops-old-holders, ql-holder-ignores-config (with --lease quorum-auto); with --membership-changes",
                "also ql-ignores-membership (quorum), ql-auto-ignores-membership (quorum-auto), megastore-ignores-membership,",
                "ll-skips-wait-for-removed-leader (leader-timer)."})
    String leaseControl;

    @Option(names = "--clock-drift-ppm", paramLabel = "PPM", converter = WholeNumber.Long.class,
            description = {"Lease worlds: clock rates err by up to this many ppm (from the start and under clock faults),",
                "whatever the policy's drift margin. Above the mode's bound (leader-timer: 200000, quorum: 20000) it is",
                "the 'drift beyond the bound' experiment: timer leases are expected to fail (LeaseGuard §4)."})
    Long clockDriftPpm;

    /** Groups per simulated node, from --groups. */
    private int groups = 1;

    /** The lease world every seed runs in, from --lease and --lease-control. */
    private SimLeases leases = SimLeases.NONE;

    @CommandLine.Mixin
    SimWorkloadOptions workload = new SimWorkloadOptions();

    /** Workload shape and sites from the workload options ({@link SimScenario#DEFAULT} without them). */
    private SimScenario scenario = SimScenario.DEFAULT;

    @Option(names = "--bandwidth-mbit", paramLabel = "MBIT", converter = WholeNumber.Long.class,
            description = {"Cap every directed replica link at MBIT Mbit/s (a FIFO per link: messages queue behind each",
                "other and take size / rate to leave); default: unlimited."})
    Long bandwidthMbit;

    @Option(names = "--progress-seconds", defaultValue = "5", paramLabel = "SECONDS", converter = WholeNumber.Int.class,
            description = "Print a progress line this often (default: ${DEFAULT-VALUE}).")
    int progressSeconds;

    @Option(names = "--stop-after", defaultValue = "0", paramLabel = "K", converter = WholeNumber.Int.class,
            description = {"Start no further seed once K seeds violated (the seeds under way finish); a negative control",
                "needs one caught seed, not all of --seeds. 0 (default) runs every seed."})
    int stopAfter;

    /** Totals over the seeds run so far; updated by the worker threads. */
    private static final class Totals {
        long seedsRun;
        long operations;
        long okOperations;
        long failedOperations;
        long indeterminateOperations;
        long simulatedNanos;
        long localReads;
        long writesAnsweredBeforeApply;
        long replicationBytes;
        long catchUpBytes;
        long recoveryBytes;
        long otherBytes;
        long logBytes;
        long committedWrites;
        long corruptedShards;
        final List<String> violations = new ArrayList<>();
        final List<Long> violatingSeeds = new ArrayList<>();
        long membershipProposed;
        long membershipApplied;
    }

    @Override
    public Integer call() throws InterruptedException {
        SimConfig base = validatedConfig();
        int threadCount = (int) Math.min(seeds, threads == null ? Runtime.getRuntime().availableProcessors() : threads);
        PrintWriter out = spec.commandLine().getOut();
        Mutation mutationValue = base.mutation();
        out.printf("simulate: nodes %d%s, faults %s%s%s%s, seeds %d..%d, %d ops per seed%s, %d thread(s)%s%n", nodes,
                groups == 1 ? "" : ", " + groups + " groups per node (one log each)",
                base.faults().cliName(), base.coding().enabled() ? ", coding " + base.coding().coding()
                        + (base.coding().alternate() == null ? "" : " <-> " + base.coding().alternate()) : "",
                (membershipChanges ? ", membership changes" : "") + (bandwidthMbit == null ? "" : ", links " + bandwidthMbit + " Mbit/s"),
                leases == SimLeases.NONE ? "" : ", lease " + leases.name(), startSeed, startSeed + seeds - 1, opsPerSeed,
                groups == 1 ? "" : " and group", threadCount,
                mutationValue == Mutation.NONE ? "" : ", mutation " + mutationValue.cliName() + " (self-test: violations expected)");
        out.flush();
        if (workload.any()) {
            out.printf("workload: %d keys, zipf %s, %d%% reads%s%n", base.keys(),
                    Double.isNaN(scenario.zipfExponent()) ? (base.zipfKeys() ? "1" : "0") : String.valueOf(scenario.zipfExponent()),
                    base.readPercent(), scenario.latency() == null ? "" : ", sites " + scenario.latency().sites()
                            + (scenario.hasSites() ? ", " + scenario.clientsPerSite() + " clients per site" : "")
                            + (scenario.perSiteKeyOrder() ? ", per-site key popularity" : ""));
            out.flush();
        }

        Totals totals = new Totals();
        AtomicLong nextSeed = new AtomicLong(startSeed);
        long endSeed = startSeed + seeds;
        long startNanos = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(threadCount, runnable -> {
            Thread thread = new Thread(runnable, "simulate");
            thread.setDaemon(true);
            return thread;
        });
        for (int i = 0; i < threadCount; i++) {
            pool.execute(() -> {
                for (long seed = nextSeed.getAndIncrement(); seed < endSeed && !stopped(totals); seed = nextSeed.getAndIncrement()) {
                    runSeed(base.withSeed(seed), totals, out);
                }
            });
        }
        pool.shutdown();
        while (!pool.awaitTermination(progressSeconds, TimeUnit.SECONDS)) {
            synchronized (totals) {
                double elapsed = (System.nanoTime() - startNanos) / 1e9;
                out.printf("progress: %d/%d seeds, %d violation(s), %.1f seeds/s, %.0f s elapsed%n", totals.seedsRun, seeds,
                        totals.violatingSeeds.size(), totals.seedsRun / elapsed, elapsed);
                out.flush();
            }
        }
        double wallSeconds = (System.nanoTime() - startNanos) / 1e9;
        return summarize(totals, wallSeconds, out);
    }

    /** Whether {@code --stop-after} violating seeds were found, so no further seed starts. */
    private boolean stopped(Totals totals) {
        synchronized (totals) {
            return stopAfter > 0 && totals.violatingSeeds.size() >= stopAfter;
        }
    }

    private void runSeed(SimConfig config, Totals totals, PrintWriter out) {
        SimResult result;
        try {
            if (config.membershipChanges()) {
                SimMembershipChanges.Run run = Simulation.runWithMembershipChanges(config, leases);
                result = run.result();
                synchronized (totals) {
                    totals.membershipProposed += run.proposed();
                    totals.membershipApplied += run.applied();
                }
            } else if (groups > 1) {
                result = Simulation.run(config, leases, groups);
            } else {
                result = scenario.isDefault() ? Simulation.run(config, leases) : Simulation.runScenario(config, leases, scenario).result();
            }
        } catch (RuntimeException e) {
            synchronized (totals) {
                totals.seedsRun++;
                totals.violatingSeeds.add(config.seed());
                totals.violations.add("seed " + config.seed() + ": the simulator failed: " + e);
                out.println("VIOLATION seed " + config.seed() + ": the simulator failed: " + e);
                out.flush();
            }
            return;
        }
        String exportError = exportDir == null ? null : exportHistory(result);
        synchronized (totals) {
            if (exportError != null) {
                totals.violatingSeeds.add(result.seed());
                totals.violations.add("seed " + result.seed() + ": " + exportError);
                out.println("ERROR seed " + result.seed() + ": " + exportError);
            }
            totals.seedsRun++;
            totals.operations += result.operations();
            totals.okOperations += result.okOperations();
            totals.failedOperations += result.failedOperations();
            totals.indeterminateOperations += result.indeterminateOperations();
            totals.simulatedNanos += result.simulatedNanos();
            totals.localReads += result.localReads();
            totals.writesAnsweredBeforeApply += result.writesAnsweredBeforeApply();
            totals.replicationBytes += result.traffic().replicationBytes();
            totals.catchUpBytes += result.traffic().catchUpBytes();
            totals.recoveryBytes += result.traffic().recoveryBytes();
            totals.otherBytes += result.traffic().otherBytes();
            totals.logBytes += result.traffic().logBytes();
            totals.committedWrites += result.traffic().committedWrites();
            totals.corruptedShards += result.traffic().corruptedShards();
            if (!result.passed()) {
                totals.violatingSeeds.add(result.seed());
                totals.violations.add(result.summaryLine());
                out.println("VIOLATION " + result.summaryLine());
                out.flush();
            } else if (seeds == 1) {
                out.println(result.summaryLine());
            }
        }
    }

    /** Writes the seed's history; returns what went wrong, or null. */
    private String exportHistory(SimResult result) {
        Path file = exportDir.resolve("seed-" + result.seed() + ".jsonl");
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            HistoryJson.write(result.history(), writer);
            return null;
        } catch (IOException e) {
            return "cannot write history " + file + ": " + describe(e);
        }
    }

    private int summarize(Totals totals, double wallSeconds, PrintWriter out) {
        synchronized (totals) {
            out.println();
            out.printf("seeds run:               %d%s%n", totals.seedsRun, stopped(totals) && totals.seedsRun < seeds
                    ? " of " + seeds + " (stopped after " + stopAfter + " violating seed" + (stopAfter == 1 ? "" : "s") + ")" : "");
            out.printf("operations checked:      %d (%d ok, %d fail, %d info)%n", totals.operations, totals.okOperations,
                    totals.failedOperations, totals.indeterminateOperations);
            out.printf("violations:              %d%s%n", totals.violatingSeeds.size(),
                    totals.violatingSeeds.isEmpty() ? "" : " (seeds " + sorted(totals.violatingSeeds) + ")");
            long writes = Math.max(1, totals.committedWrites);
            out.printf("bytes per committed write: %.0f phase 2, %.0f catch-up, %.0f recovery reads, %.0f other on the wire;"
                    + " %.0f in logs (%d writes%s)%n", (double) totals.replicationBytes / writes,
                    (double) totals.catchUpBytes / writes, (double) totals.recoveryBytes / writes,
                    (double) totals.otherBytes / writes, (double) totals.logBytes / writes, totals.committedWrites,
                    totals.corruptedShards == 0 ? "" : ", " + totals.corruptedShards + " shards corrupted in flight");
            if (membershipChanges) {
                out.printf("membership changes:      %d proposed, %d applied%n", totals.membershipProposed, totals.membershipApplied);
            }
            if (leases != SimLeases.NONE) {
                out.printf("local lease reads:       %d (each one checked in its seed's history)%n", totals.localReads);
                out.printf("writes answered before apply: %d (quorum leases; each checked against its slot when applied)%n",
                        totals.writesAnsweredBeforeApply);
            }
            double simulatedSeconds = totals.simulatedNanos / 1e9;
            out.printf("ops per simulated second: %.1f (%.1f s simulated)%n",
                    simulatedSeconds == 0 ? 0.0 : totals.operations / simulatedSeconds, simulatedSeconds);
            out.printf("wall time:               %.1f s (%.1f seeds/s, %.0f ops/s)%n", wallSeconds,
                    totals.seedsRun / wallSeconds, totals.operations / wallSeconds);
            for (String violation : totals.violations) {
                out.println("  " + violation);
            }
            out.flush();
            return totals.violatingSeeds.isEmpty() ? 0 : 1;
        }
    }

    /** An I/O failure in words, without Java exception class names. */
    static String describe(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file or directory, or its parent does not accept new entries";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "a file that is not a directory is in the way";
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason().toLowerCase(Locale.ROOT);
        }
        return e.getMessage() == null ? "input/output error" : e.getMessage();
    }

    /** Whole-number options that name the problem in words ("'abc' is not a whole number"). */
    static final class WholeNumber {
        private WholeNumber() {}

        static final class Long implements CommandLine.ITypeConverter<java.lang.Long> {
            @Override
            public java.lang.Long convert(String value) {
                try {
                    return java.lang.Long.parseLong(value.trim());
                } catch (NumberFormatException e) {
                    throw new CommandLine.TypeConversionException("'" + value + "' is not a whole number");
                }
            }
        }

        static final class Int implements CommandLine.ITypeConverter<Integer> {
            @Override
            public Integer convert(String value) {
                long parsed = new Long().convert(value);
                if (parsed < Integer.MIN_VALUE || parsed > Integer.MAX_VALUE) {
                    throw new CommandLine.TypeConversionException("'" + value + "' is too large");
                }
                return (int) parsed;
            }
        }
    }

    private static List<Long> sorted(List<Long> seeds) {
        List<Long> copy = new ArrayList<>(seeds);
        copy.sort(null);
        return copy;
    }

    /** Checks every option; a bad one ends in picocli's parameter-exception handler (message, usage hint, exit 2). */
    private SimConfig validatedConfig() {
        CommandLine commandLine = spec.commandLine();
        SimCoding codingValue = SimCoding.OFF;
        if (coding != null) {
            codingValue = parseCoding(commandLine, coding);
            if (codingChange != null) {
                codingValue = parseCodingChange(commandLine, codingValue, codingChange);
            }
            nodes = codingValue.coding().nodes();
            // With membership changes the nodes may outnumber the code: ids past N get full copies (rule M9).
            if (nodesOption != null && membershipChanges && nodesOption > nodes && nodesOption <= SimConfig.MAX_NODES) {
                nodes = nodesOption;
            } else if (nodesOption != null && nodesOption != nodes) {
                throw new CommandLine.ParameterException(commandLine, "--nodes " + nodesOption + " disagrees with --coding "
                        + coding + " (N = " + nodes + "); only --membership-changes runs more nodes than N, up to "
                        + SimConfig.MAX_NODES);
            }
        } else if (codingChange != null) {
            throw new CommandLine.ParameterException(commandLine, "--coding-change needs --coding N,F,X");
        } else if (nodesOption == null) {
            throw new CommandLine.ParameterException(commandLine, "--nodes is required (or --coding N,F,X)");
        } else {
            nodes = nodesOption;
            if (nodes != 3 && nodes != 5) {
                throw new CommandLine.ParameterException(commandLine, "--nodes must be 3 or 5, got " + nodes);
            }
        }
        if (seeds < 1) {
            throw new CommandLine.ParameterException(commandLine, "--seeds must be at least 1, got " + seeds);
        }
        if (startSeed < 0) {
            throw new CommandLine.ParameterException(commandLine, "--start-seed must not be negative, got " + startSeed);
        }
        if (startSeed > Long.MAX_VALUE - seeds) {
            throw new CommandLine.ParameterException(commandLine, "--start-seed " + startSeed + " plus --seeds " + seeds
                    + " overflows a 64-bit seed");
        }
        if (opsPerSeed < SimConfig.MIN_OPS_PER_SEED) {
            throw new CommandLine.ParameterException(commandLine, "--ops-per-seed must be at least "
                    + SimConfig.MIN_OPS_PER_SEED + ", got " + opsPerSeed);
        }
        if (threads != null && threads < 1) {
            throw new CommandLine.ParameterException(commandLine, "--threads must be at least 1, got " + threads);
        }
        if (stopAfter < 0) {
            throw new CommandLine.ParameterException(commandLine, "--stop-after must be 0 (run every seed) or more, got " + stopAfter);
        }
        if (progressSeconds < 1) {
            throw new CommandLine.ParameterException(commandLine, "--progress-seconds must be at least 1, got " + progressSeconds);
        }
        if (bandwidthMbit != null && (bandwidthMbit < 1 || bandwidthMbit > 1_000_000)) {
            throw new CommandLine.ParameterException(commandLine, "--bandwidth-mbit must be 1..1000000, got " + bandwidthMbit);
        }
        FaultProfile profile;
        Mutation mutationValue;
        try {
            profile = FaultProfile.fromCliName(faults);
            mutationValue = Mutation.fromCliName(mutation);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(commandLine, e.getMessage());
        }
        try {
            SimLeaseModes.Mode leaseMode = SimLeaseModes.Mode.fromCliName(lease);
            SimLeaseModes.Control control = SimLeaseModes.Control.fromCliName(leaseControl);
            leases = SimLeaseModes.world(leaseMode, control);
            if (clockDriftPpm != null) {
                if (leases == SimLeases.NONE) {
                    throw new IllegalArgumentException("--clock-drift-ppm needs a lease world (--lease leader|leader-timer|quorum|megastore)");
                }
                if (clockDriftPpm < 0 || clockDriftPpm >= 500_000) {
                    throw new IllegalArgumentException("--clock-drift-ppm must be 0..499999, got " + clockDriftPpm);
                }
                leases = leases.withDriftWithin(clockDriftPpm, leases.monotonicJumps());
            }
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(commandLine, e.getMessage());
        }
        SimLeaseModes.Mode leaseMode = SimLeaseModes.Mode.fromCliName(lease);
        if (membershipChanges && codingValue.enabled() && leaseMode != SimLeaseModes.Mode.NONE
                && leaseMode != SimLeaseModes.Mode.LEADER && leaseMode != SimLeaseModes.Mode.LEADER_TIMER) {
            // Seed 4340 of --coding 5,1,3 --lease quorum read stale (docs/membership.md, "Not done").
            throw new CommandLine.ParameterException(commandLine, "--membership-changes with --coding runs with --lease "
                    + "none|leader|leader-timer: coded groups with quorum leases and membership changes are not "
                    + "simulated (docs/membership.md)");
        }
        if (membershipChanges && nodes < 5) {
            throw new CommandLine.ParameterException(commandLine, "--membership-changes needs --nodes 5 (3 voters and 2 spares), got " + nodes);
        }
        if (mutationValue.needsMembershipChanges() && !membershipChanges) {
            throw new CommandLine.ParameterException(commandLine, "--mutation " + mutationValue.cliName() + " needs --membership-changes");
        }
        if (mutationValue == Mutation.HOLDER_READ_EARLY && SimLeaseModes.Mode.fromCliName(lease) != SimLeaseModes.Mode.QUORUM) {
            throw new CommandLine.ParameterException(commandLine, "--mutation holder-read-early needs --lease quorum "
                    + "(only quorum-lease holders wait before a local read)");
        }
        if (mutationValue.needsCoding() && !codingValue.enabled()) {
            throw new CommandLine.ParameterException(commandLine, "--mutation " + mutationValue.cliName()
                    + " needs --coding N,F,X");
        }
        if (exportDir != null) {
            try {
                Files.createDirectories(exportDir);
            } catch (IOException e) {
                throw new CommandLine.ParameterException(commandLine, "--export-history directory " + exportDir
                        + " cannot be created: " + describe(e));
            } catch (RuntimeException e) {
                throw new CommandLine.ParameterException(commandLine, "--export-history directory " + exportDir
                        + " cannot be created: " + e.getMessage());
            }
            if (!Files.isDirectory(exportDir) || !Files.isWritable(exportDir)) {
                throw new CommandLine.ParameterException(commandLine, "--export-history directory " + exportDir + " is not writable");
            }
        }
        // Coding and membership changes first: a mutation may need both.
        SimConfig config = SimConfig.defaults(nodes, profile).withCoding(codingValue).withMembershipChanges(membershipChanges)
                .withMutation(mutationValue).withOpsPerSeed(opsPerSeed).withSeed(startSeed)
                .withLinkBandwidth(bandwidthMbit == null ? 0 : bandwidthMbit * 1_000_000L);
        if (workload.any()) {
            config = workload.apply(commandLine, config);
            scenario = workload.scenario(commandLine, nodes);
        }
        groups = workload.groups(commandLine, config, scenario);
        return config;
    }

    /** "F,X" of --coding-change, for the N of --coding, with the RS-Paxos rules checked. */
    private static SimCoding parseCodingChange(CommandLine commandLine, SimCoding base, String text) {
        String[] parts = text.split(",", -1);
        String usage = "--coding-change must be F,X (two whole numbers, e.g. 2,1), got '" + text + "'";
        if (parts.length != 2) {
            throw new CommandLine.ParameterException(commandLine, usage);
        }
        try {
            return base.withChangesTo(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
        } catch (NumberFormatException e) {
            throw new CommandLine.ParameterException(commandLine, usage);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(commandLine, "--coding-change " + text + ": " + e.getMessage());
        }
    }

    /** "N,F,X" with the RS-Paxos rules checked ({@link io.synod.core.paxos.Coding#rsPaxos}). */
    private static SimCoding parseCoding(CommandLine commandLine, String text) {
        String[] parts = text.split(",", -1);
        if (parts.length != 3) {
            throw new CommandLine.ParameterException(commandLine, "--coding must be N,F,X (three whole numbers, e.g. 5,1,3), got '"
                    + text + "'");
        }
        int[] values = new int[3];
        for (int i = 0; i < 3; i++) {
            try {
                values[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new CommandLine.ParameterException(commandLine, "--coding must be N,F,X (three whole numbers, e.g. 5,1,3), got '"
                        + text + "'");
            }
        }
        if (values[0] < SimConfig.MIN_NODES || values[0] > SimConfig.MAX_NODES) {
            throw new CommandLine.ParameterException(commandLine, "--coding N must be " + SimConfig.MIN_NODES + ".."
                    + SimConfig.MAX_NODES + " in the simulator, got " + values[0]);
        }
        try {
            return SimCoding.rsPaxos(values[0], values[1], values[2]);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(commandLine, "--coding " + text + ": " + e.getMessage());
        }
    }
}
