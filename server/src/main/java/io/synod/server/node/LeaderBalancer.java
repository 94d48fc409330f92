package io.synod.server.node;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Leaders spread over the nodes. ZooKeeper elects each group's leader on its own, so without a rule one
 * node ends up leading every group (the first to start wins every latch) and does all the leader work:
 * proposing, the leader's fsync stream, lease reads. Two rules keep about G/N leaderships per node:
 * <ol>
 *   <li>The election prefers the less loaded node: a node that wins a group's latch while a live,
 *       up-to-date participant leads fewer groups than it does defers to it (the election service's
 *       load preference, bounded like its up-to-date preference).</li>
 *   <li>This class: a node that leads at least {@link #SLACK} more groups than the least loaded live
 *       node moves its leaderships beyond an even share away: each group hands over (the end-lease entry under a leader lease,
 *       so no lease gap opens) and resigns, and rule 1 steers the election to a less loaded node.</li>
 * </ol>
 * Hysteresis, so that leaders do not flap: a difference of one is balanced (G/N need not be whole), a
 * node moves leaderships at most once per {@code cooldownNanos} (long enough for the moves and the new
 * leaders to show in every node's view), and a node is counted only once it is a live member.
 *
 * <p>When groups are placed on fewer nodes than the cluster has (docs/membership.md, "Placement"), only a node that
 * hosts a group can take its leadership: a group moves only towards a live node that hosts it and leads at least
 * {@link #SLACK} fewer groups.
 *
 * <p>Pure: the caller passes its view (who leads each group, who is live, who hosts what) and the time; the decision
 * is the groups to move.
 */
final class LeaderBalancer {
    /** A node moves a leadership away when it leads at least this many more groups than the least loaded. */
    static final int SLACK = 2;

    private static final int[] NONE = new int[0];

    private final int self;
    private final long cooldownNanos;
    private boolean moved;
    private long lastMoveNanos;

    LeaderBalancer(int self, long cooldownNanos) {
        if (cooldownNanos <= 0) {
            throw new IllegalArgumentException("cooldown must be > 0 ns, got " + cooldownNanos);
        }
        this.self = self;
        this.cooldownNanos = cooldownNanos;
    }

    /** Which nodes host a replica of which group (docs/membership.md, "Placement"). */
    interface Hosts {
        boolean hosts(int group, int node);
    }

    /** As {@link #decide(int[], Set, Hosts, long)} with every node hosting every group. */
    int[] decide(int[] leaders, Set<Integer> live, long nowNanos) {
        return decide(leaders, live, (g, n) -> true, nowNanos);
    }

    /**
     * @param leaders per group, the node this node believes leads it (-1: none known)
     * @param live    the live members (this node included once registered)
     * @param hosts   which nodes host which groups: a leadership moves only to a node that votes in the group
     * @return the groups whose leadership this node should move away now (its excess over an even
     *         share, highest-numbered first, each one a live node hosting it leads at least {@link #SLACK} fewer
     *         groups than this node), or none
     */
    int[] decide(int[] leaders, Set<Integer> live, Hosts hosts, long nowNanos) {
        if (moved && nowNanos - lastMoveNanos < cooldownNanos) {
            return NONE;
        }
        if (!live.contains(self)) {
            return NONE;
        }
        Map<Integer, Integer> counts = new TreeMap<>();
        for (int node : live) {
            counts.put(node, 0);
        }
        int led = 0;
        List<Integer> mine = new ArrayList<>();
        for (int g = leaders.length - 1; g >= 0; g--) {
            int leader = leaders[g];
            if (leader >= 0 && counts.containsKey(leader)) {
                counts.merge(leader, 1, Integer::sum);
                led++;
            }
            if (leader == self) {
                mine.add(g);
            }
        }
        List<Integer> movable = new ArrayList<>();
        for (int g : mine) {
            for (Map.Entry<Integer, Integer> e : counts.entrySet()) {
                if (e.getKey() != self && hosts.hosts(g, e.getKey()) && mine.size() - e.getValue() >= SLACK) {
                    movable.add(g);
                    break;
                }
            }
        }
        if (movable.isEmpty()) {
            return NONE;
        }
        // An even share rounded up; at least one move, so that a difference of SLACK always closes.
        int share = (led + live.size() - 1) / live.size();
        int moves = Math.min(movable.size(), Math.max(1, mine.size() - share));
        moved = true;
        lastMoveNanos = nowNanos;
        return movable.subList(0, moves).stream().mapToInt(Integer::intValue).toArray();
    }
}
