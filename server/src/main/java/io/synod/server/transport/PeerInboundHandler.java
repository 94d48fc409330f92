package io.synod.server.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.ssl.SslHandler;
import io.synod.server.security.CertIdentity;
import io.synod.server.wire.WireFrame;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.IntBinaryOperator;
import java.util.function.IntConsumer;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Inbound side of a peer connection: Hello first (known node, same cluster), then only peer
 * messages from that node to this one. Anything else closes the connection with a logged reason.
 */
public final class PeerInboundHandler extends SimpleChannelInboundHandler<WireFrame> {
    private static final Logger LOG = LoggerFactory.getLogger(PeerInboundHandler.class);
    private static final RateLimitedLog REFUSALS = new RateLimitedLog(LOG);

    private final int self;
    private final String cluster;
    private final Set<Integer> known;
    private final Consumer<WireFrame.PeerMessage> inbound;
    private final BiConsumer<Integer, WireFrame> forwarded;
    private final Map<Integer, Channel> inboundByPeer;
    private final long helloTimeoutMillis;
    /** (group, replica id) to its node, -1 if not known (yet). */
    private final IntBinaryOperator locator;
    private int remote = -1;
    /** Told the node id of each accepted Hello (the node's outbound link to it may reconnect at once). */
    private IntConsumer helloAccepted = peer -> { };

    /** Without a hello timeout, alone in its registry of inbound connections: for tests of the protocol. */
    public PeerInboundHandler(int self, String cluster, Set<Integer> known, Consumer<WireFrame.PeerMessage> inbound) {
        this(self, cluster, known, inbound, null, new ConcurrentHashMap<>(), 0);
    }

    /** As above, also taking forwarded client requests and replies (with the node that sent them). */
    public PeerInboundHandler(int self, String cluster, Set<Integer> known, Consumer<WireFrame.PeerMessage> inbound,
            BiConsumer<Integer, WireFrame> forwarded) {
        this(self, cluster, known, inbound, forwarded, new ConcurrentHashMap<>(), 0);
    }

    /**
     * {@code inboundByPeer}: the node's one inbound connection per peer id; {@code helloTimeoutMillis}:
     * a connection that has not said Hello this long after it opened is closed (0: never).
     */
    public PeerInboundHandler(int self, String cluster, Set<Integer> known, Consumer<WireFrame.PeerMessage> inbound,
            Map<Integer, Channel> inboundByPeer, long helloTimeoutMillis) {
        this(self, cluster, known, inbound, null, inboundByPeer, helloTimeoutMillis);
    }

    /** {@code forwarded}: where forwarded client requests and replies go (null: they close the connection). */
    public PeerInboundHandler(int self, String cluster, Set<Integer> known, Consumer<WireFrame.PeerMessage> inbound,
            BiConsumer<Integer, WireFrame> forwarded, Map<Integer, Channel> inboundByPeer, long helloTimeoutMillis) {
        this(self, cluster, known, inbound, forwarded, inboundByPeer, helloTimeoutMillis, moduloOf(self, known));
    }

    /**
     * {@code known}: the node ids accepted (a live view: a node added later is accepted from then on);
     * {@code locator}: which node holds a replica id of a group.
     */
    public PeerInboundHandler(int self, String cluster, Set<Integer> known, Consumer<WireFrame.PeerMessage> inbound,
            BiConsumer<Integer, WireFrame> forwarded, Map<Integer, Channel> inboundByPeer, long helloTimeoutMillis,
            IntBinaryOperator locator) {
        this.self = self;
        this.forwarded = forwarded;
        this.cluster = cluster;
        this.known = known;
        this.inbound = inbound;
        this.inboundByPeer = inboundByPeer;
        this.helloTimeoutMillis = helloTimeoutMillis;
        this.locator = locator;
    }

    /** Replica id r on node r mod N, N the node ids 0..max of {@code known} and {@code self}. */
    private static IntBinaryOperator moduloOf(int self, Set<Integer> known) {
        int nodes = Math.max(self, known.stream().mapToInt(Integer::intValue).max().orElse(self)) + 1;
        return (group, replica) -> PeerNetwork.nodeOf(replica, nodes);
    }

