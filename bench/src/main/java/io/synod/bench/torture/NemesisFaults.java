package io.synod.bench.torture;

import io.synod.bench.kv.ProcessCluster;
import io.synod.server.cli.ClusterFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * How each fault of {@code synod nemesis} is made and undone on the processes the run started:
 * partitions through the {@link NemesisNet} (relays or namespaces), SIGSTOP/SIGCONT through
 * {@code kill} on the PID the cluster file records, SIGKILL and restart, a full disk through
 * {@link NemesisDisk}, a drifting clock through the server's test clock keys. {@link #close()} resumes
 * every process still stopped and heals every link, also when the run fails.
 */
final class NemesisFaults implements AutoCloseable {
    /** Server config keys of the test clock ({@code io.synod.server.config.TestClock}). */
    private static final List<String> CLOCK_KEYS = List.of("test.faults.enabled", "test.clock.skew.ms", "test.clock.drift.ppm");

    private final ProcessCluster cluster;
    private final NemesisNet mesh;
    private final NemesisDisk disk;
    private final long clockSkewMillis;
    private final long clockDriftPpm;
    private final Set<Long> stopped = new HashSet<>();
    private final Set<Integer> killed = new HashSet<>();
    private int clockNode = -1;

    /** {@code disk} may be null (no disk-full faults in the run). */
    NemesisFaults(ProcessCluster cluster, NemesisNet mesh, NemesisDisk disk, long clockSkewMillis, long clockDriftPpm) {
        this.cluster = cluster;
        this.mesh = mesh;
        this.disk = disk;
        this.clockSkewMillis = clockSkewMillis;
        this.clockDriftPpm = clockDriftPpm;
    }

    /**
     * What a fault needs before it starts, done before its clock runs: {@code disk-full} moves the
     * victim's data onto a small filesystem (a restart, the first time); {@code clock} restarts a
     * follower of the victim's group (another node than the victim) on the skewed, drifting clock.
     */
    void prepare(String kind, int victim, Random random) throws IOException {
        switch (kind) {
            case "disk-full" -> disk.mount(victim);
            case "clock" -> {
                clockNode = (victim + 1 + random.nextInt(mesh.nodes() - 1)) % mesh.nodes();
                setClock(clockNode, true);
                NemesisNet.killIfRunning(cluster, clockNode);
                mesh.restart(clockNode);
            }
            default -> {
                // Nothing to prepare.
            }
        }
    }

    /** Starts fault {@code kind} against {@code victim} (the leader of {@code group}, when it has one); returns what was hit. */
    String inject(String kind, int victim, int group, Random random) throws IOException, InterruptedException {
        int nodes = mesh.nodes();
        switch (kind) {
            case "split" -> {
                // The victim and, with five nodes, one more node form the minority.
                List<Integer> minority = new ArrayList<>(List.of(victim));
                if (nodes == 5) {
                    int other = (victim + 1 + random.nextInt(nodes - 1)) % nodes;
                    minority.add(other);
                }
                for (int a : minority) {
                    for (int b = 0; b < nodes; b++) {
                        if (!minority.contains(b)) {
                            mesh.cutPeers(a, b);
                        }
                    }
                }
                return "minority " + minority;
            }
            case "leader-isolation" -> {
                for (int b = 0; b < nodes; b++) {
                    if (b != victim) {
                        mesh.cutPeers(victim, b);
                    }
                }
                return "node " + victim + " (g" + group + " leader) from peers";
            }
            case "bridge" -> {
                // Two halves that share one node (the bridge): the victim's side and the other side reach
                // the bridge, not each other, so only the bridge can see a majority.
                int bridge = (victim + 1 + random.nextInt(nodes - 1)) % nodes;
                List<Integer> rest = new ArrayList<>();
                for (int n = 0; n < nodes; n++) {
                    if (n != victim && n != bridge) {
                        rest.add(n);
                    }
                }
                List<Integer> side = new ArrayList<>(List.of(victim));
                side.addAll(rest.subList(0, (nodes - 3) / 2));
                for (int a : side) {
                    for (int b : rest) {
                        if (!side.contains(b)) {
                            mesh.cutPeers(a, b);
                        }
                    }
                }
                return "halves " + side + "+" + bridge + " / " + bridge + "+" + rest.stream().filter(n -> !side.contains(n)).toList();
            }
            case "client-cut" -> {
                mesh.cutClient(victim);
                return "client from node " + victim + " (g" + group + " leader)";
            }
            case "zk-isolation" -> {
                mesh.cutZookeeper(victim);
                return "node " + victim + " (g" + group + " leader) from ZK";
            }
            case "pause" -> {
                long pid = pid(victim);
                signal("-STOP", pid);
                stopped.add(pid);
                return "node " + victim + " (g" + group + " leader) SIGSTOP";
            }
            case "kill" -> {
                NemesisNet.killIfRunning(cluster, victim);
                killed.add(victim);
                return "node " + victim + " (g" + group + " leader) SIGKILL";
            }
            case "disk-full" -> {
                return disk.fill(victim);
            }
            case "clock" -> {
                // Another node leads while a node on a drifting clock takes part: the leader is cut from its
                // peers (its clients still reach it) after prepare() restarted a follower on that clock.
                for (int b = 0; b < nodes; b++) {
                    if (b != victim) {
                        mesh.cutPeers(victim, b);
                    }
                }
                return String.format("node %d clock %+d ms %+d ppm; leader %d cut from peers", clockNode, clockSkewMillis,
                        clockDriftPpm, victim);
            }
            default -> throw new IllegalArgumentException("unknown fault " + kind);
        }
    }

