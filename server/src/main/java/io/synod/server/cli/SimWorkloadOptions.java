package io.synod.server.cli;

import io.synod.sim.LatencyMatrix;
import io.synod.sim.Mutation;
import io.synod.sim.SimConfig;
import io.synod.sim.SimScenario;
import io.synod.sim.Simulation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code synod simulate}'s workload and geography options (a mixin): Zipf exponent, read share, key
 * count, per-site key popularity, a latency matrix between sites and clients attached to sites, and
 * the number of groups each node hosts over its one log. Without any of them a seed runs exactly as
 * before (same trace hash).
 */
final class SimWorkloadOptions {
    @Option(names = "--zipf", paramLabel = "S",
            description = "Zipf exponent of key popularity, 0 (uniform) .. 10 (default: 1 over the default 4 keys).")
    Double zipf;

    @Option(names = "--read-percent", paramLabel = "P", description = "Share of reads among operations, 0..100 (default: 50).")
    Integer readPercent;

    @Option(names = "--keys", paramLabel = "K", description = "Distinct keys the clients touch (default: 4).")
    Integer keys;

    @Option(names = "--latency", paramLabel = "PRESET|FILE|MATRIX",
            description = {"RTTs between sites, one replica per site: a preset (ec2-five-sites), a file, or inline",
                "'A,B,C; 0,20,80; 20,0,70; 80,70,0' (site names, then RTT rows in ms). Replica timers and the",
                "clients' attempt timeout grow with the largest RTT."})
    String latency;

    @Option(names = "--clients-per-site", paramLabel = "C",
            description = "Attach C client workers to each site of --latency (they try their site's replica first).")
    Integer clientsPerSite;

    @Option(names = "--per-site-keys",
            description = "Each site ranks keys by its own permutation (different hot keys per site; needs --clients-per-site).")
    boolean perSiteKeys;

    @Option(names = "--groups", defaultValue = "1", paramLabel = "G", converter = SimulateCommand.WholeNumber.Int.class,
            description = {"Groups per node, 1.." + Simulation.MAX_GROUPS + ": each with its own election, clients and checks,",
                "all over one log per node (one fsync for every group's records; a crash loses every group's unsynced tail)",
                "(default: ${DEFAULT-VALUE})."})
    int groups;

    /** True if any option of the workload's shape was given (--groups is not one). */
    boolean any() {
        return zipf != null || readPercent != null || keys != null || latency != null || clientsPerSite != null || perSiteKeys;
    }

    /** The config with these options applied; a bad option is a {@link CommandLine.ParameterException}. */
    SimConfig apply(CommandLine commandLine, SimConfig config) {
        if (readPercent != null && (readPercent < 0 || readPercent > 100)) {
            throw new CommandLine.ParameterException(commandLine, "--read-percent must be 0..100, got " + readPercent);
        }
        if (keys != null && (keys < 1 || keys > 1_000_000)) {
            throw new CommandLine.ParameterException(commandLine, "--keys must be 1..1000000, got " + keys);
        }
        if (zipf != null && !(zipf >= 0 && zipf <= 10)) {
            throw new CommandLine.ParameterException(commandLine, "--zipf must be 0..10, got " + zipf);
        }
        int workers = config.workers();
        if (clientsPerSite != null) {
            if (latency == null) {
                throw new CommandLine.ParameterException(commandLine, "--clients-per-site needs --latency (the sites)");
            }
            if (clientsPerSite < 1 || clientsPerSite > 100) {
                throw new CommandLine.ParameterException(commandLine, "--clients-per-site must be 1..100, got " + clientsPerSite);
            }
            workers = clientsPerSite * config.nodes();
        }
        if (perSiteKeys && clientsPerSite == null) {
            throw new CommandLine.ParameterException(commandLine, "--per-site-keys needs --clients-per-site");
        }
        return config.withWorkload(workers, keys == null ? config.keys() : keys, config.zipfKeys(),
                readPercent == null ? config.readPercent() : readPercent, config.meanOpIntervalNanos());
    }

    /**
     * The number of groups, checked against the rest of the run: several groups run the default scenario without
     * membership changes, and {@code shared-fsync-skips-group} needs several.
     */
    int groups(CommandLine commandLine, SimConfig config, SimScenario scenario) {
        if (groups < 1 || groups > Simulation.MAX_GROUPS) {
            throw new CommandLine.ParameterException(commandLine, "--groups must be 1.." + Simulation.MAX_GROUPS + ", got " + groups);
        }
        if (groups > 1 && (config.membershipChanges() || !scenario.isDefault())) {
            throw new CommandLine.ParameterException(commandLine, "--groups " + groups + " runs without --membership-changes, "
                    + "--zipf, --latency and --clients-per-site (one group only for those)");
        }
        if (groups == 1 && config.mutation() == Mutation.SHARED_FSYNC_SKIPS_GROUP) {
            throw new CommandLine.ParameterException(commandLine, "--mutation " + config.mutation().cliName()
                    + " needs --groups 2 or more (with one group no request waits for another's fsync)");
        }
        return groups;
    }

    /** The scenario of these options for a group of {@code nodes}. */
    SimScenario scenario(CommandLine commandLine, int nodes) {
        SimScenario scenario = SimScenario.DEFAULT;
        if (zipf != null) {
            scenario = scenario.withZipf(zipf);
        }
        if (latency != null) {
            LatencyMatrix matrix = matrix(commandLine, latency);
            if (matrix.size() != nodes) {
                throw new CommandLine.ParameterException(commandLine, "--latency has " + matrix.size() + " sites " + matrix.sites()
                        + " but --nodes is " + nodes + " (one replica per site)");
            }
            scenario = scenario.withSites(matrix, clientsPerSite == null ? 0 : clientsPerSite, perSiteKeys)
                    .withClientRetries(SimScenario.geoClientTimeoutNanos(matrix), 0);
        }
        return scenario;
    }

    /** A preset name, a file, or an inline matrix. */
    static LatencyMatrix matrix(CommandLine commandLine, String text) {
        try {
            if (LatencyMatrix.presets().contains(text)) {
                return LatencyMatrix.named(text);
            }
            Path file = Path.of(text.trim());
            if (!text.contains(",") && !text.contains(";")) {
                if (!Files.isRegularFile(file)) {
                    throw new CommandLine.ParameterException(commandLine, "--latency '" + text + "' is neither a preset ("
                            + String.join(", ", LatencyMatrix.presets()) + "), nor a readable file, nor an inline matrix");
                }
                return LatencyMatrix.parse(Files.readString(file, StandardCharsets.UTF_8));
            }
            return LatencyMatrix.parse(text);
        } catch (IOException e) {
            throw new CommandLine.ParameterException(commandLine, "--latency file " + text + " cannot be read: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(commandLine, "--latency " + text + ": " + e.getMessage());
        }
    }
}
