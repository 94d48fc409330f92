package io.synod.coordination;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

/**
 * Which node, and which incarnation of it, holds each replica id of one group: the content of
 * {@code /synod/<cluster>/replicas/<g>} (docs/membership.md, "Replica ids beyond node ids"). A group's replica id
 * space outgrows its node count: ids {@code 0..nodes-1} are the nodes' first incarnations (a cluster without the
 * znode reads as this {@link #identity} map), and a node that starts again as a new incarnation (its data directory
 * was wiped) takes a new id in every group, never one used before (rule M7: a removed id never returns).
 *
 * <p>Each entry names the node that holds its id, and peers route a message for replica {@code r} to the node this
 * map names ({@link #nodeOf}); the map says which id of that node is {@linkplain #isCurrent current} (earlier ids of a
 * node belong to an incarnation that no longer runs). A new incarnation of node {@code n} takes {@code n + nodes},
 * {@code n + 2 nodes}, ... while those are free, and a node that joined the running cluster ({@link #withNode}) takes
 * its own id {@code n} if free; either takes the lowest id never allocated above the node's newest otherwise (a node's
 * ids ascend, its newest is its current one), so an id is never allocated twice (ids never leave the map). Ids stay below {@link #MAX_IDS}, the replica's bit sets. Immutable; written with
 * a compare-and-set on the znode's version.
 *
 * @param group the group
 * @param nodes the cluster's founding node count (the ids of the identity map)
 * @param replicas every id ever allocated, ascending
 */
public record ReplicaMap(int group, int nodes, List<Replica> replicas) {
    /** Replica ids fit the replica's bit sets: 0..62 (core's ReplicaConfig.MAX_CLUSTER_SIZE). */
    public static final int MAX_IDS = 63;

    /**
     * One replica id and what holds it.
     *
     * @param incarnation the incarnation of the node that took the id; null for an id of the identity map (the node's
     *     first incarnation, whichever it is)
     */
    public record Replica(int id, int nodeId, UUID incarnation) {}

    public ReplicaMap {
        if (nodes < 1 || nodes > MAX_IDS) {
            throw new IllegalArgumentException("replica map of group " + group + ": node count " + nodes + " outside 1.."
                    + MAX_IDS);
        }
        replicas = List.copyOf(replicas);
        int previous = -1;
        for (Replica r : replicas) {
            if (r.id() <= previous || r.id() >= MAX_IDS) {
                throw new IllegalArgumentException("replica map of group " + group + ": ids must ascend below " + MAX_IDS
                        + ", got " + r.id() + " after " + previous);
            }
            if (r.nodeId() < 0 || r.nodeId() > ClusterPaths.MAX_NODE_ID) {
                throw new IllegalArgumentException("replica map of group " + group + ": id " + r.id() + " on node "
                        + r.nodeId() + " (node ids are 0.." + ClusterPaths.MAX_NODE_ID + ")");
            }
            previous = r.id();
        }
    }