    /** Calls {@code accepted} with the node id of each Hello this handler accepts; returns this handler. */
    public PeerInboundHandler onHello(IntConsumer accepted) {
        this.helloAccepted = accepted;
        return this;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (helloTimeoutMillis > 0) {
            ctx.executor().schedule(() -> {
                if (remote < 0 && ctx.channel().isActive()) {
                    close(ctx, "no Hello within " + helloTimeoutMillis + " ms");
                }
            }, helloTimeoutMillis, TimeUnit.MILLISECONDS);
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (remote >= 0) {
            inboundByPeer.remove(remote, ctx.channel());
        }
        ctx.fireChannelInactive();
    }

    /** Why the TLS certificate of this connection does not name node {@code claimed}, or null (also when insecure). */
    private String certificateMismatch(ChannelHandlerContext ctx, int claimed) {
        SslHandler ssl = ConnectionPolicy.sslOf(ctx.channel());
        if (ssl == null) {
            return null;
        }
        try {
            return CertIdentity.of(ssl.engine().getSession().getPeerCertificates()).notNode(claimed, cluster);
        } catch (SSLPeerUnverifiedException e) {
            return "no verified client certificate";
        }
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, WireFrame frame) {
        if (remote < 0) {
            if (!(frame instanceof WireFrame.Hello h)) {
                close(ctx, "first frame is " + frame.getClass().getSimpleName() + ", not Hello");
            } else if (!cluster.equals(h.cluster())) {
                close(ctx, "peer is in cluster '" + h.cluster() + "', this server in '" + cluster + "'");
            } else if (h.nodeId() == self || !known.contains(h.nodeId())) {
                close(ctx, "hello from unknown node " + h.nodeId());
            } else {
                String wrong = certificateMismatch(ctx, h.nodeId());
                if (wrong != null) {
                    close(ctx, "hello claims node " + h.nodeId() + ": " + wrong);
                    return;
                }
                remote = h.nodeId();
                helloAccepted.accept(remote);
                if (ctx.pipeline().get(SslHandler.class) == null) {
                    // Insecure: the Hello proves nothing, so it must not close the live link of the node it
                    // names (a forged Hello would cut the leader off a follower); both connections stay.
                    inboundByPeer.putIfAbsent(remote, ctx.channel());
                    return;
                }
                Channel older = inboundByPeer.put(remote, ctx.channel());
                if (older != null && older != ctx.channel()) {
                    LOG.info("node {} connected again from {}: closing its older connection from {}", remote,
                            ctx.channel().remoteAddress(), older.remoteAddress());
                    older.close();
                }
            }
            return;
        }
        if ((frame instanceof WireFrame.ForwardRequest || frame instanceof WireFrame.ForwardReply) && forwarded != null) {
            forwarded.accept(remote, frame); // From the node this connection proved (with TLS, by its node certificate).
            return;
        }
        if (frame instanceof WireFrame.PeerBatch b) {
            for (WireFrame.PeerMessage p : b.messages()) {
                if (misaddressed(ctx, p)) {
                    return; // Nothing of a batch with a forged message is taken.
                }
            }
            for (WireFrame.PeerMessage p : b.messages()) {
                if (located(p)) {
                    inbound.accept(p);
                }
            }
            return;
        }
        if (!(frame instanceof WireFrame.PeerMessage p)) {
            close(ctx, "unexpected " + frame.getClass().getSimpleName() + " on a peer connection");
            return;
        }
        if (!misaddressed(ctx, p) && located(p)) {
            inbound.accept(p);
        }
    }

    /** Whether the locator knows both ids of {@code p} (else it is dropped: this node has not seen their map yet). */
    private boolean located(WireFrame.PeerMessage p) {
        return locator.applyAsInt(p.group(), p.message().from()) >= 0 && locator.applyAsInt(p.group(), p.message().to()) >= 0;
    }

    /**
     * Whether {@code p} is not from the node this connection proved to be, to this one (then closes it). An id the
     * locator does not know is no proof of forgery (the sender's map may be newer than this node's).
     */
    private boolean misaddressed(ChannelHandlerContext ctx, WireFrame.PeerMessage p) {
        int from = locator.applyAsInt(p.group(), p.message().from());
        int to = locator.applyAsInt(p.group(), p.message().to());
        if (from >= 0 && from != remote || to >= 0 && to != self) {
            close(ctx, "message from " + p.message().from() + " to " + p.message().to() + " on the connection of node "
                    + remote);
            return true;
        }
        return false;
    }

    private void close(ChannelHandlerContext ctx, String reason) {
        REFUSALS.warn("closing peer connection from {}: {}", ctx.channel().remoteAddress(), reason);
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        close(ctx, cause.toString());
    }
}
