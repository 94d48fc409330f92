package io.synod.server.node;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.synod.coordination.Placement;
import io.synod.coordination.Versioned;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntUnaryOperator;

/**
 * The client port's side of routing by the placement (docs/membership.md, "Routing by the placement"): it answers a
 * {@link ClientFrame.PlacementQuery} with the placement this node knows, and a command for a group this node does not
 * host (a spare or removed replica, which knows no leader and holds none of the group's state) at once, without
 * handing it to the group: {@link ClientFrame#STATUS_NOT_HOSTED} with the placement's version to a client that routes
 * by the placement ({@link ClientFrame#FLAG_ROUTED}), NOT_LEADER to any other (an older SDK follows it as before). Both
 * name the group's leader as the election knows it. Every such request is counted
 * ({@code synod_client_requests_not_hosted_total}): an SDK that routes by the placement sends none once it knows it.
 */
final class PlacementAnswers {
    private final int self;
    private final Placements placements;
    /** The node the election names as {@code group}'s leader, or -1. */
    private final IntUnaryOperator leaderOf;
    private final AtomicLong notHosted = new AtomicLong();

    PlacementAnswers(int self, Placements placements, IntUnaryOperator leaderOf, MeterRegistry registry) {
        this.self = self;
        this.placements = placements;
        this.leaderOf = leaderOf;
        FunctionCounter.builder("synod.client.requests.not.hosted", notHosted, AtomicLong::get)
                .description("client commands and stale reads that reached a node not hosting their group")
                .register(registry);
    }

    /**
     * The answer to a placement query: every group's hosts and the removed nodes as bit sets of node ids, and of the
     * features the query names, those this node has (admin requests routed, {@link #refusal(ClientFrame.MembershipRequest)}).
     */
    ClientFrame.PlacementReport report(ClientFrame.PlacementQuery query) {
        Versioned<Placement> v = placements.versioned();
        Placement p = v.value();
        List<Long> hosts = new ArrayList<>(p.groups());
        for (List<Integer> nodes : p.current()) {
            long bits = 0;
            for (int n : nodes) {
                bits |= 1L << n;
            }
            hosts.add(bits);
        }
        long removed = 0;
        for (int n : p.removed()) {
            removed |= 1L << n;
        }
        return new ClientFrame.PlacementReport(query.requestId(), v.version(), p.nodes(), removed, hosts,
                query.features() & ClientFrame.FEATURE_ROUTED_ADMIN);
    }

    /** Whether this node hosts {@code group} now (a group the placement does not cover counts as hosted). */
    boolean hosts(int group) {
        Placement p = placements.current();
        return group < 0 || group >= p.groups() || p.hosts(group, self);
    }

    /**
     * The answer to {@code command} for {@code group} if this node does not host the group and does not lead it
     * (counted), or null if the group's replica answers. The leader hint is a node id already.
     */
    ClientFrame.Response refusal(ClientFrame.Command command, int group) {
        if (!refuses(group)) {
            return null;
        }
        notHosted.incrementAndGet();
        if ((command.flags() & ClientFrame.FLAG_ROUTED) != 0) {
            return notHosted(command.requestId(), group);
        }
        return new ClientFrame.Response(command.requestId(), group, ClientReply.Status.NOT_LEADER.ordinal(), 0,
                leaderOf.applyAsInt(group), new byte[0]);
    }

    /**
     * The answer to an admin membership request carrying {@link ClientFrame#FLAG_ROUTED} for a group this node neither
     * hosts nor leads (NOT_HOSTED, as for a command), or null if the group's replica answers it. Not counted: the count
     * is of client commands and reads. Without the flag (an older SDK) the spare's replica answers, as before.
     */
    ClientFrame.Response refusal(ClientFrame.MembershipRequest request) {
        return (request.flags() & ClientFrame.FLAG_ROUTED) != 0 && refuses(request.group())
                ? notHosted(request.requestId(), request.group()) : null;
    }

    /** Whether a request for {@code group} is refused here: this node does not host it and does not lead it. */
    private boolean refuses(int group) {
        // A replica being moved away leads until its removal: it still serves.
        return !hosts(group) && leaderOf.applyAsInt(group) != self;
    }

    /** STATUS_NOT_HOSTED with this node's placement version and the election's leader as the hint. */
    private ClientFrame.Response notHosted(long requestId, int group) {
        byte[] version = ByteBuffer.allocate(Long.BYTES).putLong(placements.versioned().version()).array();
        return new ClientFrame.Response(requestId, group, ClientFrame.STATUS_NOT_HOSTED, 0, leaderOf.applyAsInt(group),
                version);
    }

    /**
     * {@code respond}, counting a client's stale read answered for a group this node does not host (from its spare's
     * state, which holds none of the group's keys).
     */
    Consumer<ClientFrame.Response> countingStaleReads(Consumer<ClientFrame.Response> respond) {
        return r -> {
            if (r.group() >= 0 && !hosts(r.group())) {
                notHosted.incrementAndGet();
            }
            respond.accept(r);
        };
    }

    /** Client requests that reached this node for a group it does not host, since it started. */
    long notHosted() {
        return notHosted.get();
    }

    /** {@code command} without the routing flag, which only the receiving node reads. */
    static ClientFrame.Command withoutRoutedFlag(ClientFrame.Command command) {
        return (command.flags() & ClientFrame.FLAG_ROUTED) == 0 ? command : new ClientFrame.Command(command.requestId(),
                command.clientId(), command.sequence(), command.payload(), command.flags() & ~ClientFrame.FLAG_ROUTED);
    }
}