    /** Ids {@code 0..nodes-1} on nodes {@code 0..nodes-1}: a group no node re-joined (and a cluster from before the map). */
    public static ReplicaMap identity(int group, int nodes) {
        List<Replica> out = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
            out.add(new Replica(n, n, null));
        }
        return new ReplicaMap(group, nodes, out);
    }

    /** The node that holds (or held) {@code id}, or -1 if the id was never allocated. */
    public int nodeOf(int id) {
        Replica r = replica(id);
        return r == null ? -1 : r.nodeId();
    }

    /** The newest id of {@code nodeId} in this group (the one its current incarnation runs), or -1 if it has none. */
    public int currentId(int nodeId) {
        int out = -1;
        for (Replica r : replicas) {
            if (r.nodeId() == nodeId) {
                out = r.id();
            }
        }
        return out;
    }

    /** The entry of {@code id}, or null if it was never allocated. */
    public Replica replica(int id) {
        for (Replica r : replicas) {
            if (r.id() == id) {
                return r;
            }
        }
        return null;
    }

    /** Whether {@code id} is allocated and is its node's newest id: messages for it go to that node. */
    public boolean isCurrent(int id) {
        int node = nodeOf(id);
        return node >= 0 && currentId(node) == id;
    }

    /** Ids whose node has a newer one (an incarnation that no longer runs), as a bit set: a re-join removes them. */
    public long replaced() {
        long out = 0;
        for (Replica r : replicas) {
            if (!isCurrent(r.id())) {
                out |= 1L << r.id();
            }
        }
        return out;
    }

    /** The newest id of every node that has more than one (a re-joined node), as a bit set: a re-join adds them. */
    public long rejoined() {
        long out = 0;
        long seen = 0;
        for (Replica r : replicas) {
            if ((seen & 1L << r.nodeId()) != 0) {
                out |= 1L << currentId(r.nodeId());
            }
            seen |= 1L << r.nodeId();
        }
        return out;
    }

    /**
     * This map with a new id for {@code incarnation}'s node, unless its newest id already belongs to that incarnation
     * (then this map: a repeated start allocates nothing twice).
     *
     * @throws IllegalStateException if the node's ids below {@code universe} are used up
     */
    public ReplicaMap withIncarnation(NodeIncarnation incarnation, int universe) {
        return withIncarnation(incarnation, null, universe);
    }

    /**
     * As {@link #withIncarnation(NodeIncarnation, int)}; the node's newest id, if it names no incarnation (an id of the
     * identity map), is recorded as {@code previous}'s, the incarnation being replaced, so the map names it.
     */
    public ReplicaMap withIncarnation(NodeIncarnation incarnation, UUID previous, int universe) {
        int current = currentId(incarnation.nodeId());
        Replica newest = current < 0 ? null : replica(current);
        if (newest != null && incarnation.id().equals(newest.incarnation())) {
            return this;
        }
        int next = free(current < 0 ? incarnation.nodeId() : current + nodes, current, universe);
        if (next < 0) {
            throw new IllegalStateException("group " + group + " has no replica id left for node " + incarnation.nodeId()
                    + " (every id below " + Math.min(universe, MAX_IDS) + " is used: each re-join takes a new one)");
        }
        List<Replica> out = new ArrayList<>(replicas);
        if (newest != null && newest.incarnation() == null && previous != null) {
            out.set(out.indexOf(newest), new Replica(newest.id(), newest.nodeId(), previous));
        }
        out.add(new Replica(next, incarnation.nodeId(), incarnation.id()));
        Collections.sort(out, (a, b) -> Integer.compare(a.id(), b.id()));
        return new ReplicaMap(group, nodes, out);
    }

    /**
     * This map with an id for node {@code nodeId}, which joined the running cluster (its first incarnation, so the
     * entry names none), unless the node has one already (then this map: a repeated join allocates nothing twice).
     *
     * @throws IllegalStateException if every id below {@code universe} is used
     */
    public ReplicaMap withNode(int nodeId, int universe) {
        if (currentId(nodeId) >= 0) {
            return this;
        }
        int id = free(nodeId, -1, universe);
        if (id < 0) {
            throw new IllegalStateException("group " + group + " has no replica id left for the new node " + nodeId
                    + " (every id below " + Math.min(universe, MAX_IDS) + " is used)");
        }
        List<Replica> out = new ArrayList<>(replicas);
        out.add(new Replica(id, nodeId, null));
        Collections.sort(out, (a, b) -> Integer.compare(a.id(), b.id()));
        return new ReplicaMap(group, nodes, out);
    }

    /**
     * {@code preferred} if it is above {@code above}, below the limit and never allocated, else the lowest such id, or
     * -1. A node's ids ascend ({@link #currentId} is its highest), hence {@code above}, the node's newest id.
     */
    private int free(int preferred, int above, int universe) {
        int limit = Math.min(universe, MAX_IDS);
        if (preferred > above && preferred < limit && replica(preferred) == null) {
            return preferred;
        }
        for (int id = above + 1; id < limit; id++) {
            if (replica(id) == null) {
                return id;
            }
        }
        return -1;
    }
}
