package io.synod.bench.torture;

import io.synod.bench.BenchCli;
import io.synod.bench.kv.SdkKvClient;
import java.time.Duration;
import io.synod.bench.kv.KvClient;
import io.synod.bench.kv.ProcessCluster;
import io.synod.core.check.Verdict;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code synod torture --kills N --dir DIR}: a Synod cluster of real processes ({@code synod cluster}),
 * a list-append + read workload from several client threads, and a SIGKILL of a node every few
 * seconds (the leader of a group at least half the time), each followed by a restart of that node on
 * its data. At the end every acknowledged append must be in its key's final list, and the whole
 * history, written to {@code DIR/history.jsonl} in the format of docs/history-format.md, must pass the
 * built-in linearizability checker. Exit 0 when both hold, 1 otherwise, 2 for bad arguments.
 */
@Command(name = "torture", mixinStandardHelpOptions = true, usageHelpWidth = BenchCli.HELP_WIDTH,
        description = {"Kill -9 torture: real server processes, list-append workload, SIGKILL + restart of a node",
                "every few seconds; checks that no acknowledged append is lost and that the history is linearizable."})
public final class TortureCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    RunOptions o = new RunOptions();

    @Option(names = "--kills", required = true, paramLabel = "N", description = "SIGKILLs to deliver (1..100000)")
    int kills;

    @Option(names = "--seconds", paramLabel = "S", description = "stop killing after S seconds even if fewer than N kills"
            + " were delivered (default: no limit)")
    Integer seconds;

    @Option(names = "--interval-ms", defaultValue = "3000",
            description = "mean time between one node's restart and the next kill (default ${DEFAULT-VALUE})")
    int intervalMillis;

    @Option(names = "--insecure", description = "run the cluster without TLS (synod cluster start --insecure); by default "
            + "its nodes and the clients speak mutual TLS with the cluster's own CA")
    boolean insecure;

    private PrintWriter out;
    private long startNanos;

    @Override
    public Integer call() throws Exception {
        validate();
        out = spec.commandLine().getOut();
        Path clusterDir = o.freshClusterDir(spec);
        long actualSeed = o.seedOrRandom();
        Random random = new Random(actualSeed);
        startNanos = System.nanoTime();
        progress("torture: %d kills, %d nodes, %d groups, %d clients, %d keys, seed %d, %s", kills, o.nodes, o.groups, o.clients,
                o.keys, actualSeed, insecure ? "INSECURE (no TLS)" : "mutual TLS");
        try (ProcessCluster cluster = ProcessCluster.start(clusterDir, o.nodes, o.groups, o.sessionTimeoutMillis, List.of(), out,
                true, insecure)) {
            return run(cluster, random);
        }
    }

    private void validate() {
        check(kills >= 1 && kills <= 100_000, "--kills must be 1..100000, got " + kills);
        check(seconds == null || (seconds >= 1 && seconds <= 7 * 24 * 3600), "--seconds must be 1..604800, got " + seconds);
        check(intervalMillis >= 100 && intervalMillis <= 600_000, "--interval-ms must be 100..600000, got " + intervalMillis);
        o.validate(spec);
    }

    private void check(boolean ok, String message) {
        RunOptions.check(spec, ok, message);
    }

    private int run(ProcessCluster cluster, Random random) throws Exception {
        ListAppendWorkload workload = new ListAppendWorkload(o.groups, o.clients, o.keys, o.appendsPerKey, o.opTimeoutMillis);
        SharedHistory history = workload.history();
        int killsDone = 0;
        int leaderKills = 0;
        try (KvClient client = new SdkKvClient(cluster.clientAddresses(), 1024, Duration.ofMillis(o.opTimeoutMillis),
                cluster.clientTls())) {
            progress("client: %s", client.description());
            workload.start(client, random);
            long deadline = seconds == null ? Long.MAX_VALUE : startNanos + seconds * 1_000_000_000L;
            try {
                while (killsDone < kills && System.nanoTime() < deadline) {
                    sleepMillis(intervalMillis / 2 + random.nextInt(intervalMillis));
                    Map<Integer, Integer> leaders = cluster.leaders();
                    int victim;
                    String why;
                    if (random.nextBoolean() && !leaders.isEmpty()) {
                        List<Integer> ledGroups = new ArrayList<>(leaders.keySet());
                        int g = ledGroups.get(random.nextInt(ledGroups.size()));
                        victim = leaders.get(g);
                        why = "leader of group " + g;
                    } else {
                        victim = random.nextInt(o.nodes);
                        why = leaders.containsValue(victim) ? "random pick, leads groups " + ledBy(leaders, victim)
                                : "random pick, a follower";
                    }
                    if (leaders.containsValue(victim)) {
                        leaderKills++;
                    }
                    cluster.kill(victim);
                    killsDone++;
                    sleepMillis(300 + random.nextInt(1500));
                    long r0 = System.nanoTime();
                    cluster.restart(victim);
                    progress("kill %d/%d: node %d (%s), restarted in %.1f s; ops ok %d, fail %d, info %d", killsDone, kills,
                            victim, why, (System.nanoTime() - r0) / 1e9, history.ok(), history.failed(), history.info());
                }
                // Let the last restarted node rejoin and the clients finish under a stable cluster.
                sleepMillis(Math.max(2_000, o.sessionTimeoutMillis));
            } finally {
                workload.stop();
            }
            progress("workload stopped: ops ok %d, fail %d, info %d; reading every key's final list", history.ok(),
                    history.failed(), history.info());
            ListAppendWorkload.Outcome outcome = workload.finish(client, o.dir, out);
            boolean ok = outcome.ok(history);
            out.println();
            out.println("summary");
            out.printf("  cluster:             %d server processes, %d groups (%s)%n", o.nodes, o.groups, cluster.dir());
            out.printf("  kills:               %d SIGKILLs (%d of a group leader), each node restarted on its data%n", killsDone,
                    leaderKills);
            workload.printSummary(out, outcome);
            out.printf("  wall time:           %.1f s%n", (System.nanoTime() - startNanos) / 1e9);
            out.printf("  result:              %s%n", ok ? "OK" : "FAILED");
            if (outcome.check().verdict() != Verdict.LINEARIZABLE) {
                out.println(outcome.check().explanation());
            }
            out.flush();
            return ok ? 0 : BenchCli.EXIT_FAILED;
        }
    }

    static String ledBy(Map<Integer, Integer> leaders, int node) {
        List<Integer> out = new ArrayList<>();
        leaders.forEach((g, n) -> {
            if (n == node) {
                out.add(g);
            }
        });
        return out.toString();
    }

    private void progress(String format, Object... args) {
        RunOptions.progress(out, startNanos, format, args);
    }

    private static void sleepMillis(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }
}
