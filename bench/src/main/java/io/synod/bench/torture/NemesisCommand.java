package io.synod.bench.torture;

import io.synod.bench.BenchCli;
import io.synod.bench.kv.KvClient;
import io.synod.bench.kv.ProcessCluster;
import io.synod.bench.kv.SdkKvClient;
import io.synod.coordination.ShardMap;
import io.synod.core.check.Verdict;
import io.synod.server.cli.DemoCommand;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code synod nemesis --dir DIR}: the torture workload ({@link ListAppendWorkload}) on a cluster of
 * real processes whose peer and ZooKeeper links run through user-space relays ({@link RelayMesh}),
 * while a schedule of faults runs: partitions (a majority/minority split; the leader of a group cut
 * from its peers with ZooKeeper still reachable; the leader cut from ZooKeeper only), a SIGSTOP of a
 * leader for longer than the ZooKeeper session timeout, and SIGKILL with restart. Each fault is held,
 * healed, and followed by a recovery check (every group has a leader and commits a probe append).
 * At the end: final reads, the lost-write check and the linearizability check, one summary, and per
 * fault how long no operation completed and whether the service recovered. Exit 0 when no
 * acknowledged write was lost, the history is linearizable and every fault recovered; 1 otherwise;
 * 2 for bad arguments.
 */
@Command(name = "nemesis", mixinStandardHelpOptions = true, usageHelpWidth = BenchCli.HELP_WIDTH,
        description = {"Faults on real processes: relay partitions (split, leader isolated from its peers, leader cut from",
                "ZooKeeper), SIGSTOP of a leader past its session timeout, SIGKILL; the torture workload runs throughout;",
                "checks no acknowledged append is lost, the history is linearizable and the service recovers after each fault."})
public final class NemesisCommand implements Callable<Integer> {
    /** The fault kinds, in the order a schedule cycles through them. */
    static final List<String> KINDS = List.of("split", "leader-isolation", "bridge", "zk-isolation", "client-cut", "pause",
            "kill", "disk-full", "clock");
    /** What {@code partition} stands for in {@code --faults}. */
    static final List<String> PARTITIONS = List.of("split", "leader-isolation", "bridge", "zk-isolation", "client-cut");

    @Spec
    CommandSpec spec;

    @Mixin
    RunOptions o = new RunOptions();

    @Option(names = "--faults", defaultValue = "partition,pause,kill", paramLabel = "LIST",
            description = "comma-separated fault kinds: split, leader-isolation, bridge, zk-isolation, client-cut (partition ="
                    + " these five), pause, kill, disk-full (root), clock; all = every kind (default ${DEFAULT-VALUE})")
    String faults;

    @Option(names = "--net", defaultValue = "relays", paramLabel = "relays|namespaces",
            description = "how links are cut: relays (user-space TCP relays on 127.0.0.1, resets) or namespaces (root: a"
                    + " network namespace per server on a bridge, blackhole routes, silent loss) (default ${DEFAULT-VALUE})")
    String net;

    @Option(names = "--clock-skew-ms", defaultValue = "250",
            description = "clock fault: the victim's clock offset, -3600000..3600000 (default ${DEFAULT-VALUE})")
    long clockSkewMillis;

    @Option(names = "--clock-drift-ppm", defaultValue = "5000",
            description = "clock fault: the victim's clock rate error, -900000..1000000; beyond the lease's lease.drift.ppm"
                    + " (10000 by default) timer leases are expected to be unsafe (default ${DEFAULT-VALUE})")
    long clockDriftPpm;
    @Option(names = "--rounds", defaultValue = "5", paramLabel = "N",
            description = "faults to inject, cycling through --faults, 1..10000 (default ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--seconds", paramLabel = "S", description = "inject no new fault after S seconds (default: no limit)")
    Integer seconds;

    @Option(names = "--fault-ms", defaultValue = "6000",
            description = "how long a partition is held; a pause lasts at least the session timeout + 2 s (default ${DEFAULT-VALUE})")
    int faultMillis;

    @Option(names = "--interval-ms", defaultValue = "2000",
            description = "quiet time between a fault's recovery and the next fault (default ${DEFAULT-VALUE})")
    int intervalMillis;

