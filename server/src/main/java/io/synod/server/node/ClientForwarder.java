package io.synod.server.node;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.server.auth.ClientAccess;
import io.synod.server.security.CertIdentity;
import io.synod.server.transport.PeerNetwork;
import io.synod.server.wire.WireFrame;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Server-side forwarding of client commands to a group's leader, for a client that cannot reach that
 * leader while this server can (a client cut from one server; a bridge partition). A server that does
 * not lead a command's group answers NOT_LEADER naming the leader; when the command carries
 * {@link ClientFrame#FLAG_FORWARD} (the client sets it once the leader it was sent to did not answer)
 * and this server's peer connection to that leader is up, it sends the command there instead
 * ({@link WireFrame.ForwardRequest}) and relays the answer, as a follower proxies to its leader in etcd.
 *
 * <p>Rules: one hop: the leader routes a forwarded command without this class, and without the flag,
 * so it is never forwarded again (if it no longer leads, its NOT_LEADER goes back to the client). At
 * most {@link #MAX_IN_FLIGHT_PER_PEER} forwards per peer are outstanding in each direction; beyond that
 * the command is answered BUSY. A forward not answered within the timeout (the leader died, the link
 * broke, the frame was dropped) is answered UNKNOWN: it may have reached the leader's log, and the
 * client retries with the same (client id, sequence), so it applies at most once and is never reported
 * failed when it was not. The serving node checks the client's rights itself, with the identity the
 * client's certificate named at the forwarding server ({@link ClientAccess#refusal}, then
 * {@link ClientAccess#stamped}); that identity is taken only from a peer connection, which with TLS
 * proved a node certificate of this cluster ({@link PeerNetwork}), so forwarding gives a client no right
 * it did not have.
 */
final class ClientForwarder {
    /** Forwards outstanding per peer and direction; more are answered BUSY. */
    static final int MAX_IN_FLIGHT_PER_PEER = 1024;
    /**
     * A forward not answered this long is answered UNKNOWN: longer than a commit takes under load, shorter than the
     * SDK's default attempt timeout (5 s), so a client hears about a lost forward before it gives up on this server.
     */
    static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private record Pending(int peer, long requestId, long deadlineNanos, Consumer<ClientFrame.Response> respond) {}

    private final int self;
    private final PeerNetwork network;
    private final Supplier<ClientAccess> access;
    private final BiConsumer<ClientFrame.Command, Consumer<ClientFrame.Response>> route;
    private final LongSupplier clock;
    private final long timeoutNanos;
    private final AtomicLong nextId = new AtomicLong();
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final Map<Integer, AtomicInteger> sentTo = new ConcurrentHashMap<>();
    private final Map<Integer, AtomicInteger> servingFor = new ConcurrentHashMap<>();
    private final AtomicLong forwarded = new AtomicLong();
    private final AtomicLong timedOut = new AtomicLong();

    /**
     * {@code access}: this node's client authorization now (null before the client port is up);
     * {@code route}: hands a command to its group on this node, as for a client connected here. Takes the
     * forwarded frames of {@code network} (call before it starts).
     */
    ClientForwarder(int self, PeerNetwork network, Supplier<ClientAccess> access,
            BiConsumer<ClientFrame.Command, Consumer<ClientFrame.Response>> route, LongSupplier clock, long timeoutNanos) {
        this.self = self;
        this.network = network;
        this.access = access;
        this.route = route;
        this.clock = clock;
        this.timeoutNanos = timeoutNanos;
        network.onForwarded(this::onFrame);
    }

    /** As above, with counters {@code synod.client.forwarded} and {@code synod.client.forward.timeouts} in {@code registry}. */
    ClientForwarder(int self, PeerNetwork network, Supplier<ClientAccess> access,
            BiConsumer<ClientFrame.Command, Consumer<ClientFrame.Response>> route, LongSupplier clock, long timeoutNanos,
            MeterRegistry registry) {
        this(self, network, access, route, clock, timeoutNanos);
        FunctionCounter.builder("synod.client.forwarded", this, ClientForwarder::forwarded).register(registry);
        FunctionCounter.builder("synod.client.forward.timeouts", this, ClientForwarder::timedOut).register(registry);
    }

    /**
     * The responder for {@code command} from a client named {@code who}: {@code respond} itself, unless the command
     * may be forwarded; then one that forwards a NOT_LEADER answer naming a connected leader instead of passing it on.
     */
    Consumer<ClientFrame.Response> relay(CertIdentity who, ClientFrame.Command command, Consumer<ClientFrame.Response> respond) {
        if ((command.flags() & ClientFrame.FLAG_FORWARD) == 0) {
            return respond;
        }
        return response -> {
            if (!forward(who, command, response, respond)) {
                respond.accept(response);
            }
        };
    }

    private boolean forward(CertIdentity who, ClientFrame.Command command, ClientFrame.Response response,
            Consumer<ClientFrame.Response> respond) {
        int leader = response.leaderHint();
        if (response.status() != ClientReply.Status.NOT_LEADER.ordinal() || leader < 0 || leader == self
                || !network.connected(leader)) {
            return false;
        }
        AtomicInteger outstanding = sentTo.computeIfAbsent(leader, p -> new AtomicInteger());
        if (outstanding.incrementAndGet() > MAX_IN_FLIGHT_PER_PEER) {
            outstanding.decrementAndGet();
            respond.accept(status(command.requestId(), response.group(), ClientReply.Status.BUSY, leader));
            return true;
        }
        long id = nextId.incrementAndGet();
        pending.put(id, new Pending(leader, command.requestId(), clock.getAsLong() + timeoutNanos, respond));
        forwarded.incrementAndGet();
        network.sendForwarded(leader, new WireFrame.ForwardRequest(id, who.role(), who.name(), who.cluster(),
                command.clientId(), command.sequence(), command.payload(),
                command.flags() & ~(ClientFrame.FLAG_FORWARD | ClientFrame.FLAG_ROUTED)));
        return true;
    }

    /** A forwarded request or reply from peer {@code from} (the peer network's handler; any thread). */
    void onFrame(int from, WireFrame frame) {
        if (frame instanceof WireFrame.ForwardRequest request) {
            serve(from, request);
        } else if (frame instanceof WireFrame.ForwardReply reply) {
            Pending p = pending.get(reply.forwardId());
            if (p == null || p.peer() != from || !pending.remove(reply.forwardId(), p)) {
                return; // Late (already answered UNKNOWN), or not from the node it was sent to.
            }
            sentTo.get(from).decrementAndGet();
            p.respond().accept(new ClientFrame.Response(p.requestId(), reply.group(), reply.status(), reply.slot(),
                    reply.leaderHint(), reply.result(), reply.served()));
        }
    }

    /** Serves a command peer {@code from} forwarded: the client's rights checked here, routed here, never forwarded on. */
    private void serve(int from, WireFrame.ForwardRequest request) {
        Consumer<ClientFrame.Response> reply = r -> network.sendForwarded(from, new WireFrame.ForwardReply(request.forwardId(),
                r.group(), r.status(), r.slot(), r.leaderHint(), r.result(), r.served()));
        ClientAccess rights = access.get();
        AtomicInteger serving = servingFor.computeIfAbsent(from, p -> new AtomicInteger());
        if (rights == null || serving.incrementAndGet() > MAX_IN_FLIGHT_PER_PEER) {
            if (rights != null) {
                serving.decrementAndGet();
            }
            reply.accept(status(request.forwardId(), -1, ClientReply.Status.BUSY, -1));
            return;
        }
        CertIdentity who = new CertIdentity(request.role(), request.user(), request.cluster());
        ClientFrame.Command command = new ClientFrame.Command(request.forwardId(), request.clientId(), request.sequence(),
                request.payload(), request.flags() & ~ClientFrame.FLAG_FORWARD);
        ClientFrame.Response refused = rights.refusal(who, command);
        if (refused != null) {
            serving.decrementAndGet();
            reply.accept(refused);
            return;
        }
        route.accept((ClientFrame.Command) rights.stamped(who, command), r -> {
            serving.decrementAndGet();
            reply.accept(r);
        });
    }

    /** Answers UNKNOWN every forward older than the timeout (called periodically). */
    void expire() {
        long now = clock.getAsLong();
        for (Map.Entry<Long, Pending> e : pending.entrySet()) {
            Pending p = e.getValue();
            if (now - p.deadlineNanos() >= 0 && pending.remove(e.getKey(), p)) {
                sentTo.get(p.peer()).decrementAndGet();
                timedOut.incrementAndGet();
                p.respond().accept(status(p.requestId(), -1, ClientReply.Status.UNKNOWN, p.peer()));
            }
        }
    }

    /** Commands forwarded by this node so far, and those of them answered UNKNOWN after the timeout. */
    long forwarded() {
        return forwarded.get();
    }

    long timedOut() {
        return timedOut.get();
    }

    private static ClientFrame.Response status(long requestId, int group, ClientReply.Status status, int leaderHint) {
        return new ClientFrame.Response(requestId, group, status.ordinal(), 0, leaderHint, new byte[0]);
    }
}
