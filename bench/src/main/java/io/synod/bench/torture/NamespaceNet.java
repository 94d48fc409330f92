package io.synod.bench.torture;

import io.synod.bench.kv.ProcessCluster;
import io.synod.server.cli.ClusterCommand;
import io.synod.server.cli.ClusterFile;
import io.synod.server.node.TcpRelay;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code synod nemesis --net namespaces} (root only): every Synod server process runs in a network
 * namespace of its own, joined to the others by a veth pair on a Linux bridge the run creates, so the
 * kernel's own TCP carries every peer, ZooKeeper and client connection. A cut is a blackhole route in
 * the sender's namespace: packets vanish without a reset or an ICMP error, and the connection learns
 * of it only through its own timeouts, as across a real lost link; a heal deletes the route and the
 * same connections carry on. ZooKeeper stays on the host, reached through a relay on a bridge address
 * of its own (so a node can be cut from ZooKeeper alone); the run's SDK reaches each node through a
 * relay on 127.0.0.1 at the node's client port (so the cluster's own tools keep working), whose
 * connections leave from the bridge's other address (so a node can be cut from the client alone).
 * <p>
 * Names start with a run-unique prefix ({@code sn} and this process's pid in hex) and the subnet is
 * one of 10.213.0.0/16 no interface of the machine uses; {@link #close()} (also from a shutdown hook)
 * stops the servers and removes every namespace, veth pair and bridge this run created, nothing else.
 */
final class NamespaceNet implements NemesisNet {
    private static final int HOST = 254;
    private static final int ZOOKEEPER = 253;

    private final ProcessCluster cluster;
    private final int nodes;
    private final String prefix;
    private final String subnet;
    private final List<String> namespaces = new ArrayList<>();
    private final Set<String> blackholes = new LinkedHashSet<>();
    private final TcpRelay[] clientRelays;
    private final Thread hook;
    private String bridge;
    private TcpRelay zookeeperRelay;
    private boolean closed;

    private NamespaceNet(ProcessCluster cluster, int nodes, String prefix, String subnet) {
        this.cluster = cluster;
        this.nodes = nodes;
        this.prefix = prefix;
        this.subnet = subnet;
        this.clientRelays = new TcpRelay[nodes];
        this.hook = new Thread(this::close, "synod-nemesis-netns-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Null when this process may create namespaces (it runs as root), else the one-line reason. */
    static String whyNotAvailable() {
        try {
            String uid = NemesisNet.run(List.of("id", "-u")).strip();
            if (!uid.equals("0")) {
                return "--net namespaces needs root (network namespaces, veth pairs, a bridge); this run has uid " + uid;
            }
            NemesisNet.run(List.of("ip", "-V"));
            return null;
        } catch (IOException e) {
            return "--net namespaces: " + e.getMessage();
        }
    }

    /**
     * Builds the namespaces and the bridge, moves every node of {@code cluster} into its namespace (each
     * is killed and started again on its data, with the new addresses in its configuration) and returns
     * when every node's client port answers there.
     */
    static NamespaceNet install(ProcessCluster cluster) throws IOException {
        ClusterFile file = cluster.file();
        long pid = ProcessHandle.current().pid();
        NamespaceNet net = new NamespaceNet(cluster, file.nodes().size(), "sn" + Long.toHexString(pid), freeSubnet(pid));
        try {
            net.build();
            net.zookeeperRelay = new TcpRelay(new InetSocketAddress("127.0.0.1", file.zookeeperPort()),
                    new InetSocketAddress(net.subnet + ZOOKEEPER, 0));
            StringBuilder spec = new StringBuilder();
            for (ClusterFile.NodeEntry n : file.nodes()) {
                spec.append(spec.length() == 0 ? "" : ",").append(n.id()).append('@').append(net.address(n.id())).append(':')
                        .append(n.peerPort()).append(':').append(n.clientPort());
            }
            for (ClusterFile.NodeEntry n : file.nodes()) {
                NemesisNet.rewriteConfig(Path.of(n.config()), Map.of("nodes", spec.toString(), "zookeeper.connect",
                        net.subnet + ZOOKEEPER + ":" + net.zookeeperRelay.port()));
                NemesisNet.killIfRunning(cluster, n.id());
                net.restart(n.id());
                net.clientRelays[n.id()] = new TcpRelay(new InetSocketAddress(net.address(n.id()), n.clientPort()),
                        n.clientPort());
            }
        } catch (IOException | RuntimeException e) {
            net.close();
            throw e;
        }
        return net;
    }

    private static String freeSubnet(long pid) throws IOException {
        String used = NemesisNet.run(List.of("ip", "-4", "-o", "addr", "show"))
                + NemesisNet.run(List.of("ip", "-4", "route", "show", "table", "all"));
        for (int i = 0; i < 256; i++) {
            String candidate = "10.213." + ((pid + i) % 256) + ".";
            if (!used.contains(candidate)) {
                return candidate;
            }
        }
        throw new IOException("--net namespaces: every 10.213.N.0/24 subnet is in use on this machine");
    }

    private void build() throws IOException {
        bridge = prefix + "b";
        NemesisNet.run(List.of("ip", "link", "add", bridge, "type", "bridge"));
        NemesisNet.run(List.of("ip", "addr", "add", subnet + HOST + "/24", "dev", bridge));
        NemesisNet.run(List.of("ip", "addr", "add", subnet + ZOOKEEPER + "/24", "dev", bridge));
        NemesisNet.run(List.of("ip", "link", "set", bridge, "up"));
        for (int i = 0; i < nodes; i++) {
            String ns = namespace(i);
            String host = prefix + "h" + i;
            String inner = prefix + "n" + i;
            namespaces.add(ns);
            NemesisNet.run(List.of("ip", "netns", "add", ns));
            NemesisNet.run(List.of("ip", "link", "add", host, "type", "veth", "peer", "name", inner));
            NemesisNet.run(List.of("ip", "link", "set", inner, "netns", ns));
            NemesisNet.run(List.of("ip", "link", "set", host, "master", bridge));
            NemesisNet.run(List.of("ip", "link", "set", host, "up"));
            inNamespace(i, "ip", "addr", "add", address(i) + "/24", "dev", inner);
            inNamespace(i, "ip", "link", "set", inner, "up");
            inNamespace(i, "ip", "link", "set", "lo", "up");
        }
    }

    private String namespace(int node) {
        return prefix + "-n" + node;
    }

    private String address(int node) {
        return subnet + (node + 1);
    }

    private void inNamespace(int node, String... command) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", namespace(node)));
        cmd.addAll(List.of(command));
        NemesisNet.run(cmd);
    }

    @Override
    public int nodes() {
        return nodes;
    }

    @Override
    public synchronized void cutPeers(int a, int b) {
        blackhole(a, address(b));
        blackhole(b, address(a));
    }

    @Override
    public synchronized void cutZookeeper(int node) {
        blackhole(node, subnet + ZOOKEEPER);
    }

    @Override
    public synchronized void cutClient(int node) {
        blackhole(node, subnet + HOST);
    }

    /** Packets from {@code node} to {@code target} vanish: no reset, no ICMP, no error the peer sees. */
    private void blackhole(int node, String target) {
        String key = node + " " + target;
        if (blackholes.add(key)) {
            try {
                inNamespace(node, "ip", "route", "add", "blackhole", target + "/32");
            } catch (IOException e) {
                blackholes.remove(key);
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
    }

    @Override
    public synchronized void healAll() throws IOException {
        for (String key : new ArrayList<>(blackholes)) {
            String[] parts = key.split(" ");
            inNamespace(Integer.parseInt(parts[0]), "ip", "route", "del", "blackhole", parts[1] + "/32");
            blackholes.remove(key);
        }
    }

    @Override
    public void restart(int node) throws IOException {
        ClusterFile file = cluster.file();
        ClusterFile.NodeEntry entry = file.nodes().stream().filter(n -> n.id() == node).findFirst()
                .orElseThrow(() -> new IOException("no node " + node + " in " + cluster.dir()));
        ClusterCommand.restartNode(cluster.dir(), file, entry, List.of("ip", "netns", "exec", namespace(node)));
        awaitPort(new InetSocketAddress(address(node), entry.clientPort()), 180_000, "node " + node);
    }

    private static void awaitPort(InetSocketAddress address, long timeoutMillis, String what) throws IOException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(address, 500);
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted waiting for " + what);
                }
            }
        }
        throw new IOException(what + " did not open " + address + " within " + timeoutMillis + " ms");
    }

    @Override
    public Map<Integer, InetSocketAddress> clientAddresses() {
        try {
            return cluster.clientAddresses();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + cluster.dir() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String description() {
        return "network namespaces " + prefix + "-n0.." + (nodes - 1) + " on bridge " + bridge + " (" + subnet
                + "0/24; a cut is a blackhole route: silent loss)";
    }

    /** Stops the servers (they run inside the namespaces), then removes what {@link #build()} created. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        cluster.close();
        if (zookeeperRelay != null) {
            zookeeperRelay.close();
        }
        for (TcpRelay r : clientRelays) {
            if (r != null) {
                r.close();
            }
        }
        for (String ns : namespaces) {
            runQuietly(List.of("ip", "netns", "del", ns)); // Also deletes the veth pair whose end it holds.
        }
        if (bridge != null) {
            runQuietly(List.of("ip", "link", "del", bridge));
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // Running as the hook.
        }
    }

    private static void runQuietly(List<String> command) {
        try {
            NemesisNet.run(command);
        } catch (IOException e) {
            System.err.println("nemesis: cleanup: " + e.getMessage());
        }
    }
}
