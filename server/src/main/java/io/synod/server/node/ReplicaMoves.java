package io.synod.server.node;

import io.synod.coordination.Placement;
import io.synod.coordination.ReplicaMap;
import io.synod.core.paxos.GroupMembership;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Whether a replica of a group may move from one node to another now ({@code synod admin move-replica};
 * docs/membership.md, "Moving a replica"). Checked on the group's leader against its committed membership, the
 * replica map and the placement, before the move is recorded; pure.
 */
final class ReplicaMoves {
    private ReplicaMoves() {
    }

    /** Whether the placement already records the move (a repeated command): {@code to} hosts the group, {@code from} not. */
    static boolean recorded(Placement p, int group, int from, int to) {
        return !p.hosts(group, from) && p.hosts(group, to);
    }

    /** The nodes of the group's members (voters and learners) in {@code m}. */
    static Set<Integer> memberNodes(GroupMembership m, ReplicaMap map) {
        Set<Integer> out = new HashSet<>();
        for (long rest = m.members(); rest != 0; rest &= rest - 1) {
            out.add(map.nodeOf(Long.numberOfTrailingZeros(rest)));
        }
        return out;
    }

    /**
     * Whether the committed membership {@code m} is where the placement puts the group: its members are on exactly the
     * placed nodes, each the node's current id, and none is a learner. Otherwise a move (or a re-join) is in flight.
     */
    static boolean settled(Placement p, int group, GroupMembership m, ReplicaMap map) {
        if (m.learners() != 0 || !memberNodes(m, map).equals(new HashSet<>(p.current().get(group)))) {
            return false;
        }
        for (long rest = m.members(); rest != 0; rest &= rest - 1) {
            if (!map.isCurrent(Long.numberOfTrailingZeros(rest))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The one-line reason a move of {@code group}'s replica from node {@code from} to node {@code to} is refused, or
     * null if it may be recorded. {@code m} is the leader's committed membership, {@code heardRecently} the ids it heard
     * from within the CheckQuorum window (itself included).
     */
    static String refusal(Placement p, int group, int from, int to, GroupMembership m, ReplicaMap map, long heardRecently) {
        List<Integer> hosts = p.current().get(group);
        if (from < 0 || from >= p.nodes() || to < 0 || to >= p.nodes() || from == to) {
            return "move of group " + group + " from node " + from + " to node " + to + ": nodes must be two different "
                    + "ids 0.." + (p.nodes() - 1);
        }
        if (p.isRemoved(to)) {
            return "node " + to + " was removed from the cluster's node set (synod admin remove-node): it takes no "
                    + "replica";
        }
        if (p.hosts(group, to)) {
            return "node " + to + " already hosts a replica of group " + group + " (placed on nodes " + hosts + ")";
        }
        if (!p.hosts(group, from)) {
            return "node " + from + " hosts no replica of group " + group + " (placed on nodes " + hosts + ")";
        }
        if (PlacementPlanner.distinctZones(p.zones()) >= p.replicas() && PlacementPlanner.zoneUsed(p.zones(), hosts, to, from)) {
            return "node " + to + "'s zone " + p.zone(to) + " already holds a replica of group " + group + " (placed on "
                    + "nodes " + hosts + ", zones " + p.zones() + "): no two replicas of a group share a zone";
        }
        if (!settled(p, group, m, map)) {
            return "a move is already in flight for group " + group + ": its membership " + m + " is not yet on the "
                    + "placed nodes " + hosts + "; wait for it (synod admin status)";
        }
        if (map.currentId(to) < 0) {
            return "node " + to + " has no replica id in group " + group + " (its replica map " + map.replicas()
                    + "): it runs no replica of the group";
        }
        // The strict reconfiguration check on the end state: the voters after the move that the leader heard from
        // recently (the new one is a spare, never heard yet) must make a majority of them, or the move would stall
        // with the group unable to commit once the old replica is removed.
        long after = 0;
        for (int n : hosts) {
            after |= n == from ? 0 : 1L << map.currentId(n);
        }
        int live = Long.bitCount(after & heardRecently);
        int majority = (hosts.size()) / 2 + 1;
        if (live < majority) {
            return "strict reconfiguration check: after moving group " + group + "'s replica from node " + from + " to node "
                    + to + ", " + live + " of its " + hosts.size() + " voters would be live (heard from recently), short "
                    + "of a majority of " + majority;
        }
        return null;
    }

    /**
     * Where {@code group}'s replica on node {@code from} goes when the operator names no node ({@code synod admin
     * remove-node}): the node hosting the fewest replicas (ties: the lowest id) among those that do not host the group,
     * keep the zone rule and that was not removed from the node set, a node whose current id in the group was never
     * removed before one whose id was (it needs a new id and a restart, {@link #retiredIdOf}); -1 if there is none.
     */
    static int target(Placement p, int group, int from, GroupMembership m, ReplicaMap map) {
        List<Integer> hosts = p.current().get(group);
        boolean zoneRule = PlacementPlanner.distinctZones(p.zones()) >= p.replicas();
        int best = -1;
        for (int n = 0; n < p.nodes(); n++) {
            int id = map.currentId(n);
            if (hosts.contains(n) || p.isRemoved(n) || (zoneRule && PlacementPlanner.zoneUsed(p.zones(), hosts, n, from)) || id < 0) {
                continue;
            }
            // A node whose id was removed before takes the replica only under a new id, and only once it restarted
            // (its local replica is reset at start, LostGroups): any node that needs no restart goes first.
            if (best < 0) {
                best = n;
                continue;
            }
            boolean retired = m.isRetired(id);
            boolean bestRetired = m.isRetired(map.currentId(best));
            if (retired != bestRetired ? bestRetired : p.replicasOn(n) < p.replicasOn(best)) {
                best = n;
            }
        }
        return best;
    }

    /**
     * The retired id of node {@code to} in {@code group} that a move onto it replaces by a new one ({@link Placements#newId}), or
     * -1 if its current id was never removed (rule M7: a removed id never votes again, so a replica moved back onto a
     * node it left comes back under a new id, with a fresh local replica).
     */
    static int retiredIdOf(int to, GroupMembership m, ReplicaMap map) {
        int id = map.currentId(to);
        return id >= 0 && m.isRetired(id) ? id : -1;
    }

    /**
     * What the replica map's entry of the new id records as its incarnation when a move back replaces {@code retired}
     * of {@code group}: a name derived from both, so a repeated allocation finds it (and allocates nothing twice), and
     * the node's start tells it from any other new id ({@link LostGroups}: it resets its local replica of the group).
     */
    static UUID moveBackMark(int group, int retired) {
        return UUID.nameUUIDFromBytes(("synod move back: group " + group + " replaces replica " + retired)
                .getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The id that the move back which allocated {@code id} in {@code map} replaced (the same node's id just below it,
     * whose {@link #moveBackMark} {@code id} records), or -1 if {@code id} was not allocated by a move back.
     */
    static int movedBackFrom(ReplicaMap map, int id) {
        ReplicaMap.Replica r = map.replica(id);
        if (r == null || r.incarnation() == null) {
            return -1;
        }
        int previous = -1;
        for (ReplicaMap.Replica e : map.replicas()) {
            previous = e.nodeId() == r.nodeId() && e.id() < id ? e.id() : previous;
        }
        return previous >= 0 && moveBackMark(map.group(), previous).equals(r.incarnation()) ? previous : -1;
    }

    /**
     * The move that brings {@code group} closer to balance ({@code synod admin rebalance}), or null if there is none:
     * from the most loaded of its nodes (ties: the highest id) to the node {@link #target} chooses, if that node
     * hosts at least two replicas fewer (the move then narrows the spread; repeated over the groups until none has one,
     * replica counts differ by at most one unless zones or retired ids forbid every such move).
     */
    static int[] rebalance(Placement p, int group, GroupMembership m, ReplicaMap map) {
        List<Integer> hosts = new ArrayList<>(p.current().get(group));
        hosts.sort((a, b) -> a.equals(b) ? 0 : p.replicasOn(a) != p.replicasOn(b)
                ? Integer.compare(p.replicasOn(b), p.replicasOn(a)) : Integer.compare(b, a));
        for (int from : hosts) {
            int to = target(p, group, from, m, map);
            if (to >= 0 && p.replicasOn(to) <= p.replicasOn(from) - 2) {
                return new int[] {from, to};
            }
        }
        return null;
    }
}
