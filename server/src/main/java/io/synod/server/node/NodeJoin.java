package io.synod.server.node;

import io.synod.coordination.ClusterMetadata;
import io.synod.coordination.LeaseMode;
import io.synod.coordination.Placement;
import io.synod.coordination.ReplicaMap;
import io.synod.coordination.Versioned;
import io.synod.core.paxos.Coding;
import io.synod.server.config.ServerConfig;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node joins a running cluster (docs/membership.md, "Adding a node"). A node started with the next node id, whose
 * configuration lists the cluster's nodes and itself, records itself in the placement (its address and zone; the node
 * count grows by one; compare-and-set on the znode's version) and then takes a replica id in every group's replica map
 * ({@link ReplicaMap#withNode}, compare-and-set). It hosts no group: in every group its replica is a spare, a member of
 * no membership, so nothing it answers is counted (rules M2, M3) until a move adds it as a learner. The running nodes
 * learn its address and ids from their watches and connect to it; a node started later whose configuration lists only
 * the founding nodes takes the joined nodes' addresses from the placement (the configuration's {@code nodes} are the
 * seed set, the placement is authoritative for the nodes that joined). Every step is idempotent, so a join that crashed
 * half-way is completed by the next start. Runs at start, before any group opens its storage; blocks on ZooKeeper.
 */
final class NodeJoin {
    private static final Logger LOG = LoggerFactory.getLogger(NodeJoin.class);

    private NodeJoin() {
    }

    /** Whether this node's configuration names a node the recorded placement does not have yet (this node joining). */
    static boolean joining(ServerConfig config, Placement p) {
        return config.nodes().size() > p.nodes();
    }

    /**
     * Records this node in the placement (compare-and-set; a conflict re-reads): it must be the next node id, listed
     * last in its configuration, in a cluster of uncoded groups of any lease mode, or of RS-Paxos coded groups without a
     * lease or with a leader lease.
     *
     * @throws IllegalStateException (one line) if the join is refused
     */
    static void register(ServerConfig config, ClusterMetadata metadata, Versioned<Placement> recorded, Coding coding,
            LeaseMode lease) {
        Placement p = recorded.value();
        int self = config.nodeId();
        String refused = refusal(config, p, coding, lease);
        if (refused != null) {
            throw new IllegalStateException("node " + self + " refuses to join cluster '" + config.clusterName() + "': "
                    + refused + " (docs/membership.md, Adding a node)");
        }
        ServerConfig.NodeAddress address = config.nodes().get(self);
        String zone = config.placement().zones().isEmpty() ? "" : config.placement().zones().get(self);
        Placement next = p.withNode(self, address.toString(), zone);
        if (metadata.compareAndSetPlacement(recorded.version(), next)) {
            LOG.info("node {}: joined cluster '{}' at {}{}: {} nodes now; a spare in each of its {} groups until replicas "
                    + "move onto it", self, config.clusterName(), address, zone.isEmpty() ? "" : " in zone " + zone,
                    next.nodes(), next.groups());
        }
    }

    /** Why this node may not join a cluster placed as {@code p}, or null. */
    static String refusal(ServerConfig config, Placement p, Coding coding, LeaseMode lease) {
        int self = config.nodeId();
        // Every lease mode takes a joined node: it starts as a spare, which holds, grants and counts for no lease
        // (rules QL1, QL2), and replicas move onto it through the log (QL3, QL4).
        // RS-Paxos coded groups take a joined node (its ids lie past the code length and get full copies, rule M9), with
        // no lease or a leader lease (LL1), but not with quorum leases: that combination's simulation read stale.
        String coded = Rejoin.refusal(coding, lease);
        if (coded != null) {
            return coded;
        }
        if (self != p.nodes() || config.nodes().size() != p.nodes() + 1) {
            return "node.id " + self + " with nodes listing " + config.nodes().size() + " nodes, but the cluster has "
                    + p.nodes() + " nodes (0.." + (p.nodes() - 1) + "): a new node takes id " + p.nodes()
                    + " and lists the cluster's nodes and itself";
        }
        if (!config.placement().zones().isEmpty() != !p.zones().isEmpty()) {
            return p.zones().isEmpty() ? "the cluster's nodes name no zone, this node's node.zones do"
                    : "the cluster's nodes are in zones " + p.zones() + ": node.zones must name this node's too";
        }
        return null;
    }

    /**
     * Every node's peer address at start: the configuration's (the seed set) and the placement's joined nodes.
     *
     * @throws IllegalStateException (one line) if the configuration names a joined node at another address than the
     *     placement, or names a node the cluster does not have
     */
    static Map<Integer, ServerConfig.NodeAddress> addresses(ServerConfig config, Placement p) {
        Map<Integer, ServerConfig.NodeAddress> out = new TreeMap<>(config.nodes());
        for (Map.Entry<Integer, String> e : p.joined().entrySet()) {
            ServerConfig.NodeAddress recorded = parseAddress(e.getValue());
            ServerConfig.NodeAddress configured = out.putIfAbsent(e.getKey(), recorded);
            if (configured != null && !configured.equals(recorded)) {
                throw new IllegalStateException("node " + config.nodeId() + " refuses to start: its nodes list node "
                        + e.getKey() + " at " + configured + ", but node " + e.getKey() + " joined cluster '"
                        + config.clusterName() + "' at " + recorded + " (ZooKeeper's placement); fix nodes or remove the "
                        + "entry");
            }
        }
        if (out.size() > p.nodes()) {
            throw new IllegalStateException("node " + config.nodeId() + " refuses to start: its nodes list "
                    + out.keySet() + ", but cluster '" + config.clusterName() + "' has nodes 0.." + (p.nodes() - 1));
        }
        return out;
    }

    /**
     * Gives this node, if it joined the running cluster, a replica id in every group's map (compare-and-set; nothing
     * when it has one: a repeated start, or a join completed before a crash).
     */
    static void takeReplicaIds(ServerConfig config, ClusterMetadata metadata, Placement p, int groups) {
        int self = config.nodeId();
        if (!p.joined().containsKey(self)) {
            return;
        }
        for (int g = 0; g < groups; g++) {
            while (true) {
                Versioned<ReplicaMap> current = metadata.replicaMap(g);
                ReplicaMap map = current.value().withNode(self, Rejoin.UNIVERSE);
                if (map == current.value()) {
                    break;
                }
                if (metadata.compareAndSetReplicaMap(g, current.version(), map)) {
                    LOG.info("node {}: group {}: replica id {} (a spare until a replica moves onto this node)", self, g,
                            map.currentId(self));
                    break;
                }
            }
        }
    }

    /**
     * An address as {@link ServerConfig.NodeAddress#toString} wrote it ({@code host:peerPort:clientPort}).
     *
     * @throws IllegalStateException (one line) if it is not of that form
     */
    static ServerConfig.NodeAddress parseAddress(String text) {
        int second = text.lastIndexOf(':');
        int first = second <= 0 ? -1 : text.lastIndexOf(':', second - 1);
        try {
            if (first <= 0) {
                throw new NumberFormatException();
            }
            int peer = Integer.parseInt(text.substring(first + 1, second));
            int client = Integer.parseInt(text.substring(second + 1));
            if (peer < 1 || peer > 65535 || client < 1 || client > 65535) {
                throw new NumberFormatException();
            }
            return new ServerConfig.NodeAddress(text.substring(0, first), peer, client);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("the placement records a node address '" + text + "' that is not "
                    + "host:peerPort:clientPort");
        }
    }
}
