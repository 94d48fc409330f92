package io.synod.server.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.synod.server.security.CertIdentity;
import io.synod.server.wire.WireFrame;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.IntBinaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The peer-to-peer network of one server: it listens on the peer port and keeps one outbound
 * connection to every other server, each reconnecting with exponential backoff. Outbound bytes per
 * connection are bounded by a write-buffer high-water mark: when a peer does not drain, further
 * messages to it are dropped (and counted) rather than queued without bound; Paxos retransmits
 * what matters. An inbound connection must first say {@link WireFrame.Hello} with a known node id
 * and this cluster's name, within the hello timeout, and every message on it must come from that
 * node to this one; otherwise it is closed with the reason logged (rate-limited). With TLS both ends
 * present certificates of the cluster CA, and the node id a certificate names must be the id the
 * connection claims: an outbound link checks the server it reached, an inbound one the {@code Hello}
 * ({@link io.synod.server.security.CertIdentity}). One inbound connection per peer id: a newer one
 * from the same (authenticated) peer replaces the older, which is closed, so a peer that reconnects
 * after a network fault is not locked out by its own half-dead connection. Peer messages are posted to a
 * link's {@link PeerOutbox} and leave at a {@link #flush} (the group workers flush after every pass), every
 * group's messages to one peer in one {@link WireFrame.PeerBatch} frame; a received batch must hold only
 * messages from the connection's node to this one, or the whole of it is refused.
 *
 * <p>The peer set grows while the node runs ({@link #addPeer}: a node joined the cluster; docs/membership.md, "Adding a
 * node"), and which node holds a replica id is the {@linkplain #locateReplicas locator}'s answer (the group's replica
 * map), not a rule over the node count. A message for an id the locator does not know yet (a map update not seen
 * here yet) is dropped and counted, never a reason to close a connection; Paxos retransmits.
 */
public final class PeerNetwork implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PeerNetwork.class);
    private static final RateLimitedLog REFUSALS = new RateLimitedLog(LOG);

    public static final long MIN_BACKOFF_MILLIS = 50;
    public static final long MAX_BACKOFF_MILLIS = 2_000;

    private final int self;
    private final String cluster;
    /** Every node's peer address, this one's included; grows by {@link #addPeer}. */
    private final Map<Integer, InetSocketAddress> peers;
    /** (group, replica id) to the node that holds it, -1 if unknown. */
    private volatile IntBinaryOperator locator;
    private final int maxFrameBytes;
    private final int outboundHighWaterBytes;
    private final Consumer<WireFrame.PeerMessage> inbound;
    /** Forwarded client requests and their replies, with the (authenticated) node they came from; null: refused. */
    private volatile BiConsumer<Integer, WireFrame> forwarded;
    private final ConnectionPolicy policy;
    private final Map<Integer, Channel> inboundByPeer = new ConcurrentHashMap<>();
    private final EventLoopGroup boss = NettyTransport.eventLoops(1, "synod-peer-boss");
    private final EventLoopGroup io;
    private final Map<Integer, Link> links = new ConcurrentSkipListMap<>();
    private final AtomicLong droppedFrames = new AtomicLong();
    private final PeerBatchEncoder batches;
    private volatile boolean closed;
    private volatile boolean started;
    private Channel serverChannel;

    /** Per-peer counters, read by metrics. */
    public static final class LinkStats {
        public final AtomicLong bytesSent = new AtomicLong();
        public final AtomicLong framesDropped = new AtomicLong();
        /** Frames written to the link (a batch is one): with {@link #messagesSent}, how well the groups batch. */
        public final AtomicLong framesSent = new AtomicLong();
        /** Peer messages written to the link, in batches or alone. */
        public final AtomicLong messagesSent = new AtomicLong();
        /** Flushes of the link (each one write to the socket and, with TLS, as few records as its bytes need). */
        public final AtomicLong flushes = new AtomicLong();
        /** Connections made at once, not after the backoff, because the peer connected to this node ({@link Link#peerIsUp}). */
        public final AtomicLong earlyReconnects = new AtomicLong();
        /** Outbound connection attempts, failed or not. */
        public final AtomicLong connectAttempts = new AtomicLong();
    }

    private final class Link {
        final int peer;
        final InetSocketAddress address;
        final LinkStats stats = new LinkStats();
        volatile long delayNanos;
        volatile Channel channel;
        long backoffMillis = MIN_BACKOFF_MILLIS;
        /** The scheduled reconnection while the link is down, else null or done. */
        final AtomicReference<ScheduledFuture<?>> pendingRetry = new AtomicReference<>();
        /** Peer messages posted by any thread, written batched by one event-loop task per flush. */
        final PeerOutbox outbox;

        Link(int peer, InetSocketAddress address) {
            this.peer = peer;
            this.address = address;
            this.outbox = new PeerOutbox(peer, batches, stats, droppedFrames, () -> channel);
        }

        void connect() {
            if (closed) {
                return;
            }
            stats.connectAttempts.incrementAndGet();
            Bootstrap b = new Bootstrap().group(io).channel(NettyTransport.socketChannel())
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2_000)
                    .option(ChannelOption.WRITE_BUFFER_WATER_MARK,
                            new WriteBufferWaterMark(outboundHighWaterBytes / 2, outboundHighWaterBytes))
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (policy.tls() != null) {
                                ch.pipeline().addLast(policy.tls().clientHandler(ch.alloc()));
                            }
                            long delay = delayNanos;
                            if (delay > 0) {
                                ch.pipeline().addLast(new PeerDelayHandler(delay, outboundHighWaterBytes));
                            }
                            ch.pipeline().addLast(new FrameEncoder(maxFrameBytes, stats.bytesSent), new ChannelInboundHandlerAdapter() {
                                @Override
                                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                    // A failed handshake or a reset: the close retries the link with backoff.
                                    REFUSALS.warn("closing the link to peer {}: {}", peer, cause.toString());
                                    ctx.close();
                                }
                            });
                        }
                    });
            b.connect(address).addListener((ChannelFuture f) -> {
                if (!f.isSuccess()) {
                    retryLater();
                    return;
                }
                Channel ch = f.channel();
                ch.closeFuture().addListener(c -> {
                    channel = null;
                    retryLater();
                });
                SslHandler ssl = ConnectionPolicy.sslOf(ch);
                if (ssl == null) {
                    established(ch);
                    return;
                }
                ssl.handshakeFuture().addListener(h -> {
                    if (!h.isSuccess()) {
                        REFUSALS.warn("TLS handshake with peer {} failed: {}", peer, h.cause().toString());
                        ch.close();
                        return;
                    }
                    String wrong = CertIdentity.of(ssl.engine().getSession().getPeerCertificates()).notNode(peer, cluster);
                    if (wrong != null) {
                        REFUSALS.warn("closing the link to peer {}: {}", peer, wrong);
                        ch.close();
                        return;
                    }
                    established(ch);
                });
            });
        }

        /** The link is up (and, with TLS, the server proved to be {@code peer}): say Hello, then send. */
        private void established(Channel ch) {
            backoffMillis = MIN_BACKOFF_MILLIS;
            ch.writeAndFlush(new WireFrame.Hello(self, cluster));
            channel = ch;
        }

        void retryLater() {
            if (closed) {
                return;
            }
            long delay = backoffMillis;
            backoffMillis = Math.min(MAX_BACKOFF_MILLIS, backoffMillis * 2);
            pendingRetry.set(io.schedule(this::connect, delay, TimeUnit.MILLISECONDS));
        }

        /**
         * The peer just connected to this node, so it is up: a link waiting out its backoff connects now. A restarted
         * node (a wiped one re-joining) is otherwise reached up to {@link #MAX_BACKOFF_MILLIS} after it listens, and
         * its catch-up waits for that. Only the caller that cancels the pending retry connects, so never twice.
         */
        void peerIsUp() {
            ScheduledFuture<?> pending = pendingRetry.getAndSet(null);
            if (channel == null && pending != null && pending.cancel(false)) {
                stats.earlyReconnects.incrementAndGet();
                backoffMillis = MIN_BACKOFF_MILLIS;
                connect();
            }
        }

        void send(WireFrame frame) {
            Channel ch = channel;
            if (ch == null || !ch.isActive() || !ch.isWritable()) {
                stats.framesDropped.incrementAndGet();
                droppedFrames.incrementAndGet();
                return;
            }
            ch.writeAndFlush(frame).addListener(f -> {
                if (!f.isSuccess()) {
                    stats.framesDropped.incrementAndGet();
                }
            });
        }
    }

    /** Insecure, with default limits: for tests of the peer protocol. */
    public PeerNetwork(int self, String cluster, Map<Integer, InetSocketAddress> peers, int maxFrameBytes,
            int outboundHighWaterBytes, int ioThreads, Consumer<WireFrame.PeerMessage> inbound) {
        this(self, cluster, peers, maxFrameBytes, outboundHighWaterBytes, ioThreads, inbound,
                ConnectionPolicy.insecureDefaults(maxFrameBytes));
    }

    public PeerNetwork(int self, String cluster, Map<Integer, InetSocketAddress> peers, int maxFrameBytes,
            int outboundHighWaterBytes, int ioThreads, Consumer<WireFrame.PeerMessage> inbound, ConnectionPolicy policy) {
        this.policy = policy;
        this.self = self;
        this.cluster = cluster;
        this.peers = new ConcurrentHashMap<>(peers);
        int nodes = peers.size();
        this.locator = (group, replica) -> nodeOf(replica, nodes);
        this.maxFrameBytes = maxFrameBytes;
        this.outboundHighWaterBytes = outboundHighWaterBytes;
        this.inbound = inbound;
        this.io = NettyTransport.eventLoops(ioThreads, "synod-peer-io");
        this.batches = new PeerBatchEncoder(maxFrameBytes);
        for (Map.Entry<Integer, InetSocketAddress> e : this.peers.entrySet()) {
            if (e.getKey() != self) {
                links.put(e.getKey(), new Link(e.getKey(), e.getValue()));
            }
        }
    }

    /**
     * Benchmark/test option: every frame to {@code peer} waits {@code delayMillis} before it is sent
     * ({@link PeerDelayHandler}; config {@code peer.delay.ms}). Applies to connections made after the call,
     * so call it before {@link #start}.
     */
    public void setOutboundDelayMillis(int peer, long delayMillis) {
        Link link = links.get(peer);
        if (link == null) {
            throw new IllegalArgumentException("no peer " + peer);
        }
        if (delayMillis < 0) {
            throw new IllegalArgumentException("delay to peer " + peer + " must be >= 0 ms, got " + delayMillis);
        }
        link.delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMillis);
    }

    /**
     * Which node holds replica id r of group g ({@code locator.applyAsInt(g, r)}, -1: not known): the group's replica
     * map on a server. Without it, node {@code r mod N} of the N peers given at construction. Call before {@link #start}.
     */
    public void locateReplicas(IntBinaryOperator locator) {
        this.locator = locator;
    }

    /**
     * Adds node {@code peer} at {@code address} (a node that joined the cluster) and, once started, connects to it; an
     * inbound connection from it is accepted from now on. Thread-safe.
     *
     * @return false if the peer is known at that address already
     * @throws IllegalArgumentException if the peer is known at another address
     */
    public synchronized boolean addPeer(int peer, InetSocketAddress address) {
        InetSocketAddress known = peers.get(peer);
        if (known != null) {
            if (!known.equals(address)) {
                throw new IllegalArgumentException("node " + peer + " is at " + known + ", not " + address);
            }
            return false;
        }
        Link link = new Link(peer, address);
        links.put(peer, link);
        peers.put(peer, address);
        if (started) {
            link.connect();
        }
        LOG.info("node {}: peer {} added at {}", self, peer, address);
        return true;
    }

    /**
     * Where forwarded client requests and their replies ({@link WireFrame.ForwardRequest},
     * {@link WireFrame.ForwardReply}) go, with the node that sent them. Call before {@link #start}; without it a
     * peer connection that carries one is closed like any other unexpected frame.
     */
    public void onForwarded(BiConsumer<Integer, WireFrame> handler) {
        this.forwarded = handler;
    }

    /** Binds the peer port (the address of {@code self} in the peer map) and starts connecting. */
    public InetSocketAddress start(InetSocketAddress bindAddress) throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap().group(boss, io).channel(NettyTransport.serverChannel())
                // A restarted node binds the port its previous run left connections in TIME_WAIT on; the epoll
                // transport, unlike the JDK's, does not set SO_REUSEADDR by itself.
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        policy.acceptTls(ch);
                        ch.pipeline().addLast(policy.decoder(maxFrameBytes), new PeerInboundHandler(self, cluster,
                                peers.keySet(), inbound, forwarded, inboundByPeer, policy.limits().helloTimeoutMillis(),
                                locator).onHello(PeerNetwork.this::peerIsUp));
                    }
                });
        serverChannel = b.bind(bindAddress).sync().channel();
        LOG.info("node {}: peer port {} on {}", self, serverChannel.localAddress(), NettyTransport.epoll() ? "epoll" : "NIO");
        synchronized (this) {
            started = true;
            for (Link link : links.values()) {
                link.connect();
            }
        }
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /**
     * Sends a message to the node of its receiver now: {@link #post} and {@link #flush} in one. Thread-safe.
     * Replica id r of a group lives on node r mod N (ids beyond the node ids belong to later incarnations of the
     * same node; docs/membership.md, "Replica ids beyond node ids").
     */
    public void send(WireFrame.PeerMessage frame) {
        Link link = linkTo(frame);
        if (link != null) {
            link.outbox.post(frame);
            link.outbox.flush();
        }
    }

    /**
     * Queues a message for the node of its receiver until the next {@link #flush} (any thread's); drops it (counted)
     * when the link is down or full. The group workers post what their groups send during a pass and flush once at
     * its end, so the messages of every group bound for one peer leave in one frame, one write and one flush
     * instead of one each. Thread-safe.
     */
    public void post(WireFrame.PeerMessage frame) {
        Link link = linkTo(frame);
        if (link != null) {
            link.outbox.post(frame);
        }
    }

    /** Sends everything posted so far, to every peer: per link one event-loop task, batched frames, one flush. */
    public void flush() {
        for (Link link : links.values()) {
            link.outbox.flush();
        }
    }

    /** The link to the node of the frame's receiver, or null (the frame dropped, counted) if there is none yet. */
    private Link linkTo(WireFrame.PeerMessage frame) {
        Link link = links.get(locator.applyAsInt(frame.group(), frame.message().to()));
        if (link == null) {
            droppedFrames.incrementAndGet();
        }
        return link;
    }

    /** The node that holds replica id {@code replica} in a cluster of {@code nodes} nodes (ids 0..nodes-1). */
    public static int nodeOf(int replica, int nodes) {
        return Math.floorMod(replica, nodes);
    }

    /** Sends a forwarded request or reply to {@code peer}; dropped (counted) like a peer message when it cannot go. */
    public void sendForwarded(int peer, WireFrame frame) {
        Link link = links.get(peer);
        if (link == null) {
            throw new IllegalArgumentException("no peer " + peer);
        }
        link.send(frame);
    }

    /** {@code peer} said Hello on an inbound connection: see {@link Link#peerIsUp}. */
    private void peerIsUp(int peer) {
        Link link = links.get(peer);
        if (link != null) {
            link.peerIsUp();
        }
    }

    /** Whether the outbound connection to {@code peer} is up (and, with TLS, proved to be that node) and not full. */
    public boolean connected(int peer) {
        Link link = links.get(peer);
        Channel ch = link == null ? null : link.channel;
        return ch != null && ch.isActive() && ch.isWritable();
    }

    public LinkStats stats(int peer) {
        Link link = links.get(peer);
        return link == null ? null : link.stats;
    }

    public Iterable<Integer> peerIds() {
        return links.keySet();
    }

    public long droppedFrames() {
        return droppedFrames.get();
    }

    @Override
    public void close() {
        closed = true;
        if (serverChannel != null) {
            serverChannel.close().awaitUninterruptibly();
        }
        for (Link link : links.values()) {
            Channel ch = link.channel;
            if (ch != null) {
                ch.close().awaitUninterruptibly();
            }
        }
        io.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
