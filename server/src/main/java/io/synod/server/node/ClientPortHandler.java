package io.synod.server.node;

import io.synod.coordination.ShardMap;
import io.synod.protocol.ClientFrame;
import io.synod.server.auth.AuthService;
import io.synod.server.auth.ClientAccess;
import io.synod.server.client.ClientServer;
import io.synod.server.security.CertIdentity;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * What this node does with each request of its client port: commands, STALE reads, watch polls and coding changes
 * go where {@link ClientRouting} sends them (a forwarded command keeps its client's identity, {@link ClientForwarder}),
 * membership requests to {@link MembershipRequests}, placement queries to {@link PlacementAnswers}; the client's
 * rights are those of this node's applied authorization table ({@link AuthService}).
 */
final class ClientPortHandler implements ClientServer.Handler {
    private final ClientRouting routing;
    private final ClientForwarder forwarder;
    private final AuthService authService;
    private final MembershipRequests membershipRequests;
    private final PlacementAnswers placementAnswers;
    /** The range -> group map as the ZooKeeper watch last set it. */
    private final Supplier<ShardMap> shardMap;
    private final LongFunction<ClientFrame.StatusReport> status;

    ClientPortHandler(ClientRouting routing, ClientForwarder forwarder, AuthService authService,
            MembershipRequests membershipRequests, PlacementAnswers placementAnswers, Supplier<ShardMap> shardMap,
            LongFunction<ClientFrame.StatusReport> status) {
        this.routing = routing;
        this.forwarder = forwarder;
        this.authService = authService;
        this.membershipRequests = membershipRequests;
        this.placementAnswers = placementAnswers;
        this.shardMap = shardMap;
        this.status = status;
    }

    @Override
    public ClientAccess access() {
        return authService.access();
    }

    @Override
    public void onCommand(ClientFrame.Command command, Consumer<ClientFrame.Response> respond) {
        routing.route(command, respond);
    }

    @Override
    public void onCommand(CertIdentity who, ClientFrame.Command command, Consumer<ClientFrame.Response> respond) {
        routing.route(command, forwarder.relay(who, command, respond));
    }

    @Override
    public ClientFrame.StatusReport status(long requestId) {
        return status.apply(requestId);
    }

    @Override
    public void onStaleRead(ClientFrame.StaleRead read, Consumer<ClientFrame.Response> respond) {
        routing.routeStaleRead(read, placementAnswers.countingStaleReads(respond)); // a client's, not the node's own
    }

    @Override
    public void onWatchPoll(ClientFrame.WatchPoll poll, Consumer<ClientFrame.Response> respond) {
        routing.routeWatchPoll(poll, respond);
    }

    @Override
    public void onCodingChange(ClientFrame.CodingChange change, Consumer<ClientFrame.Response> respond) {
        routing.codingChange(change, respond);
    }

    @Override
    public void onMembership(ClientFrame.MembershipRequest request, Consumer<ClientFrame.Response> respond) {
        membershipRequests.handle(request, respond);
    }

    @Override
    public byte[] shardMap() {
        return shardMap.get().encode();
    }

    @Override
    public ClientFrame.PlacementReport placement(ClientFrame.PlacementQuery query) {
        return placementAnswers.report(query);
    }
}
