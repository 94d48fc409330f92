package io.synod.server.node;

import io.synod.coordination.ClusterMetadata;
import io.synod.coordination.LeaseMode;
import io.synod.coordination.NodeIncarnation;
import io.synod.coordination.Placement;
import io.synod.coordination.ReplicaMap;
import io.synod.coordination.Versioned;
import io.synod.core.paxos.Coding;
import io.synod.core.paxos.GroupMembership;
import io.synod.engine.MembershipAdmin;
import io.synod.server.config.PlacementSettings;
import io.synod.server.config.ServerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's {@link Placement} as this node knows it (docs/membership.md, "Placement"): agreed at start (the first
 * node that finds no record writes {@link PlacementPlanner}'s, compare-and-set; a node whose {@code replicas} or
 * {@code node.zones} differ from the record refuses to start) and kept current by a watch, since a move rewrites it.
 */
final class Placements {
    private static final Logger LOG = LoggerFactory.getLogger(Placements.class);

    private final ClusterMetadata metadata;
    /** The placement as last seen, with its znode version (what the SDK's routing compares, {@link #versioned}). */
    private volatile Versioned<Placement> current;
    /** Told of every placement the watch delivers (a node joined: the peer network connects to it). */
    private final List<Consumer<Placement>> listeners = new CopyOnWriteArrayList<>();

    private Placements(ClusterMetadata metadata, Versioned<Placement> initial) {
        this.metadata = metadata;
        this.current = initial;
    }

    /**
     * Agrees on the placement (before any group opens its storage) and watches it.
     *
     * A node whose configuration lists one node more than the record joins the running cluster first ({@link
     * NodeJoin}).
     *
     * @throws IllegalStateException (one line) if this node's settings differ from the recorded placement, if fewer
     *     replicas than nodes are asked for coded groups, or for a cluster that ran before without one,
     *     or if this node may not join
     */
    static Placements agree(ServerConfig config, ClusterMetadata metadata, int groups, Coding coding, LeaseMode lease) {
        int nodes = config.nodes().size();
        PlacementSettings wanted = config.placement();
        // Quorum-lease groups are placed like the others: their lease configurations are computed over the voters
        // (rules QL1, QL5), so a spare holds and grants nothing. Coded groups are not placed: their code length is the
        // node count (coding=N,F,X names it), and placing them on fewer nodes was not built or tested.
        if (!wanted.everyNode(nodes) && coding.enabled()) {
            throw new IllegalStateException("replicas=" + wanted.replicas() + " of " + nodes + " nodes is refused for "
                    + "RS-Paxos coded groups: only uncoded groups are placed on fewer nodes than the cluster has "
                    + "(docs/membership.md, Placement)");
        }
        while (true) {
            Optional<Versioned<Placement>> recorded = metadata.placement();
            if (recorded.isPresent()) {
                Placement p = recorded.get().value();
                if (NodeJoin.joining(config, p)) {
                    NodeJoin.register(config, metadata, recorded.get(), coding, lease);
                    continue; // re-read: this node's record, or another's that won the compare-and-set
                }
                check(config, p, groups);
                Placements out = new Placements(metadata, recorded.get());
                metadata.watchPlacement(v -> {
                    out.advance(v);
                    out.listeners.forEach(l -> l.accept(v.value()));
                });
                return out;
            }
            if (metadata.clusterSpec().map(c -> c.members().size() < nodes).orElse(false)) {
                throw new IllegalStateException("node " + config.nodeId() + " refuses to join cluster '"
                        + config.clusterName() + "': it has no placement record yet; start its founding nodes first");
            }
            if (!wanted.everyNode(nodes) && ranBefore(metadata, groups)) {
                throw new IllegalStateException("cluster '" + config.clusterName() + "' ran with every node in every "
                        + "group before placement was recorded; replicas=" + wanted.replicas() + " applies to a new "
                        + "cluster only (move replicas with 'synod admin move-replica')");
            }
            Placement plan = PlacementPlanner.plan(groups, wanted.replicas(), nodes, wanted.zones());
            if (metadata.compareAndSetPlacement(-1, plan)) {
                LOG.info("node {}: recorded the placement of {} groups of {} replicas on {} nodes: {}", config.nodeId(),
                        groups, wanted.replicas(), nodes, plan.current());
            }
        }
    }

