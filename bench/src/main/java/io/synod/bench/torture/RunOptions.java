package io.synod.bench.torture;

import io.synod.bench.BenchCli;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options {@code synod torture} and {@code synod nemesis} share (a picocli mixin): the run
 * directory, the cluster's shape, the workload ({@link ListAppendWorkload}), the servers' session
 * timeout, the operation deadline and the seed, with their bounds.
 */
final class RunOptions {
    @Option(names = "--dir", required = true, paramLabel = "DIR",
            description = "run directory: the cluster under DIR/cluster, the history in DIR/history.jsonl")
    Path dir;

    @Option(names = "--nodes", defaultValue = "3", description = "3 or 5 server processes (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--groups", defaultValue = "2", description = "replication groups, 1..16 (default ${DEFAULT-VALUE})")
    int groups;

    @Option(names = "--clients", defaultValue = "6", description = "client threads, 1..64 (default ${DEFAULT-VALUE})")
    int clients;

    @Option(names = "--keys", defaultValue = "8", description = "list keys, 1..1000 (default ${DEFAULT-VALUE})")
    int keys;

    @Option(names = "--appends-per-key", defaultValue = "300",
            description = "appends to one key before its slot moves on to a fresh key (default ${DEFAULT-VALUE})")
    int appendsPerKey;

    @Option(names = "--session-timeout-ms", defaultValue = "2000",
            description = "ZooKeeper session timeout of the servers: bounds failover (default ${DEFAULT-VALUE})")
    int sessionTimeoutMillis;

    @Option(names = "--op-timeout-ms", defaultValue = "8000",
            description = "one operation's deadline, retries included; past it its outcome is unknown (default ${DEFAULT-VALUE})")
    int opTimeoutMillis;

    @Option(names = "--seed", description = "seed of the victim and timing choices (default: random)")
    Long seed;

    void validate(CommandSpec spec) {
        check(spec, nodes == 3 || nodes == 5, "--nodes must be 3 or 5, got " + nodes);
        check(spec, groups >= 1 && groups <= 16, "--groups must be 1..16, got " + groups);
        check(spec, clients >= 1 && clients <= 64, "--clients must be 1..64, got " + clients);
        check(spec, keys >= 1 && keys <= 1000, "--keys must be 1..1000, got " + keys);
        check(spec, appendsPerKey >= 1 && appendsPerKey <= 1_000_000, "--appends-per-key must be 1..1000000, got " + appendsPerKey);
        check(spec, sessionTimeoutMillis >= 1000 && sessionTimeoutMillis <= 60_000,
                "--session-timeout-ms must be 1000..60000, got " + sessionTimeoutMillis);
        check(spec, opTimeoutMillis >= 500 && opTimeoutMillis <= 600_000,
                "--op-timeout-ms must be 500..600000, got " + opTimeoutMillis);
    }

    /** {@code DIR/cluster}, after checking that DIR is writable and holds no earlier run. */
    Path freshClusterDir(CommandSpec spec) {
        BenchCli.requireWritableDirectory(spec, "--dir", dir);
        Path clusterDir = dir.resolve("cluster");
        check(spec, !Files.exists(clusterDir), "--dir " + dir + " already holds a run (" + clusterDir + " exists); use a fresh directory");
        return clusterDir;
    }

    long seedOrRandom() {
        return seed != null ? seed : System.nanoTime();
    }

    /** One progress line, stamped with the seconds since {@code startNanos}. */
    static void progress(PrintWriter out, long startNanos, String format, Object... args) {
        out.printf("[%6.1fs] %s%n", (System.nanoTime() - startNanos) / 1e9, String.format(format, args));
        out.flush();
    }

    /** A one-line usage error unless {@code ok}. */
    static void check(CommandSpec spec, boolean ok, String message) {
        if (!ok) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}