    @Option(names = "--recovery-s", defaultValue = "30",
            description = "after healing, every group must have a leader and commit within this bound (default ${DEFAULT-VALUE})")
    int recoverySeconds;

    @Option(names = "--lease", defaultValue = "none",
            description = "the servers' read lease (server config 'lease': none, leader, ...) (default ${DEFAULT-VALUE})")
    String lease;

    private PrintWriter out;
    private long startNanos;

    /** What one fault did: when the service was back, and how long nothing completed ok. */
    record FaultReport(int round, String kind, String target, double heldSeconds, double newLeaderSeconds,
            double unavailableSeconds, boolean recovered, double recoverySeconds) {}

    @Override
    public Integer call() throws Exception {
        List<String> kinds = parseFaults();
        validate();
        checkPrivileges(kinds);
        out = spec.commandLine().getOut();
        Path clusterDir = o.freshClusterDir(spec);
        long actualSeed = o.seedOrRandom();
        Random random = new Random(actualSeed);
        startNanos = System.nanoTime();
        progress("nemesis: faults %s, %d rounds, %d nodes, %d groups, %d clients, %d keys, lease %s, seed %d", kinds, rounds,
                o.nodes, o.groups, o.clients, o.keys, lease, actualSeed);
        try (ProcessCluster cluster = ProcessCluster.start(clusterDir, o.nodes, o.groups, o.sessionTimeoutMillis,
                List.of("lease=" + lease), out, true)) {
            progress(net.equals("namespaces") ? "moving every node into a network namespace of its own (each node restarts once)"
                    : "putting relays on every peer, ZooKeeper and client link (each node restarts once)");
            try (NemesisNet mesh = net.equals("namespaces") ? NamespaceNet.install(cluster) : RelayMesh.install(cluster);
                    NemesisDisk disk = kinds.contains("disk-full") ? new NemesisDisk(cluster, mesh) : null;
                    NemesisFaults nemesis = new NemesisFaults(cluster, mesh, disk, clockSkewMillis, clockDriftPpm)) {
                progress("network: %s", mesh.description());
                awaitLeaders(cluster, recoverySeconds);
                return run(cluster, mesh, nemesis, kinds, random);
            }
        }
    }

    private List<String> parseFaults() {
        Set<String> kinds = new LinkedHashSet<>();
        for (String name : faults.split(",")) {
            String k = name.strip();
            if (k.equals("partition")) {
                kinds.addAll(PARTITIONS);
            } else if (k.equals("all")) {
                kinds.addAll(KINDS);
            } else if (KINDS.contains(k)) {
                kinds.add(k);
            } else {
                throw new ParameterException(spec.commandLine(), "--faults: unknown fault '" + k + "' (expected "
                        + String.join(", ", KINDS) + ", partition or all)");
            }
        }
        return new ArrayList<>(kinds);
    }

    private void validate() {
        check(rounds >= 1 && rounds <= 10_000, "--rounds must be 1..10000, got " + rounds);
        check(seconds == null || (seconds >= 1 && seconds <= 7 * 24 * 3600), "--seconds must be 1..604800, got " + seconds);
        check(faultMillis >= 500 && faultMillis <= 600_000, "--fault-ms must be 500..600000, got " + faultMillis);
        check(intervalMillis >= 100 && intervalMillis <= 600_000, "--interval-ms must be 100..600000, got " + intervalMillis);
        check(recoverySeconds >= 5 && recoverySeconds <= 3600, "--recovery-s must be 5..3600, got " + recoverySeconds);
        check(lease.matches("[a-z-]{1,32}"), "--lease must be a lease mode name, got '" + lease + "'");
        check(net.equals("relays") || net.equals("namespaces"), "--net must be relays or namespaces, got '" + net + "'");
        check(Math.abs(clockSkewMillis) <= 3_600_000, "--clock-skew-ms must be -3600000..3600000, got " + clockSkewMillis);
        check(clockDriftPpm >= -900_000 && clockDriftPpm <= 1_000_000,
                "--clock-drift-ppm must be -900000..1000000, got " + clockDriftPpm);
        o.validate(spec);
    }

