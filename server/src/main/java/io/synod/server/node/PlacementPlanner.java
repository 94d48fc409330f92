package io.synod.server.node;

import io.synod.coordination.Placement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Places G groups of N replicas on M nodes (docs/membership.md, "Placement"): pure and deterministic, so every node
 * that computes it for the same inputs gets the same answer (only the first one's is recorded, in ZooKeeper). The
 * result keeps three rules:
 * <ol>
 *   <li><b>Zones.</b> When the nodes name at least N distinct zones, no two replicas of a group share a zone (a zone
 *       lost takes at most one replica of each group). This rule wins over the next two when zones are uneven.</li>
 *   <li><b>Replicas balanced.</b> The number of groups a node hosts differs by at most one between nodes, whenever a
 *       placement that keeps rule 1 allows it.</li>
 *   <li><b>Leaders balanced.</b> Each group's first node is its intended leader; the number of groups a node comes
 *       first in differs by at most one between nodes, whenever the chosen replica sets allow it.</li>
 * </ol>
 * How: each group takes, one at a time, the node that hosts the fewest groups so far among those whose zone the group
 * does not use yet (ties: fewest first places, then the lowest id); that alone balances replicas when zones do not
 * constrain. A repair pass then moves single replicas from the most to the least loaded node while rule 1 allows, and
 * a last pass chooses each group's first node by shifting first places along alternating paths (group led by u that
 * also holds w: w leads it instead) from the most to the least loaded node, the balanced-assignment augmenting path.
 */
final class PlacementPlanner {
    private PlacementPlanner() {
    }

    /** Distinct non-empty zones among {@code zones}. */
    static int distinctZones(List<String> zones) {
        Set<String> out = new HashSet<>();
        for (String z : zones) {
            if (!z.isEmpty()) {
                out.add(z);
            }
        }
        return out.size();
    }

    /**
     * @param zones each node's zone ("" for none), or empty when no node names one
     * @throws IllegalArgumentException if N is outside 1..M or the zones do not name every node
     */
    static Placement plan(int groups, int replicas, int nodes, List<String> zones) {
        if (replicas < 1 || replicas > nodes) {
            throw new IllegalArgumentException("replicas=" + replicas + " must be 1.." + nodes + " (the node count)");
        }
        if (!zones.isEmpty() && zones.size() != nodes) {
            throw new IllegalArgumentException(zones.size() + " zones for " + nodes + " nodes: name one per node");
        }
        boolean zoneRule = distinctZones(zones) >= replicas;
        int[] count = new int[nodes];
        int[] first = new int[nodes];
        List<List<Integer>> sets = new ArrayList<>(groups);
        for (int g = 0; g < groups; g++) {
            List<Integer> chosen = new ArrayList<>(replicas);
            for (int i = 0; i < replicas; i++) {
                int best = -1;
                for (int n = 0; n < nodes; n++) {
                    if (chosen.contains(n) || (zoneRule && zoneUsed(zones, chosen, n, -1))) {
                        continue;
                    }
                    if (best < 0 || count[n] < count[best] || (count[n] == count[best] && first[n] < first[best])) {
                        best = n;
                    }
                }
                chosen.add(best);
                count[best]++;
            }
            first[chosen.get(0)]++;
            sets.add(chosen);
        }
        balanceReplicas(sets, count, zones, zoneRule);
        balanceFirsts(sets, nodes);
        return new Placement(nodes, replicas, zones, sets, sets);
    }

    /** Whether a node of {@code hosts} other than {@code except} is in {@code node}'s zone. */
    static boolean zoneUsed(List<String> zones, List<Integer> hosts, int node, int except) {
        if (zones.isEmpty() || zones.get(node).isEmpty()) {
            return false;
        }
        for (int h : hosts) {
            if (h != except && h != node && zones.get(h).equals(zones.get(node))) {
                return true;
            }
        }
        return false;
    }

    /** Moves single replicas from a most loaded node to one at least two below it, while the zone rule allows. */
    private static void balanceReplicas(List<List<Integer>> sets, int[] count, List<String> zones, boolean zoneRule) {
        boolean moved = true;
        while (moved) {
            moved = false;
            int most = 0;
            for (int c : count) {
                most = Math.max(most, c);
            }
            for (int g = 0; g < sets.size() && !moved; g++) {
                List<Integer> hosts = sets.get(g);
                for (int i = 0; i < hosts.size() && !moved; i++) {
                    int from = hosts.get(i);
                    if (count[from] != most) {
                        continue;
                    }
                    for (int to = 0; to < count.length && !moved; to++) {
                        if (count[to] <= most - 2 && !hosts.contains(to)
                                && !(zoneRule && zoneUsed(zones, hosts, to, from))) {
                            hosts.set(i, to);
                            count[from]--;
                            count[to]++;
                            moved = true;
                        }
                    }
                }
            }
        }
    }

    /** Chooses each group's first node so that first places differ by at most one where the sets allow it. */
    private static void balanceFirsts(List<List<Integer>> sets, int nodes) {
        int[] firsts = new int[nodes];
        for (List<Integer> hosts : sets) {
            firsts[hosts.get(0)]++;
        }
        while (true) {
            int most = 0;
            for (int f : firsts) {
                most = Math.max(most, f);
            }
            // Breadth-first from every most-loaded node: u -> w when a group u leads also holds w.
            int[] viaGroup = new int[nodes];
            int[] parent = new int[nodes];
            Arrays.fill(parent, -2);
            ArrayDeque<Integer> queue = new ArrayDeque<>();
            for (int n = 0; n < nodes; n++) {
                if (firsts[n] == most) {
                    parent[n] = -1;
                    queue.add(n);
                }
            }
            int end = -1;
            while (!queue.isEmpty() && end < 0) {
                int u = queue.poll();
                for (int g = 0; g < sets.size() && end < 0; g++) {
                    if (sets.get(g).get(0) != u) {
                        continue;
                    }
                    for (int w : sets.get(g)) {
                        if (parent[w] == -2) {
                            parent[w] = u;
                            viaGroup[w] = g;
                            if (firsts[w] <= most - 2) {
                                end = w;
                                break;
                            }
                            queue.add(w);
                        }
                    }
                }
            }
            if (end < 0) {
                return;
            }
            firsts[end]++;
            for (int w = end; parent[w] >= 0; w = parent[w]) {
                List<Integer> hosts = sets.get(viaGroup[w]);
                hosts.remove(Integer.valueOf(w));
                hosts.add(0, w);
            }
            int start = end;
            while (parent[start] >= 0) {
                start = parent[start];
            }
            firsts[start]--;
        }
    }

    /**
     * How many single moves the placement needs at least before replica counts per node differ by at most one: the
     * replicas above the highest balanced count, or the places below the lowest, whichever is more (each move takes
     * one replica from one node to another).
     */
    static int movesToBalance(Placement p) {
        int total = 0;
        for (int n = 0; n < p.nodes(); n++) {
            total += p.replicasOn(n);
        }
        int live = p.liveNodes(); // a node removed from the node set hosts nothing and is not filled
        int low = total / live;
        int high = low + (total % live == 0 ? 0 : 1);
        int above = 0;
        int below = 0;
        for (int n = 0; n < p.nodes(); n++) {
            if (p.isRemoved(n)) {
                continue;
            }
            above += Math.max(0, p.replicasOn(n) - high);
            below += Math.max(0, low - p.replicasOn(n));
        }
        return Math.max(above, below);
    }
}
