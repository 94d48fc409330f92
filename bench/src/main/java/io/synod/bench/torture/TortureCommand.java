package io.synod.bench.torture;

import io.synod.bench.BenchCli;
import io.synod.bench.kv.SdkKvClient;
import java.time.Duration;
import io.synod.bench.kv.KvClient;
import io.synod.bench.kv.ProcessCluster;
import io.synod.coordination.ShardMap;
import io.synod.core.check.CheckResult;
import io.synod.core.check.LinearizabilityChecker;
import io.synod.core.check.Verdict;
import io.synod.core.history.History;
import io.synod.core.history.HistoryJson;
import io.synod.server.cli.DemoCommand;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
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

    @Option(names = "--kills", required = true, paramLabel = "N", description = "SIGKILLs to deliver (1..100000)")
    int kills;

    @Option(names = "--dir", required = true, paramLabel = "DIR",
            description = "run directory: the cluster under DIR/cluster, the history in DIR/history.jsonl")
    Path dir;

    @Option(names = "--seconds", paramLabel = "S", description = "stop killing after S seconds even if fewer than N kills"
            + " were delivered (default: no limit)")
    Integer seconds;

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

    @Option(names = "--interval-ms", defaultValue = "3000",
            description = "mean time between one node's restart and the next kill (default ${DEFAULT-VALUE})")
    int intervalMillis;

    @Option(names = "--session-timeout-ms", defaultValue = "2000",
            description = "ZooKeeper session timeout of the servers: bounds failover (default ${DEFAULT-VALUE})")
    int sessionTimeoutMillis;

    @Option(names = "--op-timeout-ms", defaultValue = "8000",
            description = "one operation's deadline, retries included; past it its outcome is unknown (default ${DEFAULT-VALUE})")
    int opTimeoutMillis;

    @Option(names = "--seed", description = "seed of the victim and timing choices (default: random)")
    Long seed;

    private PrintWriter out;
    private long startNanos;

    @Override
    public Integer call() throws Exception {
        validate();
        out = spec.commandLine().getOut();
        BenchCli.requireWritableDirectory(spec, "--dir", dir);
        Path clusterDir = dir.resolve("cluster");
        if (Files.exists(clusterDir)) {
            throw new ParameterException(spec.commandLine(), "--dir " + dir + " already holds a run (" + clusterDir
                    + " exists); use a fresh directory");
        }
        long actualSeed = seed != null ? seed : System.nanoTime();
        Random random = new Random(actualSeed);
        startNanos = System.nanoTime();
        progress("torture: %d kills, %d nodes, %d groups, %d clients, %d keys, seed %d", kills, nodes, groups, clients, keys,
                actualSeed);
        try (ProcessCluster cluster = ProcessCluster.start(clusterDir, nodes, groups, sessionTimeoutMillis, List.of(), out,
                true)) {
            return run(cluster, random);
        }
    }

    private void validate() {
        check(kills >= 1 && kills <= 100_000, "--kills must be 1..100000, got " + kills);
        check(seconds == null || (seconds >= 1 && seconds <= 7 * 24 * 3600), "--seconds must be 1..604800, got " + seconds);
        check(nodes == 3 || nodes == 5, "--nodes must be 3 or 5, got " + nodes);
        check(groups >= 1 && groups <= 16, "--groups must be 1..16, got " + groups);
        check(clients >= 1 && clients <= 64, "--clients must be 1..64, got " + clients);
        check(keys >= 1 && keys <= 1000, "--keys must be 1..1000, got " + keys);
        check(appendsPerKey >= 1 && appendsPerKey <= 1_000_000, "--appends-per-key must be 1..1000000, got " + appendsPerKey);
        check(intervalMillis >= 100 && intervalMillis <= 600_000, "--interval-ms must be 100..600000, got " + intervalMillis);
        check(sessionTimeoutMillis >= 1000 && sessionTimeoutMillis <= 60_000,
                "--session-timeout-ms must be 1000..60000, got " + sessionTimeoutMillis);
        check(opTimeoutMillis >= 500 && opTimeoutMillis <= 600_000, "--op-timeout-ms must be 500..600000, got " + opTimeoutMillis);
    }

    private void check(boolean ok, String message) {
        if (!ok) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }

    private int run(ProcessCluster cluster, Random random) throws Exception {
        KeySpace keySpace = new KeySpace();
        SharedHistory history = new SharedHistory();
        Map<String, Set<Long>> acknowledged = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong nextValue = new AtomicLong(1);
        int killsDone = 0;
        int leaderKills = 0;
        long workloadFrom;
        long workloadTo;
        try (KvClient client = new SdkKvClient(cluster.clientAddresses(), 1024, Duration.ofMillis(opTimeoutMillis),
                cluster.clientTls())) {
            progress("client: %s", client.description());
            List<Thread> workers = new ArrayList<>();
            for (int p = 0; p < clients; p++) {
                int process = p;
                long workerSeed = random.nextLong();
                Thread t = new Thread(() -> workload(process, new Random(workerSeed), client, keySpace, history, acknowledged,
                        nextValue, stop), "torture-client-" + p);
                t.setDaemon(true);
                workers.add(t);
            }
            workloadFrom = history.nowNanos();
            workers.forEach(Thread::start);
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
                        victim = random.nextInt(nodes);
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
                sleepMillis(Math.max(2_000, sessionTimeoutMillis));
            } finally {
                stop.set(true);
                for (Thread t : workers) {
                    t.join(opTimeoutMillis + 10_000L);
                }
            }
            workloadTo = history.nowNanos();
            for (Thread t : workers) {
                if (t.isAlive()) {
                    throw new IllegalStateException("client thread " + t.getName() + " did not stop");
                }
            }
            progress("workload stopped: ops ok %d, fail %d, info %d; reading every key's final list", history.ok(),
                    history.failed(), history.info());
            // Final reads: recorded in the history too (one more process), retried until they succeed.
            Map<String, long[]> finalLists = new ConcurrentHashMap<>();
            List<String> keyNames = keySpace.allKeys();
            for (String key : keyNames) {
                long[] list = finalRead(client, key, clients, history);
                if (list != null) {
                    finalLists.put(key, list);
                }
            }
            return report(cluster, history, acknowledged, finalLists, keyNames, killsDone, leaderKills, workloadFrom,
                    workloadTo);
        }
    }

    private static String ledBy(Map<Integer, Integer> leaders, int node) {
        List<Integer> out = new ArrayList<>();
        leaders.forEach((g, n) -> {
            if (n == node) {
                out.add(g);
            }
        });
        return out.toString();
    }

    /**
     * The keys in use: slot i holds one key at a time, its first character sending it to group i mod G
     * under the uniform shard map. After {@code --appends-per-key} appends a slot moves on to a fresh
     * key, so lists stay short: every read's whole list is kept in the history, and lists that grow
     * for the whole run made a 200-kill history exhaust the heap.
     */
    private final class KeySpace {
        private final List<String> prefixes;
        private final AtomicReferenceArray<String> current;
        private final AtomicIntegerArray appends;
        private final Set<String> all = ConcurrentHashMap.newKeySet();

        KeySpace() {
            prefixes = new ArrayList<>(DemoCommand.prefixesPerGroup(ShardMap.uniform(groups)).values());
            current = new AtomicReferenceArray<>(keys);
            appends = new AtomicIntegerArray(keys);
            for (int i = 0; i < keys; i++) {
                current.set(i, name(i, 0));
                all.add(current.get(i));
            }
        }

        private String name(int slot, int generation) {
            return prefixes.get(slot % prefixes.size()) + "torture-" + slot + "-" + generation;
        }

        String key(int slot) {
            return current.get(slot);
        }

        /** Counts an append issued in {@code slot}; the slot's next operation may use a fresh key. */
        void appended(int slot) {
            int n = appends.incrementAndGet(slot);
            if (n % appendsPerKey == 0) {
                String next = name(slot, n / appendsPerKey);
                all.add(next);
                current.set(slot, next);
            }
        }

        List<String> allKeys() {
            return all.stream().sorted().toList();
        }
    }

    private void workload(int process, Random random, KvClient client, KeySpace keySpace, SharedHistory history,
            Map<String, Set<Long>> acknowledged, AtomicLong nextValue, AtomicBoolean stop) {
        // Bounded: a client stops when told to, or after this many operations.
        for (int i = 0; i < 10_000_000 && !stop.get(); i++) {
            int slot = random.nextInt(keys);
            String key = keySpace.key(slot);
            if (random.nextInt(100) < 60) {
                long value = nextValue.getAndIncrement();
                int op = history.invokeAppend(process, key, value);
                keySpace.appended(slot);
                try {
                    client.append(key, value).get(opTimeoutMillis + 5_000L, TimeUnit.MILLISECONDS);
                    history.okAppend(op);
                    acknowledged.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(value);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof KvClient.RejectedException) {
                        history.fail(op);
                    } else {
                        history.info(op);
                    }
                } catch (TimeoutException e) {
                    history.info(op);
                } catch (InterruptedException e) {
                    history.info(op);
                    return;
                }
            } else {
                int op = history.invokeRead(process, key);
                try {
                    long[] list = client.readList(key).get(opTimeoutMillis + 5_000L, TimeUnit.MILLISECONDS);
                    history.okRead(op, list);
                } catch (ExecutionException | TimeoutException e) {
                    history.info(op);
                } catch (InterruptedException e) {
                    history.info(op);
                    return;
                }
            }
        }
    }

    private long[] finalRead(KvClient client, String key, int process, SharedHistory history) throws InterruptedException {
        for (int attempt = 0; attempt < 10; attempt++) {
            int op = history.invokeRead(process, key);
            try {
                long[] list = client.readList(key).get(opTimeoutMillis + 5_000L, TimeUnit.MILLISECONDS);
                history.okRead(op, list);
                return list;
            } catch (ExecutionException | TimeoutException e) {
                history.info(op);
            }
        }
        return null;
    }

    private int report(ProcessCluster cluster, SharedHistory history, Map<String, Set<Long>> acknowledged,
            Map<String, long[]> finalLists, List<String> keyNames, int killsDone, int leaderKills, long workloadFrom,
            long workloadTo) throws IOException {
        long lost = 0;
        long ackedTotal = 0;
        List<String> unreadable = new ArrayList<>();
        for (String key : keyNames) {
            Set<Long> acked = acknowledged.getOrDefault(key, Set.of());
            ackedTotal += acked.size();
            long[] list = finalLists.get(key);
            if (list == null) {
                unreadable.add(key);
                continue;
            }
            Set<Long> present = new HashSet<>();
            for (long v : list) {
                present.add(v);
            }
            for (long v : acked) {
                if (!present.contains(v)) {
                    lost++;
                    if (lost <= 10) {
                        out.printf("LOST: append %d to %s was acknowledged but is not in the final list%n", v, key);
                    }
                }
            }
        }
        History h = history.history();
        Path file = dir.resolve("history.jsonl");
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            HistoryJson.write(h, w);
        }
        progress("wrote %s (%d events); checking linearizability", file, h.events().size());
        long c0 = System.nanoTime();
        CheckResult result = new LinearizabilityChecker().check(h);
        double checkSeconds = (System.nanoTime() - c0) / 1e9;
        long gap = history.longestGapNanos(workloadFrom, workloadTo);
        boolean ok = lost == 0 && unreadable.isEmpty() && result.verdict() == Verdict.LINEARIZABLE && history.ok() > 0;
        out.println();
        out.println("summary");
        out.printf("  cluster:             %d server processes, %d groups (%s)%n", nodes, groups, cluster.dir());
        out.printf("  kills:               %d SIGKILLs (%d of a group leader), each node restarted on its data%n", killsDone,
                leaderKills);
        out.printf("  operations:          ok %d, fail %d, info %d (unknown outcome)%n", history.ok(), history.failed(),
                history.info());
        out.printf("  acknowledged writes: %d appends, lost %d%s%n", ackedTotal, lost,
                unreadable.isEmpty() ? "" : " (final read failed for " + unreadable + ")");
        out.printf("  checker:             %s (%d keys, %.2f s)%n", result.verdict(), keyNames.size(), checkSeconds);
        out.printf("  longest unavailable: %.2f s with no operation completing%n", gap / 1e9);
        out.printf("  history:             %s%n", file);
        out.printf("  wall time:           %.1f s%n", (System.nanoTime() - startNanos) / 1e9);
        out.printf("  result:              %s%n", ok ? "OK" : "FAILED");
        if (result.verdict() != Verdict.LINEARIZABLE) {
            out.println(result.explanation());
        }
        out.flush();
        return ok ? 0 : BenchCli.EXIT_FAILED;
    }

    private void progress(String format, Object... args) {
        out.printf("[%6.1fs] %s%n", (System.nanoTime() - startNanos) / 1e9, String.format(format, args));
        out.flush();
    }

    private static void sleepMillis(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }
}
