package io.synod.bench.kv;

import io.synod.client.TlsFiles;
import io.synod.core.paxos.Role;
import io.synod.protocol.ClientFrame;
import io.synod.server.cli.ClusterCommand;
import io.synod.server.cli.ClusterFile;
import io.synod.server.client.NodeClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import picocli.CommandLine;

/**
 * A local Synod cluster of real processes, driven through the {@code synod cluster} commands
 * ({@link ClusterCommand}: one ZooKeeper JVM, N server JVMs, {@code DIR/cluster.json}). Used by
 * {@code synod torture} and {@code synod bench kv}. {@link #close()} stops every process it started
 * (SIGTERM, then SIGKILL after 30 s); the data stays in the directory.
 */
public final class ProcessCluster implements AutoCloseable {
    private final Path dir;
    private final PrintWriter progress;
    private final Thread shutdownHook;
    private boolean stopped;

    private ProcessCluster(Path dir, PrintWriter progress) {
        this.dir = dir;
        this.progress = progress;
        this.shutdownHook = new Thread(this::stopQuietly, "synod-cluster-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Runs {@code synod cluster start} in {@code dir}; its lines go to {@code progress} when
     * {@code verbose}. Returns when every group has a leader.
     */
    public static ProcessCluster start(Path dir, int nodes, int groups, int sessionTimeoutMillis, List<String> sets,
            PrintWriter progress, boolean verbose) throws IOException {
        return start(dir, nodes, groups, sessionTimeoutMillis, sets, progress, verbose, false);
    }

    /** {@link #start(Path, int, int, int, List, PrintWriter, boolean)}, with {@code --insecure} (no TLS) when {@code insecure}. */
    public static ProcessCluster start(Path dir, int nodes, int groups, int sessionTimeoutMillis, List<String> sets,
            PrintWriter progress, boolean verbose, boolean insecure) throws IOException {
        List<String> args = new ArrayList<>(List.of("start", "--dir", dir.toString(), "--nodes", Integer.toString(nodes),
                "--groups", Integer.toString(groups), "--session-timeout-ms", Integer.toString(sessionTimeoutMillis),
                "--timeout-s", "120"));
        if (insecure) {
            args.add("--insecure");
        }
        for (String s : sets) {
            args.add("--set");
            args.add(s);
        }
        ProcessCluster cluster = new ProcessCluster(dir, progress);
        String output = cluster.run(verbose, args.toArray(String[]::new));
        if (output == null) {
            cluster.close();
            throw new IOException("synod cluster start failed in " + dir + " (see the logs there)");
        }
        return cluster;
    }

    /** Runs one {@code synod cluster} subcommand; returns its output, or null when it failed. */
    private String run(boolean echo, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new ClusterCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        if (echo) {
            out.toString().lines().forEach(l -> progress.println("  " + l));
            progress.flush();
        }
        if (code != 0) {
            progress.println("  synod cluster " + args[0] + " failed (exit " + code + "): " + err.toString().strip());
            progress.flush();
            return null;
        }
        return out.toString();
    }

    public Path dir() {
        return dir;
    }

    public ClusterFile file() throws IOException {
        return ClusterFile.read(dir);
    }

    /** Every node's client address, by node id. */
    public Map<Integer, InetSocketAddress> clientAddresses() throws IOException {
        Map<Integer, InetSocketAddress> out = new TreeMap<>();
        for (ClusterFile.NodeEntry n : file().nodes()) {
            out.put(n.id(), new InetSocketAddress("127.0.0.1", n.clientPort()));
        }
        return out;
    }

    /** The cluster's client certificate files (TLS), or null when it runs with --insecure. */
    public TlsFiles clientTls() throws IOException {
        return ClusterCommand.clientTls(dir, file());
    }

    /** SIGKILL of one node ({@code synod cluster kill}). */
    public void kill(int node) throws IOException {
        if (run(false, "kill", "--dir", dir.toString(), Integer.toString(node)) == null) {
            throw new IOException("synod cluster kill " + node + " failed");
        }
    }

    /** Starts one node again on its data ({@code synod cluster restart}); returns when its client port is open. */
    public void restart(int node) throws IOException {
        if (run(false, "restart", "--dir", dir.toString(), Integer.toString(node)) == null) {
            throw new IOException("synod cluster restart " + node + " failed");
        }
    }

    /**
     * The leader of each group as the running nodes report it (group -> node id); groups without a
     * leader right now are absent.
     */
    public Map<Integer, Integer> leaders() throws IOException {
        return leadersAmong(clientAddresses().keySet());
    }

    /**
     * {@link #leaders()} as reported by the nodes in {@code asked} only (a node cut off from its peers
     * may still call itself leader; asking the others shows whether they elected someone else).
     */
    public Map<Integer, Integer> leadersAmong(Set<Integer> asked) throws IOException {
        Map<Integer, Integer> out = new TreeMap<>();
        TlsFiles tls = clientTls();
        for (Map.Entry<Integer, InetSocketAddress> e : clientAddresses().entrySet()) {
            if (!asked.contains(e.getKey())) {
                continue;
            }
            try {
                ClientFrame.StatusReport r = NodeClient.status(e.getValue(), 1_000, 16 << 20, tls);
                for (ClientFrame.GroupStatus s : r.groups()) {
                    if (s.role() == Role.LEADER.ordinal()) {
                        out.put(s.group(), r.nodeId());
                    }
                }
            } catch (IOException down) {
                // Not running or not answering: it leads nothing we can reach.
            }
        }
        return out;
    }

    private void stopQuietly() {
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
        }
        run(false, "stop", "--dir", dir.toString());
    }

    @Override
    public void close() {
        stopQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // Already running the hook.
        }
    }
}
