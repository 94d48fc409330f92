package io.synod.server.cli;

import io.synod.server.config.ConfigException;
import io.synod.server.config.ServerConfig;
import io.synod.server.node.LocalCluster;
import io.synod.server.security.LocalCa;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code synod cluster add-node --dir DIR} (docs/membership.md, "Adding a node"): a node joins the local cluster that
 * {@code cluster start} made. It takes the next node id and free ports, gets a configuration like node 0's (the same
 * cluster settings; its {@code nodes} list every node up to itself, its own data directory, certificate and metrics
 * port), is recorded in {@code DIR/cluster.json} so {@code cluster status|kill|restart|stop} know it, and is started:
 * it registers itself in ZooKeeper's placement and runs a spare of every group. Then {@code admin rebalance} moves
 * replicas onto it, one at a time, printing each move and the moves left; exit 0 once replica counts per node differ
 * by at most one.
 */
@Command(name = "add-node", mixinStandardHelpOptions = true,
        description = {"Add a node to the running local cluster: the next node id, free ports, a configuration like",
                "node 0's; start it (it registers itself in ZooKeeper and joins as a spare of every group), then",
                "move replicas onto it one at a time (like 'synod admin rebalance') until the replicas per node",
                "differ by at most one (unless --no-rebalance). Every lease mode; RS-Paxos coded groups",
                "without a lease or with a leader lease (leader, leader-timer).",
                "Exit 0 balanced; 1 the node did not start or a move was refused or not done in time."})
final class AddNodeCommand extends ClusterCommand.DirCommand {
    /**
     * The keys of node 0's configuration that are node-specific, replaced in the new node's; and {@code coding} (N,F,X
     * with N = the founding nodes), left out: a joining node takes the cluster's coding from ZooKeeper.
     */
    private static final Set<String> OWN_KEYS = Set.of("node.id", "nodes", "data.dir", "metrics.port", "tls.ca", "tls.cert",
            "tls.key", "node.zones", "coding");

    @Option(names = "--zone", defaultValue = "", paramLabel = "ZONE",
            description = "the new node's zone, when the cluster's nodes name zones (node.zones)")
    String zone;

    @Option(names = "--timeout-s", defaultValue = "60", description = "wait this long for the new node to serve "
            + "(default ${DEFAULT-VALUE})")
    int timeoutSeconds;

    @Option(names = "--wait-ms", defaultValue = "120000", paramLabel = "MS",
            description = "how long to wait for each move (default ${DEFAULT-VALUE})")
    long waitMillis;

    @Option(names = "--no-rebalance", description = "only start the node (a spare of every group); move replicas onto "
            + "it later with 'synod admin rebalance', 'move-replica' or 'remove-node'")
    boolean noRebalance;

    @Override
    public Integer call() throws Exception {
        if (timeoutSeconds < 1 || timeoutSeconds > 3600 || waitMillis < 1) {
            throw bad("--timeout-s must be 1..3600 and --wait-ms > 0, got " + timeoutSeconds + " and " + waitMillis);
        }
        ClusterFile file = load();
        int id = file.nodes().size();
        ServerConfig first;
        try {
            first = ServerConfig.load(Path.of(file.nodes().get(0).config()), List.of());
        } catch (ConfigException e) {
            throw bad("cannot read node 0's configuration: " + e.getMessage());
        }
        if (id > 62) {
            throw bad("the cluster has " + id + " nodes: node ids stop at 62");
        }
        if (first.placement().zones().isEmpty() != zone.isEmpty()) {
            throw bad(zone.isEmpty() ? "the cluster's nodes are in zones " + first.placement().zones() + ": give --zone"
                    : "the cluster's nodes name no zone: --zone is not for it");
        }
        PrintWriter out = out();
        int[] ports = {LocalCluster.freePort(), LocalCluster.freePort(), LocalCluster.freePort()};
        Path nodeDir = dir.resolve("node-" + id).toAbsolutePath();
        Files.createDirectories(nodeDir);
        Path cfg = nodeDir.resolve("server.properties");
        Files.writeString(cfg, configOf(file, first, id, ports, nodeDir), StandardCharsets.UTF_8);
        try {
            ServerConfig.load(cfg, List.of());
        } catch (ConfigException e) {
            throw bad("the new node's configuration " + cfg + ": " + e.getMessage());
        }
        Path log = nodeDir.resolve("server.log");
        Process p = ClusterCommand.startServer(cfg, log, List.of());
        ClusterFile.NodeEntry entry = new ClusterFile.NodeEntry(id, p.pid(), ports[0], ports[1], ports[2], cfg.toString(),
                log.toString());
        file.withAddedNode(entry).write(dir);
        out.printf("node %d     pid %d  client 127.0.0.1:%d  peer 127.0.0.1:%d  metrics http://127.0.0.1:%d/metrics%n", id,
                p.pid(), ports[1], ports[0], ports[2]);
        out.flush();
        try {
            // The node records itself in the placement before it opens its client port.
            ClusterCommand.awaitPort(ports[1], timeoutSeconds * 1000L, "node " + id);
        } catch (IOException e) {
            spec.commandLine().getErr().printf("error: %s; see %s (it is in %s: 'synod cluster stop --dir %s' stops it)%n",
                    e.getMessage(), log, ClusterFile.path(dir), dir);
            return 1;
        }
        out.printf("node %d joined cluster '%s' as a spare of its %d groups%s%n", id, file.cluster(), file.groups(),
                noRebalance ? "" : "; moving replicas onto it");
        out.flush();
        if (noRebalance) {
            return 0;
        }
        ClientTarget target = new ClientTarget();
        target.dir = dir;
        return target.runWithTimeout(spec.commandLine(), 10_000, "synod cluster add-node",
                client -> RebalanceCommand.rebalance(client.blocking(), file.groups(), waitMillis, out,
                        spec.commandLine().getErr()));
    }

    /** Node 0's configuration with the new node's own keys: id, every node up to it, directories, ports, certificate. */
    private String configOf(ClusterFile file, ServerConfig first, int id, int[] ports, Path nodeDir) throws IOException {
        StringBuilder nodes = new StringBuilder();
        for (ClusterFile.NodeEntry n : file.nodes()) {
            nodes.append(n.id()).append("@127.0.0.1:").append(n.peerPort()).append(':').append(n.clientPort()).append(',');
        }
        nodes.append(id).append("@127.0.0.1:").append(ports[0]).append(':').append(ports[1]);
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(file.nodes().get(0).config()), StandardCharsets.UTF_8)) {
            int eq = line.indexOf('=');
            if (eq < 0 || !OWN_KEYS.contains(line.substring(0, eq).trim())) {
                lines.add(line);
            }
        }
        lines.add("node.id=" + id);
        lines.add("nodes=" + nodes);
        lines.add("data.dir=" + nodeDir.resolve("data"));
        lines.add("metrics.port=" + ports[2]);
        if (!first.placement().zones().isEmpty()) {
            lines.add("node.zones=" + String.join(",", first.placement().zones()) + "," + zone);
        }
        StringBuilder out = new StringBuilder(String.join("\n", lines)).append('\n');
        if (!first.tls().insecure()) {
            LocalCa.ensure(dir, file.cluster(), id + 1);
            out.append(LocalCa.serverKeys(dir, id));
        }
        return out.toString();
    }
}
