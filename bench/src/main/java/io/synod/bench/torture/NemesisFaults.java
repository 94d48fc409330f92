package io.synod.bench.torture;

import io.synod.bench.kv.ProcessCluster;
import io.synod.server.cli.ClusterFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * How each fault of {@code synod nemesis} is made and undone on the processes the run started:
 * partitions through the {@link RelayMesh}, SIGSTOP/SIGCONT through {@code kill} on the PID the
 * cluster file records, SIGKILL and restart through {@code synod cluster}. {@link #close()} resumes
 * every process still stopped and heals every link, also when the run fails.
 */
final class NemesisFaults implements AutoCloseable {
    private final ProcessCluster cluster;
    private final RelayMesh mesh;
    private final Set<Long> stopped = new HashSet<>();
    private final Set<Integer> killed = new HashSet<>();

    NemesisFaults(ProcessCluster cluster, RelayMesh mesh) {
        this.cluster = cluster;
        this.mesh = mesh;
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
                cluster.kill(victim);
                killed.add(victim);
                return "node " + victim + " (g" + group + " leader) SIGKILL";
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
                cluster.restart(victim);
                killed.remove(victim);
            }
            default -> mesh.healAll();
        }
    }

    /** Every link healed, every stopped process resumed, every killed node restarted. */
    void healEverything() throws IOException, InterruptedException {
        for (long pid : new ArrayList<>(stopped)) {
            signal("-CONT", pid);
            stopped.remove(pid);
        }
        for (int node : new ArrayList<>(killed)) {
            cluster.restart(node);
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

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("kill", signal, Long.toString(pid)).redirectErrorStream(true).start();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("kill " + signal + " " + pid + " did not finish");
        }
        if (p.exitValue() != 0) {
            throw new IOException("kill " + signal + " " + pid + " failed: " + new String(p.getInputStream().readAllBytes()).strip());
        }
    }

    @Override
    public void close() {
        for (long pid : stopped) {
            try {
                signal("-CONT", pid);
            } catch (IOException | InterruptedException e) {
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
