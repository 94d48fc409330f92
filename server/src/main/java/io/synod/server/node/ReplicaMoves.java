package io.synod.server.node;

import io.synod.coordination.Placement;
import io.synod.coordination.ReplicaMap;
import io.synod.core.paxos.GroupMembership;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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
     * null if it may be recorded. {@code m} is the leader's committed membership.
     */
    static String refusal(Placement p, int group, int from, int to, GroupMembership m, ReplicaMap map) {
        List<Integer> hosts = p.current().get(group);
        if (from < 0 || from >= p.nodes() || to < 0 || to >= p.nodes() || from == to) {
            return "move of group " + group + " from node " + from + " to node " + to + ": nodes must be two different "
                    + "ids 0.." + (p.nodes() - 1);
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
        int toId = map.currentId(to);
        if (toId < 0 || m.isRetired(toId)) {
            return "node " + to + "'s replica id " + toId + " of group " + group + " was removed before (rule M7): "
                    + "moving a replica back to it needs a new id for that node and a reset of its local replica, "
                    + "which is not built";
        }
        return null;
    }
}
