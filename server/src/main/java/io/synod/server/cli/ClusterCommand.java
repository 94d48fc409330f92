package io.synod.server.cli;

import io.synod.client.TlsFiles;
import io.synod.core.paxos.Role;
import io.synod.protocol.ClientFrame;
import io.synod.server.client.NodeClient;
import io.synod.server.config.ConfigException;
import io.synod.server.config.ServerConfig;
import io.synod.server.config.SnapshotSettings;
import io.synod.server.config.ZooKeeperSettings;
import io.synod.server.group.GroupWorkers;
import io.synod.server.node.LocalCluster;
import io.synod.server.security.LocalCa;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code synod cluster start|status|kill|restart|stop|add-node --dir DIR}: a local cluster of real
 * processes on 127.0.0.1 — one ZooKeeper server JVM and N Synod server JVMs, each with its own data
 * directory under DIR — described by {@code DIR/cluster.json}.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true,
        description = "Run a local cluster of real processes: one ZooKeeper server and N Synod servers.",
        subcommands = {ClusterCommand.Start.class, ClusterCommand.Status.class, ClusterCommand.Kill.class,
                ClusterCommand.Restart.class, ClusterCommand.Stop.class, AddNodeCommand.class})
public final class ClusterCommand implements Runnable {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand: start, status, kill, restart, stop "
                + "or add-node");
    }

    static final int MAX_FRAME = 16 << 20;

    /** Printed at every start of an insecure local cluster or demo. */
    static final String INSECURE_WARNING = "WARNING: --insecure: no TLS and no authentication; anyone who reaches the "
            + "ports can forge peer messages and read or write every key";
    static final String DEFAULT_JVM_OPTS = "-Xmx384m -XX:+UseSerialGC";

    abstract static class DirCommand implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--dir", required = true, paramLabel = "DIR", description = "the cluster's directory")
        Path dir;

        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        CommandLine.ParameterException bad(String message) {
            return new CommandLine.ParameterException(spec.commandLine(), message);
        }

        ClusterFile load() {
            try {
                return ClusterFile.read(dir);
            } catch (IOException e) {
                throw bad(e.getMessage());
            }
        }

        /** The client files of this cluster, or null when its nodes run with insecure=true. */
        TlsFiles clientTls(ClusterFile file) {
            return ClusterCommand.clientTls(dir, file);
        }

        ClusterFile.NodeEntry node(ClusterFile file, int id) {
            return file.nodes().stream().filter(n -> n.id() == id).findFirst()
                    .orElseThrow(() -> bad("no node " + id + " in " + ClusterFile.path(dir) + " (nodes 0.."
                            + (file.nodes().size() - 1) + ")"));
        }
    }

    @Command(name = "start", mixinStandardHelpOptions = true,
            description = "Start ZooKeeper and N Synod servers; return when every group has a leader.")
    static final class Start extends DirCommand {
        @Option(names = "--nodes", defaultValue = "3", description = "1, 3 or 5 (default ${DEFAULT-VALUE}; 1 = no replication, for benchmarks); 2..9 with "
                + "--set replicas=N (groups of N replicas placed on the nodes)")
        int nodes;

        @Option(names = "--groups", defaultValue = "4", description = "replication groups, 1..64 (default ${DEFAULT-VALUE})")
        int groups;

        @Option(names = "--session-timeout-ms", defaultValue = "4000",
                description = "ZooKeeper session timeout, 1000..60000 (default ${DEFAULT-VALUE})")
        int sessionTimeoutMillis;

        @Option(names = "--timeout-s", defaultValue = "90", description = "give up waiting for leaders after this (default ${DEFAULT-VALUE})")
        int timeoutSeconds;

        @Option(names = "--name", defaultValue = "local", description = "cluster name (default ${DEFAULT-VALUE})")
        String name;

        @Option(names = "--set", paramLabel = "KEY=VALUE", description = "extra server config for every node (repeatable); "
                + "without group.workers=W each node gets max(1, processors / nodes) group workers, as the nodes share this host; "
                + "without snapshot.every.bytes or log.retain.bytes, bounds of each group's log that fit the servers' heaps")
        List<String> sets = new ArrayList<>();

        @Option(names = "--insecure", description = "no TLS and no authentication on the servers' peer and client ports (warned at "
                + "every start; the cluster's ZooKeeper znodes stay protected by DIR/zookeeper.secret); by default "
                + "a CA in DIR/certs signs a certificate for every node and the client user 'root'")
        boolean insecure;

        @Override
        public Integer call() throws Exception {
            boolean placed = sets.stream().anyMatch(s -> s.startsWith("replicas=")); // groups on fewer nodes than M
            if (nodes != 1 && nodes != 3 && nodes != 5 && !(placed && nodes >= 2 && nodes <= 9)) {
                throw bad("--nodes must be 1, 3 or 5 (2..9 with --set replicas=N), got " + nodes);
            }
            if (groups < 1 || groups > 64) {
                throw bad("--groups must be 1..64, got " + groups);
            }
            if (sessionTimeoutMillis < 1000 || sessionTimeoutMillis > 60_000) {
                throw bad("--session-timeout-ms must be 1000..60000, got " + sessionTimeoutMillis);
            }
            if (timeoutSeconds < 1 || timeoutSeconds > 3600) {
                throw bad("--timeout-s must be 1..3600, got " + timeoutSeconds);
            }
            if (!name.matches("[A-Za-z0-9_.-]{1,64}")) {
                throw bad("--name must be 1..64 of [A-Za-z0-9_.-], got '" + name + "'");
            }
            if (Files.exists(ClusterFile.path(dir))) {
                ClusterFile old = ClusterFile.read(dir);
                if (alive(old.zookeeperPid()) || old.nodes().stream().anyMatch(n -> alive(n.pid()))) {
                    throw bad("a cluster is already running in " + dir + " (run 'synod cluster stop --dir " + dir + "')");
                }
            }
            Files.createDirectories(dir);
            PrintWriter out = out();
            if (insecure) {
                spec().getErr().println(INSECURE_WARNING);
            } else {
                LocalCa.ensure(dir, name, nodes);
            }
            ZooKeeperSettings.ensureLocalSecret(dir); // The servers' ZooKeeper identity, also with --insecure.
            int zkPort = LocalCluster.freePort();
            Path zkDir = dir.resolve("zookeeper");
            Files.createDirectories(zkDir.resolve("data"));
            Path zkCfg = zkDir.resolve("zoo.cfg");
            Files.writeString(zkCfg, "tickTime=500\ninitLimit=10\nsyncLimit=5\ndataDir=" + zkDir.resolve("data").toAbsolutePath()
                    + "\nclientPort=" + zkPort + "\nclientPortAddress=127.0.0.1\nminSessionTimeout=1000\nmaxSessionTimeout=60000\n"
                    + "admin.enableServer=false\n4lw.commands.whitelist=srvr,ruok\n", StandardCharsets.UTF_8);
            Process zk = launch(List.of("-Xmx256m", "-XX:+UseSerialGC", "-Dzookeeper.admin.enableServer=false"),
                    "org.apache.zookeeper.server.quorum.QuorumPeerMain", List.of(zkCfg.toAbsolutePath().toString()),
                    zkDir.resolve("zookeeper.log"));
            awaitPort(zkPort, 30_000, "ZooKeeper");
            out.printf("zookeeper  pid %d  127.0.0.1:%d%n", zk.pid(), zkPort);

            // The nodes share this host: unless set, each gets its share of the cores in group workers (GroupWorkers).
            String workers = sets.stream().anyMatch(s -> s.startsWith(ServerConfig.GROUP_WORKERS_KEY + "=")) ? ""
                    : ServerConfig.GROUP_WORKERS_KEY + "=" + GroupWorkers.coLocatedCount(nodes) + "\n";
            // Their heaps are small (DEFAULT_JVM_OPTS): unless set, each group's log gets bounds that fit them together.
            String logBounds = sets.stream().anyMatch(s -> s.startsWith("snapshot.every.bytes=") || s.startsWith("log.retain.bytes="))
                    ? "" : SnapshotSettings.fittedKeys(groups, maxHeapBytes(serverJavaOpts()));
            StringBuilder spec = new StringBuilder();
            int[][] ports = new int[nodes][3];
            for (int i = 0; i < nodes; i++) {
                ports[i] = new int[] {LocalCluster.freePort(), LocalCluster.freePort(), LocalCluster.freePort()};
                spec.append(i == 0 ? "" : ",").append(i).append("@127.0.0.1:").append(ports[i][0]).append(':').append(ports[i][1]);
            }
            List<ClusterFile.NodeEntry> entries = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                Path nodeDir = dir.resolve("node-" + i).toAbsolutePath();
                Files.createDirectories(nodeDir);
                Path cfg = nodeDir.resolve("server.properties");
                Files.writeString(cfg, "cluster.name=" + name + "\nnode.id=" + i + "\nnodes=" + spec + "\nzookeeper.connect=127.0.0.1:"
                        + zkPort + "\nzookeeper.session.timeout.ms=" + sessionTimeoutMillis + "\ndata.dir=" + nodeDir.resolve("data")
                        + "\ngroups=" + groups + "\nmetrics.port=" + ports[i][2] + "\n"
                        + (insecure ? "insecure=true\n" : LocalCa.serverKeys(dir, i)) + ZooKeeperSettings.localKeys(dir)
                        + workers + logBounds + String.join("\n", sets) + "\n",
                        StandardCharsets.UTF_8);
                try {
                    ServerConfig.load(cfg, List.of());
                } catch (ConfigException e) {
                    zk.destroyForcibly();
                    for (ClusterFile.NodeEntry started : entries) {
                        ProcessHandle.of(started.pid()).ifPresent(ProcessHandle::destroyForcibly);
                    }
                    throw bad("--set: " + e.getMessage());
                }
                Path log = nodeDir.resolve("server.log");
                Process p = startServer(cfg, log, List.of());
                entries.add(new ClusterFile.NodeEntry(i, p.pid(), ports[i][0], ports[i][1], ports[i][2], cfg.toString(),
                        log.toString()));
            }
            ClusterFile file = new ClusterFile(name, groups, zk.pid(), zkPort, entries);
            file.write(dir);
            for (ClusterFile.NodeEntry e : entries) {
                out.printf("node %d     pid %d  client 127.0.0.1:%d  peer 127.0.0.1:%d  metrics http://127.0.0.1:%d/metrics%n",
                        e.id(), e.pid(), e.clientPort(), e.peerPort(), e.metricsPort());
            }
            out.printf("wrote %s%n", ClusterFile.path(dir));
            out.flush();
            long t0 = System.nanoTime();
            List<ClientFrame.GroupStatus> leaders = awaitLeaders(file, timeoutSeconds * 1000L, clientTls(file));
            if (leaders == null) {
                spec().getErr().printf("error: not every group has a leader after %d s; see the logs under %s "
                        + "(the processes keep running: 'synod cluster stop --dir %s')%n", timeoutSeconds, dir, dir);
                return 1;
            }
            for (ClientFrame.GroupStatus s : leaders) {
                out.printf("group %d    leader node %d, epoch %d%n", s.group(), s.leaderHint(), s.promisedEpoch());
            }
            out.printf("cluster '%s' ready: %d nodes, %d groups, every group has a leader (%.1f s)%n", name, nodes, groups,
                    (System.nanoTime() - t0) / 1e9);
            return 0;
        }

        private CommandLine spec() {
            return spec.commandLine();
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = "Show processes, the groups each node leads, and each group's leader, epoch, commit slot, lease mode and coding in force.")
    static final class Status extends DirCommand {
        @Override
        public Integer call() {
            ClusterFile file = load();
            PrintWriter out = out();
            out.printf("cluster '%s': %d groups%n", file.cluster(), file.groups());
            out.printf("zookeeper  pid %d  127.0.0.1:%d  %s%n", file.zookeeperPid(), file.zookeeperPort(),
                    alive(file.zookeeperPid()) ? "running" : "not running");
            List<ClientFrame.StatusReport> reports = new ArrayList<>();
            for (ClusterFile.NodeEntry n : file.nodes()) {
                String state;
                if (!alive(n.pid())) {
                    state = "not running";
                } else {
                    try {
                        ClientFrame.StatusReport report = NodeClient.status(new InetSocketAddress("127.0.0.1",
                                n.clientPort()), 2_000, MAX_FRAME, clientTls(file));
                        reports.add(report);
                        state = "serving, " + leads(report);
                    } catch (IOException e) {
                        state = "running, client port not answering (" + e.getMessage() + ")";
                    }
                }
                out.printf("node %d     pid %d  client 127.0.0.1:%d  %s%n", n.id(), n.pid(), n.clientPort(), state);
            }
            for (int g = 0; g < file.groups(); g++) {
                out.printf("group %d    %s%n", g, describeGroup(g, reports));
            }
            return 0;
        }

        /** "leads groups 0, 2" or "leads no group", from one node's report. */
        static String leads(ClientFrame.StatusReport report) {
            List<String> led = new ArrayList<>();
            for (ClientFrame.GroupStatus s : report.groups()) {
                if (s.role() == Role.LEADER.ordinal()) {
                    led.add(String.valueOf(s.group()));
                }
            }
            return led.isEmpty() ? "leads no group" : "leads group" + (led.size() == 1 ? " " : "s ") + String.join(", ", led);
        }

        /**
         * One group's line: its leader and epoch, the highest commit slot reported, and the lease mode and coding in
         * force as the leader's replica has them (a coding change moves it; the spec in ZooKeeper keeps the first);
         * without a leader, as the replica with the highest applied slot has them. Members not serving are named.
         */
        static String describeGroup(int group, List<ClientFrame.StatusReport> reports) {
            String leader = "none";
            long commit = -1;
            ClientFrame.GroupStatus source = null;
            StringBuilder states = new StringBuilder();
            for (ClientFrame.StatusReport r : reports) {
                if (group >= r.groups().size()) {
                    continue;
                }
                ClientFrame.GroupStatus s = r.groups().get(group);
                boolean leads = s.role() == Role.LEADER.ordinal();
                if (leads) {
                    leader = "node " + r.nodeId() + " (epoch " + s.promisedEpoch() + ")";
                }
                if (source == null || leads || (source.role() != Role.LEADER.ordinal()
                        && s.appliedSlot() > source.appliedSlot())) {
                    source = s;
                }
                commit = Math.max(commit, s.commitSlot());
                if (s.state() != ClientFrame.GroupStatus.SERVING) {
                    states.append(" node ").append(r.nodeId())
                            .append(s.state() == ClientFrame.GroupStatus.REPAIRING ? " repairing" : " FAILED");
                }
            }
            String mode = source == null ? "" : ", lease " + source.lease() + ", coding " + source.coding().describe();
            return "leader " + leader + ", commit slot " + commit + mode + states;
        }
    }

    /** A subcommand about one node of the cluster. */
    abstract static class NodeCommand extends DirCommand {
        @Parameters(paramLabel = "NODE", description = "node id")
        int id;
    }

    @Command(name = "kill", mixinStandardHelpOptions = true, description = "SIGKILL one Synod server process.")
    static final class Kill extends NodeCommand {
        @Override
        public Integer call() throws Exception {
            ClusterFile file = load();
            ClusterFile.NodeEntry n = node(file, id);
            ProcessHandle h = running(n.pid()).orElseThrow(() -> bad("node " + id + " (pid " + n.pid() + ") is not running"));
            terminate(h, true);
            out().printf("killed node %d (pid %d) with SIGKILL%n", id, n.pid());
            return 0;
        }
    }

    @Command(name = "restart", mixinStandardHelpOptions = true,
            description = "Start one Synod server again on its data (stopping it first if it runs).")
    static final class Restart extends NodeCommand {
        @Override
        public Integer call() throws Exception {
            ClusterFile file = load();
            ClusterFile.NodeEntry n = node(file, id);
            long pid = restartNode(dir, file, n, List.of());
            awaitPort(n.clientPort(), 60_000, "node " + id);
            out().printf("restarted node %d: pid %d, client 127.0.0.1:%d%n", id, pid, n.clientPort());
            return 0;
        }
    }

    /**
     * Stops node {@code n} of the cluster in {@code dir} if it runs, starts it again on its data with
     * {@code launchPrefix} before the java command ({@code synod nemesis --net namespaces} passes
     * {@code ip netns exec NS}, which execs java in the node's namespace, so the pid is java's), and
     * records the new pid in the cluster file. Returns the pid; does not wait for the node.
     */
    public static long restartNode(Path dir, ClusterFile file, ClusterFile.NodeEntry n, List<String> launchPrefix)
            throws IOException {
        running(n.pid()).ifPresent(h -> terminate(h, false));
        Process p = startServer(Path.of(n.config()), Path.of(n.log()), launchPrefix);
        ClusterFile.NodeEntry updated = new ClusterFile.NodeEntry(n.id(), p.pid(), n.peerPort(), n.clientPort(),
                n.metricsPort(), n.config(), n.log());
        ClusterFile.read(dir).withNode(updated).write(dir);
        return p.pid();
    }

    @Command(name = "stop", mixinStandardHelpOptions = true, description = "Stop every process of the cluster (data stays).")
    static final class Stop extends DirCommand {
        @Override
        public Integer call() throws Exception {
            ClusterFile file = load();
            List<ProcessHandle> stopping = new ArrayList<>();
            for (ClusterFile.NodeEntry n : file.nodes()) {
                running(n.pid()).ifPresent(h -> {
                    h.destroy();
                    stopping.add(h);
                });
            }
            for (ProcessHandle h : stopping) {
                terminate(h, false);
            }
            running(file.zookeeperPid()).ifPresent(h -> terminate(h, false));
            out().printf("stopped cluster '%s' (%d servers and ZooKeeper); data kept in %s%n", file.cluster(),
                    file.nodes().size(), dir);
            return 0;
        }
    }

    // ---- helpers ------------------------------------------------------------------------------------

    /**
     * The client files of the local cluster in {@code dir}, or null when its nodes run with insecure=true:
     * node 0's configuration says which, so the client follows whatever the servers were started with.
     */
    public static TlsFiles clientTls(Path dir, ClusterFile file) {
        try {
            boolean insecure = ServerConfig.load(Path.of(file.nodes().get(0).config()), List.of()).tls().insecure();
            return insecure ? null : LocalCa.clientFiles(dir);
        } catch (ConfigException e) {
            throw new IllegalArgumentException("cannot read node 0's configuration in " + dir + ": " + e.getMessage());
        }
    }

    static boolean alive(long pid) {
        return running(pid).isPresent();
    }

    static Optional<ProcessHandle> running(long pid) {
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
    }

    /** SIGKILL ({@code force}) or SIGTERM and wait up to 30 s, then SIGKILL; returns when the process is gone. */
    static void terminate(ProcessHandle h, boolean force) {
        if (force) {
            h.destroyForcibly();
        } else {
            h.destroy();
        }
        try {
            h.onExit().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            h.destroyForcibly();
            h.onExit().join();
        }
    }

    /** The server JVMs' options: {@code SYNOD_SERVER_JAVA_OPTS}, or {@link #DEFAULT_JVM_OPTS}. */
    static String serverJavaOpts() {
        return System.getenv().getOrDefault("SYNOD_SERVER_JAVA_OPTS", DEFAULT_JVM_OPTS);
    }

    /** The heap bound {@code -Xmx} sets in {@code opts} (the last one wins, as in the JVM), or Long.MAX_VALUE without one. */
    static long maxHeapBytes(String opts) {
        long max = Long.MAX_VALUE;
        Matcher m = XMX.matcher(opts);
        while (m.find()) {
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2).toLowerCase(Locale.ROOT);
            max = unit.equals("g") ? n << 30 : unit.equals("m") ? n << 20 : unit.equals("k") ? n << 10 : n;
        }
        return max;
    }

    private static final Pattern XMX = Pattern.compile("(?:^|\\s)-Xmx(\\d+)([kKmMgG]?)(?=\\s|$)");

    static Process startServer(Path config, Path log, List<String> launchPrefix) throws IOException {
        String opts = serverJavaOpts();
        List<String> jvm = new ArrayList<>(List.of(opts.trim().split("\\s+")));
        jvm.removeIf(String::isEmpty);
        return launch(launchPrefix, jvm, SynodCli.class.getName(), List.of("server", "--config", config.toString()), log);
    }

    static Process launch(List<String> jvmOptions, String mainClass, List<String> args, Path log) throws IOException {
        return launch(List.of(), jvmOptions, mainClass, args, log);
    }

    private static Process launch(List<String> launchPrefix, List<String> jvmOptions, String mainClass, List<String> args,
            Path log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(launchPrefix);
        cmd.add(java);
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        return pb.start();
    }

    static void awaitPort(int port, long timeoutMillis, String what) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        throw new IOException(what + " did not open 127.0.0.1:" + port + " within " + timeoutMillis + " ms");
    }

    /**
     * Polls every node's status until each group has a leader and the leaderships are spread over the
     * nodes that answer (no node leads two more than another: the leader balancer is done, so what
     * follows does not see leaders move); null on timeout.
     */
    static List<ClientFrame.GroupStatus> awaitLeaders(ClusterFile file, long timeoutMillis, TlsFiles tls)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            ClientFrame.GroupStatus[] leaders = new ClientFrame.GroupStatus[file.groups()];
            Map<Integer, Integer> led = new TreeMap<>();
            for (ClusterFile.NodeEntry n : file.nodes()) {
                try {
                    ClientFrame.StatusReport r = NodeClient.status(new InetSocketAddress("127.0.0.1", n.clientPort()), 1_000,
                            MAX_FRAME, tls);
                    led.putIfAbsent(n.id(), 0);
                    for (ClientFrame.GroupStatus s : r.groups()) {
                        if (s.role() == Role.LEADER.ordinal() && s.group() < leaders.length) {
                            leaders[s.group()] = s;
                            led.merge(n.id(), 1, Integer::sum);
                        }
                    }
                } catch (IOException e) {
                    // Not up yet.
                }
            }
            boolean all = true;
            for (ClientFrame.GroupStatus s : leaders) {
                all &= s != null;
            }
            if (all && Collections.max(led.values()) - Collections.min(led.values()) <= 1) {
                return List.of(leaders);
            }
            Thread.sleep(200);
        }
        return null;
    }
}
