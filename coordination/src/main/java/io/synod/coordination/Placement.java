package io.synod.coordination;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which nodes host each group's replicas when a cluster of {@code nodes} nodes runs groups of {@code replicas}
 * replicas each: the content of {@code /synod/<cluster>/placement} (docs/membership.md, "Placement"). Written once by
 * the first node that finds none and afterwards only with a compare-and-set on the znode's version (a move records
 * where the group's replicas are now).
 *
 * <p>Per group, {@code initial} lists the nodes whose first ids voted when the group was created, the first of them
 * the group's intended leader; it never changes, because a replica that starts with an empty log must start from the
 * membership slot 0 was chosen under. {@code current} lists the nodes that host the group now (a move replaces one).
 * A node outside a group's list still runs a replica of it, a <em>spare</em>: an id that is a member of no membership.
 *
 * <p>The node set grows when a node joins a running cluster ({@link #withNode}; docs/membership.md, "Adding a node"):
 * {@code joined} records the address of every node that joined after the cluster was created, so that nodes whose
 * configuration lists only the founding nodes (the seed set) learn where it is. The founding nodes' addresses are in
 * their configurations, as before.
 *
 * @param nodes    the cluster's node count M (node ids 0..M-1)
 * @param replicas the replicas per group N, 1..M
 * @param zones    each node's zone ("" for none), one per node, or empty when no node names one
 * @param initial  per group, the N nodes it was created on, the intended leader first
 * @param current  per group, the N nodes that host it now
 * <p>The node set shrinks when {@code synod admin remove-node} has emptied a node ({@link #withRemoved};
 * docs/membership.md, "Removing a node"): its id stays (ids are never reused, and replica ids of its incarnations
 * stay retired), but {@code removed} names it, so moves, rebalancing and the balance counts leave it out.
 *
 * @param joined   the address ({@code host:peerPort:clientPort}) of each node that joined the running cluster, by id
 * @param removed  the nodes taken out of the node set, each hosting no group
 */
public record Placement(int nodes, int replicas, List<String> zones, List<List<Integer>> initial,
        List<List<Integer>> current, Map<Integer, String> joined, Set<Integer> removed) {

    /** A placement from which no node was removed. */
    public Placement(int nodes, int replicas, List<String> zones, List<List<Integer>> initial,
            List<List<Integer>> current, Map<Integer, String> joined) {
        this(nodes, replicas, zones, initial, current, joined, Set.of());
    }

    /** A placement of the founding nodes only (no node joined). */
    public Placement(int nodes, int replicas, List<String> zones, List<List<Integer>> initial,
            List<List<Integer>> current) {
        this(nodes, replicas, zones, initial, current, Map.of(), Set.of());
    }

    public Placement {
        if (nodes < 1 || nodes > ClusterPaths.MAX_NODE_ID + 1) {
            throw new IllegalArgumentException("placement: node count " + nodes + " outside 1.." + (ClusterPaths.MAX_NODE_ID + 1));
        }
        if (replicas < 1 || replicas > nodes) {
            throw new IllegalArgumentException("placement: " + replicas + " replicas per group on " + nodes + " nodes "
                    + "(must be 1.." + nodes + ")");
        }
        zones = List.copyOf(zones);
        if (!zones.isEmpty() && zones.size() != nodes) {
            throw new IllegalArgumentException("placement: " + zones.size() + " zones for " + nodes + " nodes");
        }
        initial = copy(initial, nodes, "initial");
        current = copy(current, nodes, "current");
        if (initial.size() != current.size()) {
            throw new IllegalArgumentException("placement: " + initial.size() + " initial groups but " + current.size()
                    + " current ones");
        }
        for (int g = 0; g < initial.size(); g++) {
            if (initial.get(g).size() != replicas) {
                throw new IllegalArgumentException("placement: group " + g + " was created on " + initial.get(g).size()
                        + " nodes, not " + replicas);
            }
        }
        joined = Collections.unmodifiableMap(new TreeMap<>(joined));
        for (Map.Entry<Integer, String> e : joined.entrySet()) {
            if (e.getKey() < 1 || e.getKey() >= nodes || e.getValue().isEmpty()) {
                throw new IllegalArgumentException("placement: joined node " + e.getKey() + " at '" + e.getValue()
                        + "' must have an id 1.." + (nodes - 1) + " and an address");
            }
        }
        removed = Collections.unmodifiableSet(new TreeSet<>(removed));
        for (int n : removed) {
            if (n < 0 || n >= nodes) {
                throw new IllegalArgumentException("placement: removed node " + n + " is not an id 0.." + (nodes - 1));
            }
            for (int g = 0; g < current.size(); g++) {
                if (current.get(g).contains(n)) {
                    throw new IllegalArgumentException("placement: removed node " + n + " still hosts group " + g);
                }
            }
        }
        if (nodes - removed.size() < replicas) {
            throw new IllegalArgumentException("placement: " + (nodes - removed.size()) + " nodes left for groups of "
                    + replicas + " replicas");
        }
    }

    private static List<List<Integer>> copy(List<List<Integer>> groups, int nodes, String what) {
        List<List<Integer>> out = new ArrayList<>(groups.size());
        for (int g = 0; g < groups.size(); g++) {
            List<Integer> hosts = List.copyOf(groups.get(g));
            Set<Integer> seen = new HashSet<>();
            for (int n : hosts) {
                if (n < 0 || n >= nodes || !seen.add(n)) {
                    throw new IllegalArgumentException("placement: " + what + " nodes of group " + g + " " + hosts
                            + " must be distinct ids 0.." + (nodes - 1));
                }
            }
            if (hosts.isEmpty()) {
                throw new IllegalArgumentException("placement: group " + g + " has no " + what + " node");
            }
            out.add(hosts);
        }
        return List.copyOf(out);
    }

    /** The group count G. */
    public int groups() {
        return current.size();
    }

    /** Whether {@code node} hosts a replica of {@code group} now. */
    public boolean hosts(int group, int node) {
        return current.get(group).contains(node);
    }

    /** Whether {@code node} was taken out of the node set ({@link #withRemoved}). */
    public boolean isRemoved(int node) {
        return removed.contains(node);
    }

    /** The nodes of the node set: every id 0..M-1 but the removed ones. */
    public int liveNodes() {
        return nodes - removed.size();
    }

    /**
     * This placement with {@code node} taken out of the node set (itself if it was already).
     *
     * @throws IllegalArgumentException if the node still hosts a group, or too few nodes would be left
     */
    public Placement withRemoved(int node) {
        if (removed.contains(node)) {
            return this;
        }
        Set<Integer> next = new TreeSet<>(removed);
        next.add(node);
        return new Placement(nodes, replicas, zones, initial, current, joined, next);
    }

    /** The zone of {@code node}, "" when nodes name no zone. */
    public String zone(int node) {
        return zones.isEmpty() ? "" : zones.get(node);
    }

    /** The number of groups whose replica {@code node} hosts now. */
    public int replicasOn(int node) {
        int out = 0;
        for (List<Integer> hosts : current) {
            out += hosts.contains(node) ? 1 : 0;
        }
        return out;
    }

    /** This placement with {@code group}'s replica on {@code from} moved to {@code to} (in {@code from}'s place). */
    public Placement moved(int group, int from, int to) {
        List<Integer> hosts = new ArrayList<>(current.get(group));
        int at = hosts.indexOf(from);
        if (at < 0 || hosts.contains(to)) {
            throw new IllegalArgumentException("placement: group " + group + " on " + hosts + " cannot move " + from
                    + " to " + to);
        }
        hosts.set(at, to);
        List<List<Integer>> next = new ArrayList<>(current);
        next.set(group, hosts);
        return new Placement(nodes, replicas, zones, initial, next, joined, removed);
    }

    /**
     * This placement with node {@code id} joined at {@code address} in {@code zone} ("" for none): the node count grows
     * by one and the new node hosts no group (a spare in every group, until replicas move onto it).
     *
     * @throws IllegalArgumentException if {@code id} is not the next node id, or the zone does not fit the zones named
     */
    public Placement withNode(int id, String address, String zone) {
        if (id != nodes) {
            throw new IllegalArgumentException("the next node of a cluster of " + nodes + " nodes is node " + nodes
                    + ", not " + id);
        }
        List<String> nextZones = new ArrayList<>(zones);
        if (!zones.isEmpty()) {
            if (zone.isEmpty()) {
                throw new IllegalArgumentException("the cluster's nodes are in zones " + zones + ": node " + id
                        + " must name its zone");
            }
            nextZones.add(zone);
        } else if (!zone.isEmpty()) {
            throw new IllegalArgumentException("the cluster's nodes name no zone: node " + id + " cannot be in zone "
                    + zone);
        }
        Map<Integer, String> nextJoined = new TreeMap<>(joined);
        nextJoined.put(id, address);
        return new Placement(nodes + 1, replicas, nextZones, initial, current, nextJoined, removed);
    }
}
