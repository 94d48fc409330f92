package io.synod.server.node;

import io.synod.client.TlsFiles;
import io.synod.core.paxos.Role;
import io.synod.protocol.ClientFrame;
import io.synod.server.client.NodeClient;
import io.synod.server.config.ConfigException;
import io.synod.server.config.ServerConfig;
import io.synod.server.group.GroupWorkers;
import io.synod.server.config.ZooKeeperSettings;
import io.synod.server.security.LocalCa;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * N Synod nodes in this JVM on 127.0.0.1, against a ZooKeeper the caller runs: what {@code synod
 * demo} and the in-process integration tests use. Ports are chosen by {@link #freePort} (free when
 * checked, below the ephemeral range) just before the nodes bind them. Each node reaches ZooKeeper through its own
 * {@link TcpRelay}, so {@link #crash(int)} can make a node vanish the way a killed process does
 * (its ZooKeeper session expires after the timeout instead of being closed).
 * Secure by default: the nodes and {@link #client}/{@link #clientTls} use certificates of a CA created
 * in {@code dir} ({@link LocalCa}); {@code insecure=true} among the extra keys runs them without TLS. Their
 * ZooKeeper identity is the secret {@code dir/zookeeper.secret} (created on first use, also when insecure), so
 * the cluster's znodes are writable by these nodes only.
 */
public final class LocalCluster implements AutoCloseable {
    /** Set among the extra keys (to a file, or "-" with insecure=true for open znodes), it replaces the local secret. */
    private static final String ZK_SECRET_KEY = "zookeeper.auth.secret.file";
    private final InetSocketAddress zookeeper;
    private final Path dir;
    private final int groups;
    private final String clusterName;
    /** Each node's entry of {@code nodes} ({@code id@host:peerPort:clientPort}), the added ones too. */
    private final List<String> nodeEntries = new ArrayList<>();
    /** The founding nodes: their configurations list these (the seed set), an added node's list every node up to it. */
    private final int founding;
    private final Map<String, String> extra;
    private final boolean insecure;
    private SynodNode[] nodes;
    private TcpRelay[] relays;
    private ServerConfig[] configs;
    private final List<SynodNode> crashed = new ArrayList<>();

    public LocalCluster(InetSocketAddress zookeeper, Path dir, int nodeCount, int groups, String clusterName,
            Map<String, String> extra) throws IOException {
        this.zookeeper = zookeeper;
        this.dir = dir;
        this.groups = groups;
        this.clusterName = clusterName;
        this.extra = Map.copyOf(extra);
        this.insecure = "true".equals(extra.get("insecure"));
        if (!insecure) {
            LocalCa.ensure(dir, clusterName, nodeCount);
        }
        if (!extra.containsKey(ZK_SECRET_KEY)) {
            ZooKeeperSettings.ensureLocalSecret(dir); // ACLs even when insecure: they cost nothing
        }
        this.nodes = new SynodNode[nodeCount];
        this.relays = new TcpRelay[nodeCount];
        this.configs = new ServerConfig[nodeCount];
        for (int i = 0; i < nodeCount; i++) {
            nodeEntries.add(i + "@127.0.0.1:" + freePort() + ":" + freePort());
        }
        this.founding = nodeCount;
    }

    /** The {@code nodes} value of node {@code i}'s configuration. */
    private String nodesSpec(int i) {
        return String.join(",", nodeEntries.subList(0, Math.max(founding, i + 1)));
    }

    /**
     * Adds the next node (free ports, a certificate unless insecure) and starts it: it joins the running cluster as a
     * spare of every group (docs/membership.md, "Adding a node"); its configuration lists every node up to it.
     */
    public synchronized SynodNode addNode() throws Exception {
        int id = nodes.length;
        if (!insecure) {
            LocalCa.ensure(dir, clusterName, id + 1);
        }
        nodeEntries.add(id + "@127.0.0.1:" + freePort() + ":" + freePort());
        nodes = Arrays.copyOf(nodes, id + 1);
        relays = Arrays.copyOf(relays, id + 1);
        configs = Arrays.copyOf(configs, id + 1);
        return start(id);
    }

    /** Lowest and one past the highest port {@link #freePort} tries first: below Linux's ephemeral range (32768+). */
    private static final int PORT_RANGE_LOW = 15_000;
    private static final int PORT_RANGE_HIGH = 32_000;
    /** Every port {@link #freePort} returned in this process (at most a few thousand in a test run). */
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    /**
     * A port on 127.0.0.1 that was free a moment ago. It is drawn at random below the kernel's ephemeral range and
     * checked by binding it: a port handed out by binding port 0 comes from that range, which every outgoing
     * connection of this machine also draws from, so one could take it before the node binds it (seen as
     * "Address already in use" in a loaded test run). A port is handed out at most once per process: the check
     * bind is released at once, so without that memory two nodes of one cluster (or two clusters of one test run)
     * could draw the same port before either binds it. Falls back to port 0 after 50 taken draws.
     */
    public static int freePort() throws IOException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 50; attempt++) {
            int port = random.nextInt(PORT_RANGE_LOW, PORT_RANGE_HIGH);
            if (HANDED_OUT.contains(port)) {
                continue;
            }
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                if (!HANDED_OUT.add(port)) {
                    continue; // another thread drew it between the check and here
                }
                return port;
            } catch (IOException taken) {
                // Try another.
            }
        }
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    private ServerConfig configFor(int i, int zkPort) throws ConfigException {
        Properties p = new Properties();
        p.setProperty("cluster.name", clusterName);
        p.setProperty("node.id", Integer.toString(i));
        p.setProperty("nodes", nodesSpec(i));
        p.setProperty("zookeeper.connect", "127.0.0.1:" + zkPort);
        p.setProperty("data.dir", dir.resolve("node-" + i).toString());
        p.setProperty("groups", Integer.toString(groups));
        p.setProperty("metrics.port", "-1");
        if (!insecure) {
            TlsFiles tls = TlsFiles.node(LocalCa.certsDir(dir), i);
            p.setProperty("tls.ca", tls.ca().toString());
            p.setProperty("tls.cert", tls.cert().toString());
            p.setProperty("tls.key", tls.key().toString());
        }
        p.setProperty(ZK_SECRET_KEY, dir.toAbsolutePath().resolve(ZooKeeperSettings.LOCAL_SECRET).toString());
        // Every node of this cluster runs on this host: share its cores unless the caller chose a worker count.
        p.setProperty(ServerConfig.GROUP_WORKERS_KEY, Integer.toString(GroupWorkers.coLocatedCount(nodes.length)));
        extra.forEach(p::setProperty);
        if (i >= founding) {
            p.remove("coding"); // A joined node takes the cluster's coding from ZooKeeper (its N is the founding nodes').
        }
        return ServerConfig.from(p);
    }

    public void startAll() throws Exception {
        for (int i = 0; i < nodes.length; i++) {
            start(i);
        }
    }

    /** Starts node {@code i} (again, after a stop or crash) on its data directory. */
    public SynodNode start(int i) throws Exception {
        if (nodes[i] == null) {
            relays[i] = new TcpRelay(zookeeper);
            configs[i] = configFor(i, relays[i].port());
            nodes[i] = new SynodNode(configs[i]).start();
        }
        return nodes[i];
    }

    /** Stops node {@code i} cleanly (its ZooKeeper session is closed, so others take over at once). */
    public void stop(int i) {
        SynodNode n = nodes[i];
        nodes[i] = null;
        if (n != null) {
            n.close();
        }
        if (relays[i] != null) {
            relays[i].cut();
        }
    }

    /** Makes node {@code i} vanish like a killed process: ZooKeeper link cut first, then everything halts. */
    public void crash(int i) {
        SynodNode n = nodes[i];
        nodes[i] = null;
        if (relays[i] != null) {
            relays[i].cut();
        }
        if (n != null) {
            n.crash();
            crashed.add(n);
        }
    }

    public SynodNode node(int i) {
        return nodes[i];
    }

    public int size() {
        return nodes.length;
    }

    public ServerConfig config(int i) {
        return configs[i];
    }

    public Map<Integer, InetSocketAddress> clientAddresses() throws ConfigException {
        Map<Integer, InetSocketAddress> out = new TreeMap<>();
        for (Map.Entry<Integer, ServerConfig.NodeAddress> e : ServerConfig.parseNodes(String.join(",", nodeEntries))
                .entrySet()) {
            out.put(e.getKey(), e.getValue().client());
        }
        return out;
    }

    /** Every node's client address as {@code host:port,host:port...} (what the SDK and {@code synod kv} take). */
    public String clientAddressList() throws ConfigException {
        StringBuilder b = new StringBuilder();
        for (InetSocketAddress a : clientAddresses().values()) {
            b.append(b.length() == 0 ? "" : ",").append(a.getHostString()).append(':').append(a.getPort());
        }
        return b.toString();
    }

    public NodeClient client(long clientId, int timeoutMillis) throws ConfigException {
        return new NodeClient(clientAddresses(), clientId, timeoutMillis, 16 << 20, clientTls());
    }

    /** The client certificate files of this cluster (for the SDK's {@code tls(...)}), or null when it is insecure. */
    public TlsFiles clientTls() {
        return insecure ? null : LocalCa.clientFiles(dir);
    }

    /** The serving leader of {@code group} as running nodes report it, or -1. */
    public int leaderOf(int group) {
        for (SynodNode n : nodes) {
            if (n == null) {
                continue;
            }
            ClientFrame.GroupStatus s = n.statusReport(0).groups().get(group);
            if (s.role() == Role.LEADER.ordinal()) {
                return n.nodeId();
            }
        }
        return -1;
    }

    public ClientFrame.GroupStatus status(int node, int group) {
        return nodes[node].statusReport(0).groups().get(group);
    }

    /**
     * Waits until every group has a leader and the leaderships are spread over the running nodes (no node
     * leads two more than another: the leader balancer has nothing left to move, so a test that reads the
     * leaders now does not see them move under it); returns false at the deadline.
     */
    public boolean awaitLeaders(long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            int[] counts = new int[nodes.length];
            boolean all = true;
            for (int g = 0; g < groups && all; g++) {
                int leader = leaderOf(g);
                all = leader >= 0;
                if (all) {
                    counts[leader]++;
                }
            }
            if (all && spread(counts)) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }

    /** Whether the running nodes' leadership counts differ by at most one. */
    private boolean spread(int[] counts) {
        int most = 0;
        int least = Integer.MAX_VALUE;
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] != null) {
                most = Math.max(most, counts[i]);
                least = Math.min(least, counts[i]);
            }
        }
        return most - least <= 1;
    }

    public int groups() {
        return groups;
    }

    public Path dir() {
        return dir;
    }

    @Override
    public void close() {
        for (int i = 0; i < nodes.length; i++) {
            stop(i);
        }
        for (SynodNode n : crashed) {
            n.close();
        }
        crashed.clear();
    }
}
