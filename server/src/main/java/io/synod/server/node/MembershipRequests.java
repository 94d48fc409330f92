package io.synod.server.node;

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
    private final IntFunction<GroupLoop> loops;
    private final int groups;

    MembershipRequests(ReplicaRoutes routes, IntFunction<GroupLoop> loops, int groups) {
        this.routes = routes;
        this.loops = loops;
        this.groups = groups;
    }

    void handle(ClientFrame.MembershipRequest request, Consumer<ClientFrame.Response> respond) {
        int g = request.group();
        GroupLoop loop = g >= 0 && g < groups ? loops.apply(g) : null;
        MembershipAdmin.Op op = switch (request.op()) {
            case ClientFrame.MEMBERSHIP_STATUS -> MembershipAdmin.Op.STATUS;
            case ClientFrame.MEMBERSHIP_ADD_LEARNER -> MembershipAdmin.Op.ADD_LEARNER;
            case ClientFrame.MEMBERSHIP_PROMOTE -> MembershipAdmin.Op.PROMOTE;
            case ClientFrame.MEMBERSHIP_REMOVE -> MembershipAdmin.Op.REMOVE;
            default -> null;
        };
        if (loop == null || op == null) {
            String why = loop == null ? "group " + g + " does not exist (the cluster has " + groups + ")"
                    : "membership request op " + request.op() + " is unknown (0 status, 1 add learner, 2 promote, 3 remove)";
            respond.accept(response(request, ClientReply.Status.REJECTED, 0, -1, why));
            return;
        }
        loop.onMembership(MembershipAdmin.Request.of(op, request.replica()), answer -> respond.accept(answer(request, op,
                answer)));
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
                (op == MembershipAdmin.Op.STATUS ? "" : a.message() + "\n") + describe(request.group(), map, a));
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
            ReplicaMap.Replica r = map.replica(id);
            out.append(out.length() == 0 ? "" : ", ").append(id).append(" (node ").append(map.nodeOf(id))
                    .append(", incarnation ").append(r == null || r.incarnation() == null ? "first" : r.incarnation());
            if (progress != null && id < progress.progress().length) {
                long applied = progress.progress()[id];
                out.append(", applied ").append(applied < 0 ? "unknown" : applied + (applied >= progress.commitSlot()
                        ? ", caught up" : ", " + (progress.commitSlot() - applied) + " behind"));
            }
            out.append(')');
        }
        return out.toString();
    }

    private static ClientFrame.Response response(ClientFrame.MembershipRequest request, ClientReply.Status status,
            long slot, int leaderNode, String text) {
        return new ClientFrame.Response(request.requestId(), request.group(), status.ordinal(), slot, leaderNode,
                text.getBytes(StandardCharsets.UTF_8));
    }
}