    /** Root-only choices, checked before anything starts: one line naming what is missing. */
    private void checkPrivileges(List<String> kinds) {
        if (net.equals("namespaces")) {
            String why = NamespaceNet.whyNotAvailable();
            check(why == null, why);
        }
        if (kinds.contains("disk-full")) {
            String why = NemesisDisk.whyNotAvailable();
            check(why == null, why);
        }
    }

    private void check(boolean ok, String message) {
        RunOptions.check(spec, ok, message);
    }

    private int run(ProcessCluster cluster, NemesisNet mesh, NemesisFaults nemesis, List<String> kinds, Random random)
            throws Exception {
        ListAppendWorkload workload = new ListAppendWorkload(o.groups, o.clients, o.keys, o.appendsPerKey, o.opTimeoutMillis);
        SharedHistory history = workload.history();
        List<FaultReport> reports = new ArrayList<>();
        try (KvClient client = new SdkKvClient(mesh.clientAddresses(), 1024, Duration.ofMillis(o.opTimeoutMillis),
                cluster.clientTls())) {
            progress("client: %s", client.description());
            workload.start(client, random);
            long deadline = seconds == null ? Long.MAX_VALUE : startNanos + seconds * 1_000_000_000L;
            try {
                for (int round = 1; round <= rounds && System.nanoTime() < deadline; round++) {
                    Thread.sleep(intervalMillis / 2 + random.nextInt(intervalMillis));
                    String kind = kinds.get((round - 1) % kinds.size());
                    FaultReport r = inject(round, kind, cluster, nemesis, client, history, random);
                    reports.add(r);
                    progress("fault %d/%d: %s of %s, held %.1f s; %s; no ok operation for %.1f s; %s", round, rounds, kind,
                            r.target(), r.heldSeconds(), r.newLeaderSeconds() < 0 ? "no other leader during the fault"
                                    : String.format("another leader after %.1f s", r.newLeaderSeconds()),
                            r.unavailableSeconds(), r.recovered() ? String.format("recovered %.1f s after healing",
                                    r.recoverySeconds()) : "NOT RECOVERED within " + recoverySeconds + " s");
                }
                Thread.sleep(Math.max(2_000, o.sessionTimeoutMillis));
            } finally {
                nemesis.healEverything();
                workload.stop();
            }
            progress("workload stopped: ops ok %d, fail %d, info %d; reading every key's final list", history.ok(),
                    history.failed(), history.info());
            ListAppendWorkload.Outcome outcome = workload.finish(client, o.dir, out);
            boolean recoveredAll = reports.stream().allMatch(FaultReport::recovered);
            boolean ok = outcome.ok(history) && recoveredAll;
            printSummary(cluster, workload, outcome, reports, ok);
            return ok ? 0 : BenchCli.EXIT_FAILED;
        }
    }

    private FaultReport inject(int round, String kind, ProcessCluster cluster, NemesisFaults nemesis, KvClient client,
            SharedHistory history, Random random) throws Exception {
        Map<Integer, Integer> leaders = cluster.leaders();
        int group = random.nextInt(o.groups);
        int victim = leaders.getOrDefault(group, random.nextInt(o.nodes));
        long held = kind.equals("pause") ? Math.max(faultMillis, o.sessionTimeoutMillis + 2_000L)
                : kind.equals("kill") ? 1_000L : faultMillis;
        nemesis.prepare(kind, victim, random);
        long t0 = history.nowNanos();
        String target = nemesis.inject(kind, victim, group, random);
        double newLeader = -1;
        long heldUntil = System.nanoTime() + held * 1_000_000L;
        Set<Integer> others = new LinkedHashSet<>();
        for (int n = 0; n < o.nodes; n++) {
            if (n != victim) {
                others.add(n);
            }
        }
        double replicaStopped = -1;
        while (System.nanoTime() < heldUntil) {
            Thread.sleep(100);
            if (newLeader < 0) {
                Integer l = cluster.leadersAmong(others).get(group);
                if (l != null && l != victim) {
                    newLeader = (history.nowNanos() - t0) / 1e9;
                }
            }
            if (kind.equals("disk-full") && replicaStopped < 0 && !nemesis.serving(victim)) {
                replicaStopped = (history.nowNanos() - t0) / 1e9;
            }
        }
        if (kind.equals("disk-full")) {
            target += replicaStopped < 0 ? "; its replicas kept serving" : String.format("; a replica stopped after %.1f s",
                    replicaStopped);
        }
        nemesis.heal(kind, victim);
        long healed = history.nowNanos();
        boolean recovered = awaitRecovery(cluster, client, round);
        long back = history.nowNanos();
        return new FaultReport(round, kind, target, (healed - t0) / 1e9, newLeader,
                history.longestGapNanos(t0, recovered ? Math.max(healed, history.lastOkNanos()) : back) / 1e9, recovered,
                (back - healed) / 1e9);
    }

