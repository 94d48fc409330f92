package io.synod.server.node;

import io.synod.coordination.ClusterMetadata;
import io.synod.coordination.ElectionListener;
import io.synod.coordination.ElectionService;
import io.synod.coordination.ReplicaMap;
import io.synod.coordination.Versioned;
import io.synod.protocol.ElectionEvent;
import io.synod.server.wire.WireFrame;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * This node's view of every group's {@link ReplicaMap} (docs/membership.md, "Replica ids beyond node ids"): read from
 * ZooKeeper at start and kept current by a watch. It fixes this node's replica id in each group (the newest id of its
 * node, which {@link Rejoin} allocates for a new incarnation) and decides which peer messages leave and which are
 * taken: a message for replica r goes to the node the map names only if r is that node's current id (an id of an incarnation
 * that no longer runs, or one not allocated yet, hears nothing); a message that arrives for an id other than this
 * node's current one is dropped. The election names nodes; {@link #election} turns a "node m leads" into m's current
 * replica id.
 */
final class ReplicaRoutes {
    private final int nodeId;
    private final int[] selfReplica;
    private final AtomicReferenceArray<ReplicaMap> maps;
    /** Peer messages dropped for naming a replica id that is not current (at this sender or this receiver). */
    private final AtomicLong dropped = new AtomicLong();

    private ReplicaRoutes(int nodeId, ReplicaMap[] initial) {
        this.nodeId = nodeId;
        this.maps = new AtomicReferenceArray<>(initial);
        this.selfReplica = new int[initial.length];
        for (int g = 0; g < initial.length; g++) {
            selfReplica[g] = initial[g].currentId(nodeId);
            if (selfReplica[g] < 0) {
                throw new IllegalStateException("group " + g + "'s replica map names no replica id of node " + nodeId);
            }
        }
    }

    /** Reads every group's map (after {@link Rejoin}, so a new incarnation finds its new ids) and watches them. */
    static ReplicaRoutes open(ClusterMetadata metadata, int nodeId, int groups) {
        ReplicaMap[] initial = new ReplicaMap[groups];
        for (int g = 0; g < groups; g++) {
            initial[g] = metadata.replicaMap(g).value();
        }
        ReplicaRoutes routes = new ReplicaRoutes(nodeId, initial);
        for (int g = 0; g < groups; g++) {
            int group = g;
            metadata.watchReplicaMap(g, (Versioned<ReplicaMap> v) -> routes.maps.set(group, v.value()));
        }
        return routes;
    }

    /** Replica ids of every group are 0..universe-1 (the replicas' cluster size): {@link Rejoin#UNIVERSE}. */
    int universe() {
        return Rejoin.UNIVERSE;
    }

    /** This node's replica id in {@code group}. */
    int selfReplica(int group) {
        return selfReplica[group];
    }

    /** How many groups this node routes for. */
    int groups() {
        return maps.length();
    }

    /** The group's map as last seen. */
    ReplicaMap map(int group) {
        return maps.get(group);
    }

    /** The node that holds {@code replica} of {@code group} (the map's answer), or -1 if this node does not know it. */
    int nodeOf(int group, int replica) {
        return group >= 0 && group < maps.length() ? maps.get(group).nodeOf(replica) : -1;
    }

    /** Whether {@code frame} may leave: its receiver is the current id of its node. */
    boolean mayLeave(WireFrame.PeerMessage frame) {
        return count(frame.group() >= 0 && frame.group() < maps.length() && maps.get(frame.group()).isCurrent(frame.message().to()));
    }

    /** Whether {@code frame} (already checked to come from its sender's node, to this node) is for this node's replica. */
    boolean isForSelf(WireFrame.PeerMessage frame) {
        return count(frame.group() >= 0 && frame.group() < selfReplica.length
                && frame.message().to() == selfReplica[frame.group()]);
    }

    private boolean count(boolean ok) {
        if (!ok) {
            dropped.incrementAndGet();
        }
        return ok;
    }

    long dropped() {
        return dropped.get();
    }

    /** "Node m leads" as the replica knows ids: m's current replica id (this node's own, for itself). */
    ElectionEvent translate(int group, ElectionEvent event) {
        if (event instanceof ElectionEvent.LeaderIs l && l.leaderId() >= 0) {
            int id = l.leaderId() == nodeId ? selfReplica[group] : maps.get(group).currentId(l.leaderId());
            return new ElectionEvent.LeaderIs(id >= 0 ? id : l.leaderId());
        }
        return event;
    }

    /** The election as the group loops see it: the same service, its events in replica ids. */
    ElectionService election(ElectionService nodes) {
        return new ElectionService() {
            @Override
            public int nodeId() {
                return nodes.nodeId();
            }

            @Override
            public void join(int group, ElectionListener listener) {
                nodes.join(group, (g, event) -> listener.onElection(g, translate(g, event)));
            }

            @Override
            public void resign(int group) {
                nodes.resign(group);
            }

            @Override
            public void leave(int group) {
                nodes.leave(group);
            }

            @Override
            public int leaderOf(int group) {
                return nodes.leaderOf(group);
            }

            @Override
            public long epochOf(int group) {
                return nodes.epochOf(group);
            }

            @Override
            public void close() {
                // The node closes the service it wraps.
            }
        };
    }
}
