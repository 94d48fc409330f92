package io.synod.bench.torture;

import io.synod.bench.kv.ProcessCluster;
import io.synod.server.cli.ClusterFile;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The network a {@code synod nemesis} run partitions: user-space relays on 127.0.0.1 ({@link RelayMesh},
 * resets) or network namespaces joined by a bridge ({@link NamespaceNet}, the kernel's own TCP under
 * silent loss). Both put the same links under the run's control: every directed peer link, each node's
 * ZooKeeper link and each node's client link.
 */
interface NemesisNet extends AutoCloseable {
    int nodes();

    /** Cuts the links between {@code a} and {@code b} in both directions. */
    void cutPeers(int a, int b);

    /** Cuts {@code node}'s link to ZooKeeper (its session expires after the session timeout). */
    void cutZookeeper(int node);

    /** Cuts the client (this run's SDK) from {@code node}; its peers and ZooKeeper still reach it. */
    void cutClient(int node);

    /** Every cut link works again. */
    void healAll() throws IOException;

    /** Starts a node that was killed again on its data, inside this network. */
    void restart(int node) throws IOException;

    /** The address the run's SDK dials for each node (through the client links above). */
    Map<Integer, InetSocketAddress> clientAddresses();

    /** One line for the progress output. */
    String description();

    @Override
    void close();

    /**
     * SIGKILL of {@code node} unless it is not running (a node may have died on its own, e.g. a start
     * that could not reach ZooKeeper in time on a loaded machine; the run restarts it next).
     */
    static void killIfRunning(ProcessCluster cluster, int node) throws IOException {
        for (ClusterFile.NodeEntry n : cluster.file().nodes()) {
            if (n.id() == node && ProcessHandle.of(n.pid()).map(ProcessHandle::isAlive).orElse(false)) {
                cluster.kill(node);
            }
        }
    }

    /**
     * Rewrites a server configuration file: each key of {@code set} replaces its line, or is appended;
     * a null value removes the key.
     */
    static void rewriteConfig(Path config, Map<String, String> set) throws IOException {
        Map<String, String> pending = new HashMap<>(set);
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(config, StandardCharsets.UTF_8)) {
            int eq = line.indexOf('=');
            String key = eq < 0 ? null : line.substring(0, eq).strip();
            if (key != null && pending.containsKey(key)) {
                String value = pending.remove(key);
                if (value != null) {
                    lines.add(key + "=" + value);
                }
            } else {
                lines.add(line);
            }
        }
        pending.forEach((k, v) -> {
            if (v != null) {
                lines.add(k + "=" + v);
            }
        });
        Files.write(config, lines, StandardCharsets.UTF_8);
    }

    /** Runs a command (bounded: 20 s); its output, or an IOException naming the command and its error. */
    static String run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("'" + String.join(" ", command) + "' did not finish within 20 s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException("'" + String.join(" ", command) + "' failed: " + out.strip().replace('\n', ' '));
        }
        return out;
    }
}