    /**
     * Bounded by {@code --recovery-s}: every group reports a leader and commits a probe append (to a
     * key of its own outside the workload's, so the checked history is the workload's alone).
     */
    private boolean awaitRecovery(ProcessCluster cluster, KvClient client, int round) throws Exception {
        long deadline = System.nanoTime() + recoverySeconds * 1_000_000_000L;
        List<String> prefixes = new ArrayList<>(DemoCommand.prefixesPerGroup(ShardMap.uniform(o.groups)).values());
        Set<Integer> pending = new LinkedHashSet<>();
        for (int g = 0; g < o.groups; g++) {
            pending.add(g);
        }
        while (!pending.isEmpty() && System.nanoTime() < deadline) {
            Map<Integer, Integer> leaders = cluster.leaders();
            for (Integer g : new ArrayList<>(pending)) {
                if (!leaders.containsKey(g)) {
                    continue;
                }
                try {
                    client.append(prefixes.get(g) + "nemesis-probe", round).get(o.opTimeoutMillis, TimeUnit.MILLISECONDS);
                    pending.remove(g);
                } catch (Exception notYet) {
                    // Retried until the deadline.
                }
            }
            if (!pending.isEmpty()) {
                Thread.sleep(200);
            }
        }
        return pending.isEmpty();
    }

    private void awaitLeaders(ProcessCluster cluster, int boundSeconds) throws Exception {
        long deadline = System.nanoTime() + boundSeconds * 1_000_000_000L;
        while (cluster.leaders().size() < o.groups) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not every group has a leader " + boundSeconds + " s after the relays went in");
            }
            Thread.sleep(200);
        }
        progress("every group has a leader in the nemesis network");
    }

    private void printSummary(ProcessCluster cluster, ListAppendWorkload workload, ListAppendWorkload.Outcome outcome,
            List<FaultReport> reports, boolean ok) {
        out.println();
        out.println("summary");
        out.printf("  cluster:             %d server processes, %d groups, lease %s (%s)%n", o.nodes, o.groups, lease, cluster.dir());
        out.printf("  faults:              %d (%d recovered within %d s)%n", reports.size(),
                reports.stream().filter(FaultReport::recovered).count(), recoverySeconds);
        workload.printSummary(out, outcome);
        out.printf("  wall time:           %.1f s%n", (System.nanoTime() - startNanos) / 1e9);
        out.printf("  result:              %s%n", ok ? "OK" : "FAILED");
        out.println();
        out.println("  round  fault             target                          held s  other leader s  no-ok-op s  recovered (s after heal)");
        for (FaultReport r : reports) {
            out.printf("  %5d  %-16s  %-30s  %6.1f  %14s  %10.1f  %s%n", r.round(), r.kind(), r.target(), r.heldSeconds(),
                    r.newLeaderSeconds() < 0 ? "-" : String.format("%.1f", r.newLeaderSeconds()), r.unavailableSeconds(),
                    r.recovered() ? String.format("yes (%.1f)", r.recoverySeconds()) : "NO");
        }
        if (outcome.check().verdict() != Verdict.LINEARIZABLE) {
            out.println(outcome.check().explanation());
        }
        out.flush();
    }

    private void progress(String format, Object... args) {
        RunOptions.progress(out, startNanos, format, args);
    }
}