    /** Undoes fault {@code kind} of {@code victim}. */
    void heal(String kind, int victim) throws IOException, InterruptedException {
        switch (kind) {
            case "pause" -> {
                long pid = pid(victim);
                signal("-CONT", pid);
                stopped.remove(pid);
            }
            case "kill" -> {
                mesh.restart(victim);
                killed.remove(victim);
            }
            case "disk-full" -> disk.heal(victim);
            case "clock" -> {
                mesh.healAll();
                setClock(clockNode, false);
                NemesisNet.killIfRunning(cluster, clockNode);
                mesh.restart(clockNode);
            }
            default -> mesh.healAll();
        }
    }

    /** Whether {@code node}'s groups all serve (the disk-full fault watches its replica stop). */
    boolean serving(int node) throws IOException {
        return disk == null || disk.serving(node);
    }

    private void setClock(int node, boolean on) throws IOException {
        Map<String, String> set = new HashMap<>();
        for (String key : CLOCK_KEYS) {
            set.put(key, null);
        }
        if (on) {
            set.put(CLOCK_KEYS.get(0), "true");
            set.put(CLOCK_KEYS.get(1), Long.toString(clockSkewMillis));
            set.put(CLOCK_KEYS.get(2), Long.toString(clockDriftPpm));
        }
        for (ClusterFile.NodeEntry n : cluster.file().nodes()) {
            if (n.id() == node) {
                NemesisNet.rewriteConfig(Path.of(n.config()), set);
            }
        }
    }

    /** Every link healed, every stopped process resumed, every killed node restarted. */
    void healEverything() throws IOException, InterruptedException {
        for (long pid : new ArrayList<>(stopped)) {
            signal("-CONT", pid);
            stopped.remove(pid);
        }
        for (int node : new ArrayList<>(killed)) {
            mesh.restart(node);
            killed.remove(node);
        }
        mesh.healAll();
    }

    private long pid(int node) throws IOException {
        for (ClusterFile.NodeEntry n : cluster.file().nodes()) {
            if (n.id() == node) {
                return n.pid();
            }
        }
        throw new IOException("no node " + node + " in " + cluster.dir());
    }

    private static void signal(String signal, long pid) throws IOException {
        NemesisNet.run(List.of("kill", signal, Long.toString(pid)));
    }

    @Override
    public void close() {
        for (long pid : stopped) {
            try {
                signal("-CONT", pid);
            } catch (IOException e) {
                // The stop below ends it anyway (SIGKILL works on a stopped process).
            }
        }
        stopped.clear();
        try {
            mesh.healAll();
        } catch (IOException e) {
            // The mesh is closed right after.
        }
    }
}
