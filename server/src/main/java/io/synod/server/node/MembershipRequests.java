package io.synod.server.node;

import io.synod.coordination.Placement;
import io.synod.coordination.ReplicaMap;
import io.synod.core.paxos.GroupMembership;
import io.synod.core.paxos.Role;
import io.synod.engine.MembershipAdmin;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.server.group.GroupLoop;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * The client port's admin membership requests ({@link ClientFrame.MembershipRequest}; {@code synod admin}): each goes
 * to this node's replica of its group ({@link MembershipAdmin}), and the answer is a {@link ClientFrame.Response}: OK
 * with the change entry's slot (0 for a status) and the group's membership as the leader sees it, in text (every
 * replica id with its node and incarnation from the {@link ReplicaMap}, the leader, each member's applied slot),
 * NOT_LEADER with the leader's node from a replica that does not lead, or REJECTED naming the rule a change breaks.
 */
final class MembershipRequests {
    private final ReplicaRoutes routes;
    private final Placements placements;
    /** Refuses a routed request for a group this node does not host ({@link PlacementAnswers#refusal}). */
    private final PlacementAnswers placementAnswers;
    private final IntFunction<GroupLoop> loops;
    private final int groups;
    /** Runs what blocks on ZooKeeper (recording a move), off the group's worker. */
    private final Executor blocking;

    MembershipRequests(ReplicaRoutes routes, Placements placements, PlacementAnswers placementAnswers,
            IntFunction<GroupLoop> loops, int groups, Executor blocking) {
        this.routes = routes;
        this.placements = placements;
        this.placementAnswers = placementAnswers;
        this.loops = loops;
        this.groups = groups;
        this.blocking = blocking;
    }

    void handle(ClientFrame.MembershipRequest request, Consumer<ClientFrame.Response> respond) {
        int g = request.group();
        GroupLoop loop = g >= 0 && g < groups ? loops.apply(g) : null;
        MembershipAdmin.Op op = switch (request.op()) {
            case ClientFrame.MEMBERSHIP_STATUS, ClientFrame.MEMBERSHIP_MOVE, ClientFrame.MEMBERSHIP_REMOVE_NODE ->
                    MembershipAdmin.Op.STATUS;
            case ClientFrame.MEMBERSHIP_ADD_LEARNER -> MembershipAdmin.Op.ADD_LEARNER;
            case ClientFrame.MEMBERSHIP_PROMOTE -> MembershipAdmin.Op.PROMOTE;
            case ClientFrame.MEMBERSHIP_REMOVE -> MembershipAdmin.Op.REMOVE;
            default -> null;
        };
        ClientFrame.Response notHosted = loop == null ? null : placementAnswers.refusal(request);
        if (notHosted != null) {
            respond.accept(notHosted); // its hint is a node already
            return;
        }
        if (loop == null || op == null) {
            String why = loop == null ? "group " + g + " does not exist (the cluster has " + groups + ")"
                    : "membership request op " + request.op() + " is unknown (0 status, 1 add learner, 2 promote, 3 remove, "
                    + "4 move, 5 remove node)";
            respond.accept(response(request, ClientReply.Status.REJECTED, 0, -1, why));
            return;
        }
        if (request.op() == ClientFrame.MEMBERSHIP_MOVE || request.op() == ClientFrame.MEMBERSHIP_REMOVE_NODE) {
            // The leader's committed membership first (on the group's worker), then the checks and the record.
            loop.onMembership(MembershipAdmin.Request.of(op, -1), a -> {
                if (a.role() != Role.LEADER) {
                    respond.accept(answer(request, op, a));
                } else if (request.op() == ClientFrame.MEMBERSHIP_MOVE) {
                    blocking.execute(() -> respond.accept(move(request, a)));
                } else {
                    blocking.execute(() -> respond.accept(removeNode(request, a)));
                }
            });
            return;
        }
        loop.onMembership(MembershipAdmin.Request.of(op, request.replica()), answer -> respond.accept(answer(request, op,
                answer)));
    }

    /** On the leader: refuses the move with one line, or records it (or finds it recorded) in the placement. */
    private ClientFrame.Response move(ClientFrame.MembershipRequest request, MembershipAdmin.Answer a) {
        int g = request.group();
        int from = request.replica() >> 8 & 0xff;
        int to = request.replica() & 0xff;
        ReplicaMap map = routes.map(g);
        int leaderNode = map.nodeOf(a.leaderHint());
        Placement placed = placements.current();
        try {
            if (from == ClientFrame.MOVE_TO_ANY) {
                return rebalance(request, a, placed, map, leaderNode);
            }
            if (to == ClientFrame.MOVE_TO_ANY && from >= 0 && from < placed.nodes() && placed.hosts(g, from)) {
                to = ReplicaMoves.target(placed, g, from, a.committed(), map);
                if (to < 0) {
                    return response(request, ClientReply.Status.REJECTED, 0, leaderNode, "no node can take group " + g
                            + "'s replica from node " + from + ": every other node hosts it, shares a zone with its "
                            + "replicas or had its id in the group removed (placed on nodes " + placed.current().get(g)
                            + ")");
                }
            }
            if (to == ClientFrame.MOVE_TO_ANY) {
                // Nothing of the group on node from (any more): a repeated remove-node only waits.
                return response(request, ClientReply.Status.OK, 0, leaderNode, "group " + g + ": node " + from
                        + " hosts no replica of it (placed on nodes " + placed.current().get(g) + ")\n" + describe(g, map, a));
            }
            if (!ReplicaMoves.recorded(placed, g, from, to)) {
                String refused = ReplicaMoves.refusal(placed, g, from, to, a.committed(), map, a.heardRecently());
                if (refused != null) {
                    return response(request, ClientReply.Status.REJECTED, 0, leaderNode, refused);
                }
                map = newIdIfRetired(g, to, a, map);
                placed = placements.recordMove(g, from, to);
            }
        } catch (RuntimeException e) { // ZooKeeper unreachable, or a concurrent move of the same group won
            return response(request, ClientReply.Status.REJECTED, 0, leaderNode, "group " + g + ": the move was not "
                    + "recorded: " + e.getMessage());
        }
        String state = ReplicaMoves.settled(placed, g, a.committed(), map) ? "done" : "in progress";
        return response(request, ClientReply.Status.OK, 0, leaderNode, "group " + g + ": replica moves from node " + from
                + " to node " + to + " (placed on nodes " + placed.current().get(g) + "), " + state + ": the leader adds "
                + "node " + to + "'s id " + map.currentId(to) + " as a learner, promotes it once caught up, then removes "
                + "node " + from + "'s id " + map.currentId(from) + prefixed("; ", restartHint(g, to, map, a.committed())) + "\n"
                + describe(g, map, a));
    }

    /**
     * Before a move onto node {@code to} is recorded: if its id in group {@code g} was removed before (rule M7), a new
     * id for it in the group's replica map ({@link Placements#newId}); the map to answer with.
     */
    private ReplicaMap newIdIfRetired(int g, int to, MembershipAdmin.Answer a, ReplicaMap map) {
        int retired = ReplicaMoves.retiredIdOf(to, a.committed(), map);
        return retired < 0 ? map : placements.newId(g, to, retired, routes.universe());
    }

    /**
     * What a move back onto a node needs from the operator: the node's current id in the group is a move-back's new id
     * ({@link ReplicaMoves#moveBackMark}), which the node takes, with a fresh local replica of the group, at its next
     * start ({@link LostGroups}); until then the learner does not catch up and the move waits.
     */
    static String restartHint(int g, int to, ReplicaMap map, GroupMembership committed) {
        int id = map.currentId(to);
        int previous = id < 0 || committed.isVoter(id) ? -1 : ReplicaMoves.movedBackFrom(map, id);
        if (previous < 0) {
            return "";
        }
        return "node " + to + "'s id " + previous + " in group " + g + " was removed before (rule M7), so it takes "
                + "new id " + id + " with an empty replica of the group at its next start: restart node " + to
                + " if it runs";
    }

    /** All the hints of a group waiting for a move back ({@link #restartHint}), one line each. */
    private static String restartHints(int g, Placement placed, ReplicaMap map, GroupMembership committed) {
        StringBuilder out = new StringBuilder();
        for (int n : placed.current().get(g)) {
            out.append(prefixed("\n", restartHint(g, n, map, committed)));
        }
        return out.toString();
    }

    private static String prefixed(String prefix, String text) {
        return text.isEmpty() ? "" : prefix + text;
    }

    /** On a leader: takes the emptied node {@code replica} out of the node set, or refuses with one line. */
    private ClientFrame.Response removeNode(ClientFrame.MembershipRequest request, MembershipAdmin.Answer a) {
        ReplicaMap map = routes.map(request.group());
        int leaderNode = map.nodeOf(a.leaderHint());
        try {
            Placement p = placements.recordRemoval(request.replica());
            return response(request, ClientReply.Status.OK, 0, leaderNode, "node " + request.replica() + " is removed "
                    + "from the node set (removed nodes " + p.removed() + "; " + p.liveNodes() + " of " + p.nodes()
                    + " nodes left)");
        } catch (RuntimeException e) { // still hosting a group, too few nodes left, ZooKeeper unreachable
            return response(request, ClientReply.Status.REJECTED, 0, leaderNode, String.valueOf(e.getMessage()));
        }
    }

    /**
     * On the leader, a rebalance step of the group (a move whose {@code from} is {@link ClientFrame#MOVE_TO_ANY}): waits
     * while a move is in flight, else records the move {@link ReplicaMoves#rebalance} finds, checked like any move
     * (the strict reconfiguration check included), or answers that the group has nothing to move.
     */
    private ClientFrame.Response rebalance(ClientFrame.MembershipRequest request, MembershipAdmin.Answer a,
            Placement placed, ReplicaMap map, int leaderNode) {
        int g = request.group();
        if (!ReplicaMoves.settled(placed, g, a.committed(), map)) {
            return response(request, ClientReply.Status.OK, 0, leaderNode, RebalanceStep.waiting(g,
                    PlacementPlanner.movesToBalance(placed)).line() + restartHints(g, placed, map, a.committed()) + "\n"
                    + describe(g, map, a));
        }
        int[] step = ReplicaMoves.rebalance(placed, g, a.committed(), map);
        if (step == null) {
            return response(request, ClientReply.Status.OK, 0, leaderNode, RebalanceStep.balanced(g,
                    PlacementPlanner.movesToBalance(placed)).line() + "\n" + describe(g, map, a));
        }
        String refused = ReplicaMoves.refusal(placed, g, step[0], step[1], a.committed(), map, a.heardRecently());
        if (refused != null) {
            return response(request, ClientReply.Status.REJECTED, 0, leaderNode, refused);
        }
        ReplicaMap ids = newIdIfRetired(g, step[1], a, map);
        Placement next = placements.recordMove(g, step[0], step[1]);
        return response(request, ClientReply.Status.OK, 0, leaderNode, RebalanceStep.moving(g, step[0], step[1],
                PlacementPlanner.movesToBalance(next)).line() + prefixed("\n", restartHint(g, step[1], ids, a.committed())) + "\n"
                + describe(g, ids, a));
    }

    private ClientFrame.Response answer(ClientFrame.MembershipRequest request, MembershipAdmin.Op op,
            MembershipAdmin.Answer a) {
        ReplicaMap map = routes.map(request.group());
        int leaderNode = a.leaderHint() < 0 ? -1 : map.nodeOf(a.leaderHint());
        if (a.role() != Role.LEADER) {
            return response(request, a.role() == null ? ClientReply.Status.REJECTED : ClientReply.Status.NOT_LEADER, 0,
                    leaderNode, a.message());
        }
        if (op != MembershipAdmin.Op.STATUS && !a.proposed()) {
            return response(request, ClientReply.Status.REJECTED, 0, leaderNode, a.message());
        }
        return response(request, ClientReply.Status.OK, Math.max(0, a.slot()), leaderNode,
                (op == MembershipAdmin.Op.STATUS ? "" : a.message() + "\n") + describe(request.group(), map, a)
                        + (placements.current().removed().isEmpty() ? ""
                                : "\n" + GroupNodes.removedLine(placements.current().removed())));
    }


    /** The membership the leader applied and committed, each id with its node and incarnation, and its progress. */
    static String describe(int group, ReplicaMap map, MembershipAdmin.Answer a) {
        GroupMembership m = a.committed();
        StringBuilder out = new StringBuilder("group ").append(group).append(": leader replica ").append(a.leaderHint())
                .append(" (node ").append(map.nodeOf(a.leaderHint())).append("), commit slot ").append(a.commitSlot())
                .append('\n');
        out.append("voters:  ").append(ids(m.voters(), map, a)).append('\n');
        out.append("learners: ").append(ids(m.learners(), map, a)).append('\n');
        out.append("retired: ").append(ids(m.retired(), map, null)).append('\n');
        out.append(new GroupNodes(map.nodeOf(a.leaderHint()), nodes(m.voters(), map), nodes(m.learners(), map)).line());
        if (!m.equals(a.applied())) {
            out.append("\napplied by the leader so far: ").append(a.applied());
        }
        return out.toString();
    }

    /** The nodes of the ids in {@code mask}. */
    private static List<Integer> nodes(long mask, ReplicaMap map) {
        List<Integer> out = new ArrayList<>();
        for (long rest = mask; rest != 0; rest &= rest - 1) {
            out.add(map.nodeOf(Long.numberOfTrailingZeros(rest)));
        }
        return out;
    }

    private static String ids(long mask, ReplicaMap map, MembershipAdmin.Answer progress) {
        if (mask == 0) {
            return "none";
        }
        StringBuilder out = new StringBuilder();
        for (long rest = mask; rest != 0; rest &= rest - 1) {
            int id = Long.numberOfTrailingZeros(rest);
            out.append(out.length() == 0 ? "" : ", ").append(id).append(" (node ").append(map.nodeOf(id)).append(", ")
                    .append(incarnation(map, id));
            if (progress != null && id < progress.progress().length) {
                long applied = progress.progress()[id];
                out.append(", applied ").append(applied < 0 ? "unknown" : applied + (applied >= progress.commitSlot()
                        ? ", caught up" : ", " + (progress.commitSlot() - applied) + " behind"));
            }
            out.append(')');
        }
        return out.toString();
    }

    /**
     * What holds {@code id}: "incarnation first" for a node's first incarnation (no UUID recorded), the UUID the map
     * records for an id taken by a new incarnation (a wiped node's is the one in its {@code node.identity} and in
     * ZooKeeper), and for an id a move back allocated, the id it replaced: its entry records a mark derived from that
     * id ({@link ReplicaMoves#moveBackMark}), no incarnation of the node, which printed as a UUID told nothing.
     */
    static String incarnation(ReplicaMap map, int id) {
        ReplicaMap.Replica r = map.replica(id);
        if (r == null || r.incarnation() == null) {
            return "incarnation first";
        }
        int replaced = ReplicaMoves.movedBackFrom(map, id);
        return replaced >= 0 ? "moved back in place of replica " + replaced : "incarnation " + r.incarnation();
    }

    private static ClientFrame.Response response(ClientFrame.MembershipRequest request, ClientReply.Status status,
            long slot, int leaderNode, String text) {
        return new ClientFrame.Response(request.requestId(), request.group(), status.ordinal(), slot, leaderNode,
                text.getBytes(StandardCharsets.UTF_8));
    }
}
