package io.synod.server.node;

import io.synod.coordination.ShardMap;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.RoutedCommand;
import io.synod.server.group.GroupLoop;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Where a client's request goes on this node: to this node's replica of its key's group (by the shard map ZooKeeper
 * keeps current), or back to the client at once (malformed, no such group, a group this node does not host). Every
 * answer names nodes, not replica ids ({@link LeaderHints}).
 */
final class ClientRouting {
    private final ReplicaRoutes routes;
    /** The range -> group map as the ZooKeeper watch last set it. */
    private final Supplier<ShardMap> shardMap;
    /** This node's group loops, by group. */
    private final GroupLoop[] loops;
    /** Placement queries, and commands for groups this node does not host (null until the client port opens). */
    private final Supplier<PlacementAnswers> placementAnswers;

    ClientRouting(ReplicaRoutes routes, Supplier<ShardMap> shardMap, GroupLoop[] loops,
            Supplier<PlacementAnswers> placementAnswers) {
        this.routes = routes;
        this.shardMap = shardMap;
        this.loops = loops;
        this.placementAnswers = placementAnswers;
    }

    /** Decodes the command once ({@link RoutedCommand}) and hands it, with what was decoded, to its key's group. */
    void route(ClientFrame.Command command, Consumer<ClientFrame.Response> answer) {
        Consumer<ClientFrame.Response> respond = LeaderHints.byNode(routes, answer);
        RoutedCommand routed;
        int group;
        try {
            routed = RoutedCommand.of(command.payload());
            group = shardMap.get().groupFor(routed.routingKey());
        } catch (RuntimeException e) {
            respond.accept(new ClientFrame.Response(command.requestId(), -1,
                    ClientReply.Status.REJECTED.ordinal(), 0, -1,
                    String.valueOf(e.getMessage()).getBytes(StandardCharsets.UTF_8)));
            return;
        }
        if (group < 0 || group >= loops.length) {
            respond.accept(new ClientFrame.Response(command.requestId(), group,
                    ClientFrame.STATUS_NO_GROUP, 0, -1, new byte[0]));
            return;
        }
        PlacementAnswers answers = placementAnswers.get();
        ClientFrame.Response notHosted = answers == null ? null : answers.refusal(command, group);
        if (notHosted != null) {
            answer.accept(notHosted); // its hint is a node already
            return;
        }
        loops[group].onClientCommand(PlacementAnswers.withoutRoutedFlag(command), routed, respond::accept);
    }

    /** A watch poll goes to this node's replica of the session group (answered there if it leads). */
    void routeWatchPoll(ClientFrame.WatchPoll poll, Consumer<ClientFrame.Response> answer) {
        Consumer<ClientFrame.Response> respond = LeaderHints.byNode(routes, answer);
        int group = shardMap.get().groupFor(new byte[0]);
        if (group < 0 || group >= loops.length || loops[group] == null) {
            respond.accept(new ClientFrame.Response(poll.requestId(), group, ClientFrame.STATUS_NO_GROUP,
                    0, -1, new byte[0]));
            return;
        }
        loops[group].onWatchPoll(poll, respond::accept);
    }

    /** A STALE read goes to this node's replica of the key's group, leader or not (it reads local state). */
    void routeStaleRead(ClientFrame.StaleRead read, Consumer<ClientFrame.Response> answer) {
        Consumer<ClientFrame.Response> respond = LeaderHints.byNode(routes, answer);
        RoutedCommand routed = null;
        int group;
        try {
            routed = RoutedCommand.of(read.payload());
            group = shardMap.get().groupFor(routed.routingKey());
        } catch (RuntimeException e) {
            group = -1;
        }
        if (group < 0 || group >= loops.length) {
            respond.accept(new ClientFrame.Response(read.requestId(), group, group < 0
                    ? ClientReply.Status.REJECTED.ordinal() : ClientFrame.STATUS_NO_GROUP,
                    0, -1, (group < 0 ? "malformed read" : "").getBytes(StandardCharsets.UTF_8)));
            return;
        }
        loops[group].onStaleRead(read, routed, respond::accept);
    }

    /** An admin coding change goes to this node's replica of its group (proposed there if it leads). */
    void codingChange(ClientFrame.CodingChange change, Consumer<ClientFrame.Response> respond) {
        if (change.group() < 0 || change.group() >= loops.length || loops[change.group()] == null) {
            String missing = "group " + change.group() + " does not exist (the cluster has " + loops.length + ")";
            respond.accept(new ClientFrame.Response(change.requestId(), change.group(),
                    ClientReply.Status.REJECTED.ordinal(), 0, -1,
                    missing.getBytes(StandardCharsets.UTF_8)));
            return;
        }
        loops[change.group()].onCodingChange(change, LeaderHints.byNode(routes, respond)::accept);
    }
}
