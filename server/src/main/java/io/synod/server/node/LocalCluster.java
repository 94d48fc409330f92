package io.synod.server.node;

import io.synod.server.client.SynodClient;
import io.synod.server.config.ServerConfig;
import io.synod.server.wire.WireFrame;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * N Synod nodes in this JVM on 127.0.0.1, against a ZooKeeper the caller runs: what {@code synod
 * demo} and the in-process integration tests use. Ports are reserved by binding port 0 and
 * releasing it just before the node binds it.
 */
public final class LocalCluster implements AutoCloseable {
    private final String zookeeper;
    private final Path dir;
    private final int groups;
    private final Map<String, String> extra;
    private final List<ServerConfig> configs = new ArrayList<>();
    private final SynodNode[] nodes;

    public LocalCluster(String zookeeper, Path dir, int nodeCount, int groups, String clusterName, Map<String, String> extra)
            throws Exception {
        this.zookeeper = zookeeper;
        this.dir = dir;
        this.groups = groups;
        this.extra = Map.copyOf(extra);
        this.nodes = new SynodNode[nodeCount];
        StringBuilder spec = new StringBuilder();
        for (int i = 0; i < nodeCount; i++) {
            if (i > 0) {
                spec.append(',');
            }
            spec.append(i).append("@127.0.0.1:").append(freePort()).append(':').append(freePort());
        }
        for (int i = 0; i < nodeCount; i++) {
            Properties p = new Properties();
            p.setProperty("cluster.name", clusterName);
            p.setProperty("node.id", Integer.toString(i));
            p.setProperty("nodes", spec.toString());
            p.setProperty("zookeeper.connect", zookeeper);
            p.setProperty("data.dir", dir.resolve("node-" + i).toString());
            p.setProperty("groups", Integer.toString(groups));
            p.setProperty("metrics.port", "-1");
            extra.forEach(p::setProperty);
            configs.add(ServerConfig.from(p));
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    public void startAll() throws Exception {
        for (int i = 0; i < nodes.length; i++) {
            start(i);
        }
    }

    public SynodNode start(int i) throws Exception {
        if (nodes[i] == null) {
            nodes[i] = new SynodNode(configs.get(i)).start();
        }
        return nodes[i];
    }

    /** Stops node {@code i} abruptly as far as peers can tell (its sockets and ZooKeeper session close). */
    public void stop(int i) {
        SynodNode n = nodes[i];
        nodes[i] = null;
        if (n != null) {
            n.close();
        }
    }

    public SynodNode node(int i) {
        return nodes[i];
    }

    public int size() {
        return nodes.length;
    }

    public ServerConfig config(int i) {
        return configs.get(i);
    }

    public Map<Integer, InetSocketAddress> clientAddresses() {
        Map<Integer, InetSocketAddress> out = new TreeMap<>();
        for (int i = 0; i < nodes.length; i++) {
            out.put(i, configs.get(i).nodes().get(i).client());
        }
        return out;
    }

    public SynodClient client(long clientId, int timeoutMillis) {
        return new SynodClient(clientAddresses(), clientId, timeoutMillis, configs.get(0).maxFrameBytes());
    }

    /** The serving leader of {@code group} as running nodes report it, or -1. */
    public int leaderOf(int group) {
        for (SynodNode n : nodes) {
            if (n == null) {
                continue;
            }
            WireFrame.GroupStatus s = n.statusReport(0).groups().get(group);
            if (s.role() == io.synod.core.paxos.Role.LEADER.ordinal()) {
                return n.nodeId();
            }
        }
        return -1;
    }

    public WireFrame.GroupStatus status(int node, int group) {
        return nodes[node].statusReport(0).groups().get(group);
    }

    /** Waits until every group has a leader; returns false at the deadline. */
    public boolean awaitLeaders(long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            boolean all = true;
            for (int g = 0; g < groups; g++) {
                all &= leaderOf(g) >= 0;
            }
            if (all) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }

    public int groups() {
        return groups;
    }

    public String zookeeper() {
        return zookeeper;
    }

    public Path dir() {
        return dir;
    }

    @Override
    public void close() {
        for (int i = 0; i < nodes.length; i++) {
            stop(i);
        }
    }
}