    /** Whether any group elected a leader before (a cluster whose data directories hold every-node memberships). */
    private static boolean ranBefore(ClusterMetadata metadata, int groups) {
        for (int g = 0; g < groups; g++) {
            if (metadata.epoch(g).value().epoch() > 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * The record must match this node's settings; the configuration may list fewer nodes than the record has (nodes
     * joined since: the configuration's are the seed set), and its zones are then the record's first ones.
     */
    private static void check(ServerConfig config, Placement p, int groups) {
        PlacementSettings wanted = config.placement();
        int nodes = config.nodes().size();
        List<String> zones = p.zones().isEmpty() ? p.zones() : p.zones().subList(0, nodes);
        // replicas=all names the founding nodes' count in a cluster nodes joined.
        boolean replicasAgree = p.replicas() == wanted.replicas()
                || (wanted.everyNode(nodes) && p.replicas() == p.nodes() - p.joined().size());
        if (p.isRemoved(config.nodeId())) {
            throw new IllegalStateException("node " + config.nodeId() + " refuses to start: it was removed from cluster '"
                    + config.clusterName() + "' (synod admin remove-node) and hosts no group; a removed node's id is not "
                    + "reused (a new node joins with the next id, " + p.nodes() + ")");
        }
        if (p.nodes() < nodes || !replicasAgree || !zones.equals(wanted.zones()) || p.groups() != groups) {
            throw new IllegalStateException("node " + config.nodeId() + " refuses to start: cluster '"
                    + config.clusterName() + "' placed " + p.groups() + " groups of " + p.replicas() + " replicas on "
                    + p.nodes() + " nodes" + (p.zones().isEmpty() ? "" : " in zones " + p.zones()) + ", this node's config "
                    + "says " + groups + " groups of " + wanted.replicas() + " on " + nodes
                    + (wanted.zones().isEmpty() ? "" : " in zones " + wanted.zones()));
        }
    }

    /** The placement as last seen. */
    Placement current() {
        return current.value();
    }

    /** The placement as last seen, with its znode version. */
    Versioned<Placement> versioned() {
        return current;
    }

    /** Takes {@code seen} unless a newer version is known already (a move recorded here before its watch fired). */
    private synchronized void advance(Versioned<Placement> seen) {
        if (seen.version() >= current.version()) {
            current = seen;
        }
    }

    /** Calls {@code listener} with every placement the watch delivers from now on (on the metadata thread). */
    void onChange(Consumer<Placement> listener) {
        listeners.add(listener);
    }

    /**
     * A group's membership before its first change: the first ids of the nodes it was created on vote (ids n of node n,
     * the identity replica map), every other id is a spare. A replica that finds a membership on its disk keeps that.
     */
    GroupMembership initialMembership(int group, int universe) {
        long voters = 0;
        for (int node : current().initial().get(group)) {
            voters |= 1L << node;
        }
        return GroupMembership.ofVoters(universe, voters);
    }

    /**
     * What the node that leads {@code group} converges its membership to ({@link Rejoin#step}): the ids of
     * incarnations that no longer run are removed first, the current ids of the nodes the group is placed on are added
     * and promoted, and any other member is removed last (a replica moved away).
     */
    MembershipAdmin.Request target(int group, ReplicaMap map) {
        long wanted = 0;
        for (int node : current().current().get(group)) {
            int id = map.currentId(node);
            if (id >= 0) {
                wanted |= 1L << id;
            }
        }
        return MembershipAdmin.Request.converge(map.replaced(), wanted);
    }

    /**
     * Records the move of {@code group}'s replica from node {@code from} to node {@code to} (compare-and-set on the
     * placement znode, re-read on a conflict); the group's leader then converges to it. Blocks on ZooKeeper.
     *
     * @return the placement recorded
     * @throws IllegalStateException (one line) if {@code from} does not host the group or {@code to} does
     */
    Placement recordMove(int group, int from, int to) {
        while (true) {
            Versioned<Placement> recorded = metadata.placement().orElseThrow(() -> new IllegalStateException(
                    "no placement recorded"));
            Placement p = recorded.value();
            if (!p.hosts(group, from) && p.hosts(group, to)) {
                return p; // recorded by an earlier call: repeating the command is safe
            }
            Placement next = p.moved(group, from, to);
            if (metadata.compareAndSetPlacement(recorded.version(), next)) {
                advance(new Versioned<>(next, recorded.version() + 1));
                LOG.info("group {}: replica moves from node {} to node {}: placement {}", group, from, to, next.current());
                return next;
            }
        }
    }

    /**
     * A new id for node {@code to} in {@code group}'s map in place of its retired id {@code retired} (compare-and-set on
     * the map's znode, re-read on a conflict; nothing if the node's current id is no longer {@code retired}: allocated
     * by an earlier call). Blocks on ZooKeeper.
     *
     * @return the map recorded
     * @throws IllegalStateException if the group's ids are used up
     */
    ReplicaMap newId(int group, int to, int retired, int universe) {
        while (true) {
            Versioned<ReplicaMap> current = metadata.replicaMap(group);
            if (current.value().currentId(to) != retired) {
                return current.value();
            }
            ReplicaMap next = current.value().withIncarnation(new NodeIncarnation(to, ReplicaMoves.moveBackMark(group, retired)),
                    universe);
            if (metadata.compareAndSetReplicaMap(group, current.version(), next)) {
                LOG.info("group {}: a replica moves back onto node {}, whose id {} was removed: new id {}", group, to,
                        retired, next.currentId(to));
                return next;
            }
        }
    }

    /**
     * Takes {@code node}, which must host no group any more, out of the node set (compare-and-set on the placement
     * znode, re-read on a conflict; {@code synod admin remove-node} once it emptied the node). Blocks on ZooKeeper.
     *
     * @return the placement recorded (unchanged if the node was removed before: repeating the command is safe)
     * @throws IllegalStateException (one line) if the node is unknown, still hosts a group, or too few nodes would be
     *     left for the groups' replicas
     */
    Placement recordRemoval(int node) {
        while (true) {
            Versioned<Placement> recorded = metadata.placement().orElseThrow(() -> new IllegalStateException(
                    "no placement recorded"));
            Placement p = recorded.value();
            if (node < 0 || node >= p.nodes()) {
                throw new IllegalStateException("node " + node + " is not a node of the cluster (ids 0.." + (p.nodes() - 1)
                        + ")");
            }
            if (p.isRemoved(node)) {
                return p;
            }
            List<Integer> hosted = new ArrayList<>();
            for (int g = 0; g < p.groups(); g++) {
                if (p.hosts(g, node)) {
                    hosted.add(g);
                }
            }
            if (!hosted.isEmpty()) {
                throw new IllegalStateException("node " + node + " still hosts groups " + hosted + ": empty it first "
                        + "(synod admin remove-node moves its replicas away)");
            }
            Placement next;
            try {
                next = p.withRemoved(node);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("node " + node + " cannot leave the node set: " + e.getMessage());
            }
            if (metadata.compareAndSetPlacement(recorded.version(), next)) {
                advance(new Versioned<>(next, recorded.version() + 1));
                LOG.info("node {} left the node set: removed nodes {}", node, next.removed());
                return next;
            }
        }
    }
}
