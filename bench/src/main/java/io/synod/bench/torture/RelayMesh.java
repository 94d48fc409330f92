package io.synod.bench.torture;

import io.synod.bench.kv.ProcessCluster;
import io.synod.server.cli.ClusterFile;
import io.synod.server.node.TcpRelay;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * User-space partitions between Synod processes on 127.0.0.1: every directed peer link i → j goes
 * through its own {@link TcpRelay} (node i's configuration names the relay as node j's peer address;
 * peer connections are one per direction, dialled by the sender), and every node reaches ZooKeeper
 * through a relay of its own. Cutting a relay closes its connections and refuses new ones, the way a
 * dropped link ends in resets; healing opens a new relay on the same port, and the dialer's
 * reconnection (peer links: exponential backoff up to 2 s; ZooKeeper: Curator's retry) finds it.
 * The kernel's own behaviour under silent loss (no reset, retransmission timeouts) is not exercised:
 * that needs network namespaces ({@link NamespaceNet}). The run's SDK dials each node through a relay
 * of its own too, so the client can be cut from one server.
 */
final class RelayMesh implements NemesisNet {
    private final ProcessCluster cluster;
    private final int nodes;
    private final InetSocketAddress[] peerTargets;
    private final InetSocketAddress zookeeper;
    private final TcpRelay[][] peer;
    private final int[][] peerPorts;
    private final TcpRelay[] zk;
    private final int[] zkPorts;
    private final InetSocketAddress[] clientTargets;
    private final TcpRelay[] client;
    private final int[] clientPorts;

    private RelayMesh(ProcessCluster cluster, ClusterFile file) {
        this.cluster = cluster;
        this.nodes = file.nodes().size();
        this.peerTargets = new InetSocketAddress[nodes];
        this.zookeeper = new InetSocketAddress("127.0.0.1", file.zookeeperPort());
        this.peer = new TcpRelay[nodes][nodes];
        this.peerPorts = new int[nodes][nodes];
        this.zk = new TcpRelay[nodes];
        this.zkPorts = new int[nodes];
        this.clientTargets = new InetSocketAddress[nodes];
        this.client = new TcpRelay[nodes];
        this.clientPorts = new int[nodes];
        for (ClusterFile.NodeEntry n : file.nodes()) {
            peerTargets[n.id()] = new InetSocketAddress("127.0.0.1", n.peerPort());
            clientTargets[n.id()] = new InetSocketAddress("127.0.0.1", n.clientPort());
        }
    }

    /**
     * Puts relays between the nodes of a running cluster: starts them, rewrites each node's
     * {@code nodes=} and {@code zookeeper.connect=} lines, and restarts the nodes one at a time on
     * their data (SIGKILL, then {@code synod cluster restart}).
     */
    static RelayMesh install(ProcessCluster cluster) throws IOException {
        ClusterFile file = cluster.file();
        RelayMesh mesh = new RelayMesh(cluster, file);
        try {
            for (ClusterFile.NodeEntry n : file.nodes()) {
                int i = n.id();
                mesh.zk[i] = new TcpRelay(mesh.zookeeper);
                mesh.zkPorts[i] = mesh.zk[i].port();
                mesh.client[i] = new TcpRelay(mesh.clientTargets[i]);
                mesh.clientPorts[i] = mesh.client[i].port();
                for (int j = 0; j < mesh.nodes; j++) {
                    if (j != i) {
                        mesh.peer[i][j] = new TcpRelay(mesh.peerTargets[j]);
                        mesh.peerPorts[i][j] = mesh.peer[i][j].port();
                    }
                }
            }
            for (ClusterFile.NodeEntry n : file.nodes()) {
                mesh.rewriteConfig(Path.of(n.config()), n.id(), file);
                NemesisNet.killIfRunning(cluster, n.id());
                cluster.restart(n.id());
            }
        } catch (IOException | RuntimeException e) {
            mesh.close();
            throw e;
        }
        return mesh;
    }

    private void rewriteConfig(Path config, int self, ClusterFile file) throws IOException {
        StringBuilder spec = new StringBuilder();
        for (ClusterFile.NodeEntry n : file.nodes()) {
            int port = n.id() == self ? n.peerPort() : peerPorts[self][n.id()];
            spec.append(spec.length() == 0 ? "" : ",").append(n.id()).append("@127.0.0.1:").append(port).append(':')
                    .append(n.clientPort());
        }
        NemesisNet.rewriteConfig(config, Map.of("nodes", spec.toString(), "zookeeper.connect", "127.0.0.1:" + zkPorts[self]));
    }

    @Override
    public int nodes() {
        return nodes;
    }

    @Override
    public synchronized void cutPeers(int a, int b) {
        cut(peer[a][b]);
        cut(peer[b][a]);
    }

    @Override
    public synchronized void cutZookeeper(int node) {
        cut(zk[node]);
    }

    @Override
    public synchronized void cutClient(int node) {
        cut(client[node]);
    }

    @Override
    public void restart(int node) throws IOException {
        cluster.restart(node);
    }

    @Override
    public Map<Integer, InetSocketAddress> clientAddresses() {
        Map<Integer, InetSocketAddress> out = new TreeMap<>();
        for (int i = 0; i < nodes; i++) {
            out.put(i, new InetSocketAddress("127.0.0.1", clientPorts[i]));
        }
        return out;
    }

    @Override
    public String description() {
        return "user-space relays on 127.0.0.1 (a cut resets connections)";
    }

    /** Every cut link works again (a new relay on the same port). */
    @Override
    public synchronized void healAll() throws IOException {
        for (int i = 0; i < nodes; i++) {
            if (zk[i].isCut()) {
                zk[i] = new TcpRelay(zookeeper, zkPorts[i]);
            }
            if (client[i].isCut()) {
                client[i] = new TcpRelay(clientTargets[i], clientPorts[i]);
            }
            for (int j = 0; j < nodes; j++) {
                if (j != i && peer[i][j].isCut()) {
                    peer[i][j] = new TcpRelay(peerTargets[j], peerPorts[i][j]);
                }
            }
        }
    }

    private static void cut(TcpRelay relay) {
        if (relay != null) {
            relay.cut();
        }
    }

    @Override
    public synchronized void close() {
        for (int i = 0; i < nodes; i++) {
            cut(zk[i]);
            cut(client[i]);
            for (int j = 0; j < nodes; j++) {
                cut(peer[i][j]);
            }
        }
    }
}
