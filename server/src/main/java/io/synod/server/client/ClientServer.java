package io.synod.server.client;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.timeout.ReadTimeoutException;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.synod.server.auth.ClientAccess;
import io.synod.client.codec.ClientFrameDecoder;
import io.synod.client.codec.ClientFrameEncoder;
import io.synod.protocol.ClientFrame;
import io.synod.server.security.CertIdentity;
import io.synod.server.transport.ConnectionPolicy;
import io.synod.server.transport.NettyTransport;
import io.synod.server.transport.PartialFrameGate;
import io.synod.server.transport.RateLimitedLog;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client port: {@link ClientFrame.Command} in, {@link ClientFrame.Response} out, and
 * {@link ClientFrame.StatusQuery}, framed by the same decoder/encoder pair as the SDK's
 * ({@link ClientFrameDecoder}, {@link ClientFrameEncoder}). Each connection may have a bounded number of commands in flight;
 * past it, and whenever its outbound buffer is above the high-water mark, the server stops reading
 * from that connection (TCP backpressure) until it drains. The port is guarded by its
 * {@link ConnectionPolicy}: connection caps ({@link ConnectionLimiter}), TLS with a required client
 * certificate, an idle timeout, and the client frame limit with the node's partial-frame budget
 * ({@link PartialFrameGate}).
 */
public final class ClientServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClientServer.class);
    private static final RateLimitedLog REFUSALS = new RateLimitedLog(LOG);

    /** Routes a command to its group and answers status queries. */
    public interface Handler {
        void onCommand(ClientFrame.Command command, Consumer<ClientFrame.Response> respond);

        ClientFrame.StatusReport status(long requestId);

        /**
         * A command from a client whose certificate named {@code who} (authorized and stamped already): the identity a
         * forwarded copy carries, so the node that serves it checks the same rights (default: as without it).
         */
        default void onCommand(CertIdentity who, ClientFrame.Command command, Consumer<ClientFrame.Response> respond) {
            onCommand(command, respond);
        }

        /** Answers a read from this node's local replica of the key's group (consistency STALE). */
        default void onStaleRead(ClientFrame.StaleRead read, Consumer<ClientFrame.Response> respond) {
            respond.accept(new ClientFrame.Response(read.requestId(), -1, ClientFrame.STATUS_NO_GROUP, 0,
                    -1, new byte[0]));
        }

        /** Holds a watch poll at the session group's leader until events arrive or its wait ends. */
        default void onWatchPoll(ClientFrame.WatchPoll poll, Consumer<ClientFrame.Response> respond) {
            respond.accept(new ClientFrame.Response(poll.requestId(), -1, ClientFrame.STATUS_NO_GROUP, 0,
                    -1, new byte[0]));
        }

        /** An admin coding change for a group, proposed by this node's replica of it if it leads. */
        default void onCodingChange(ClientFrame.CodingChange change, Consumer<ClientFrame.Response> respond) {
            respond.accept(new ClientFrame.Response(change.requestId(), change.group(),
                    ClientFrame.STATUS_NO_GROUP, 0, -1, new byte[0]));
        }

        /** An admin membership request for a group, answered by this node's replica of it if it leads. */
        default void onMembership(ClientFrame.MembershipRequest request, Consumer<ClientFrame.Response> respond) {
            respond.accept(new ClientFrame.Response(request.requestId(), request.group(),
                    ClientFrame.STATUS_NO_GROUP, 0, -1, new byte[0]));
        }

        /** Who may make which request on this port (default: everyone everything, as in insecure mode). */
        default ClientAccess access() {
            return ClientAccess.ALLOW_ALL;
        }

        /** The shard map this node routes by, in {@code ShardMap} encoding (empty if it has none). */
        default byte[] shardMap() {
            return new byte[0];
        }

        /** The placement this node routes by (default: none recorded, every node hosts every group). */
        default ClientFrame.PlacementReport placement(ClientFrame.PlacementQuery query) {
            return new ClientFrame.PlacementReport(query.requestId(), -1, 0, 0, List.of());
        }
    }

    private final int maxFrameBytes;
    private final int maxInFlightPerConnection;
    private final Handler handler;
    private final ConnectionPolicy policy;
    private final ConnectionLimiter limiter;
    private final EventLoopGroup boss = NettyTransport.eventLoops(1, "synod-client-boss");
    private final EventLoopGroup io;
    private Channel serverChannel;

    /**
     * {@code maxFrameBytes} bounds the responses sent; frames received are bounded by the policy's
     * client frame limit.
     */
    public ClientServer(int maxFrameBytes, int maxInFlightPerConnection, int ioThreads, Handler handler,
            ConnectionPolicy policy) {
        this.policy = policy;
        this.limiter = new ConnectionLimiter(policy.limits().clientMaxConnections(),
                policy.limits().clientMaxConnectionsPerAddress());
        this.maxFrameBytes = maxFrameBytes;
        this.maxInFlightPerConnection = maxInFlightPerConnection;
        this.handler = handler;
        this.io = NettyTransport.eventLoops(ioThreads, "synod-client-io");
    }

    public InetSocketAddress start(InetSocketAddress bind) throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap().group(boss, io).channel(NettyTransport.serverChannel())
                // A restarted node binds the port its previous run left connections in TIME_WAIT on; the epoll
                // transport, unlike the JDK's, does not set SO_REUSEADDR by itself.
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(1 << 20, 4 << 20))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(limiter);
                        policy.acceptTls(ch);
                        int idle = policy.limits().clientIdleTimeoutMillis();
                        if (idle > 0) {
                            ch.pipeline().addLast(new ReadTimeoutHandler(idle, TimeUnit.MILLISECONDS));
                        }
                        ch.pipeline().addLast(new ClientFrameDecoder(policy.limits().clientMaxFrameBytes(),
                                        new PartialFrameGate(policy.budget(), policy.limits().frameTimeoutMillis())),
                                new ClientFrameEncoder(maxFrameBytes), new ClientInboundHandler(handler, maxInFlightPerConnection));
                    }
                });
        serverChannel = b.bind(bind).sync().channel();
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** The client port's connection caps, for metrics and tests. */
    public ConnectionLimiter limiter() {
        return limiter;
    }

    @Override
    public void close() {
        if (serverChannel != null) {
            serverChannel.close().awaitUninterruptibly();
        }
        io.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /**
     * Per-connection handler: routes commands, bounds what is in flight, pauses reading when full.
     * Responses arrive from group threads, usually many at once (every command a Ready applied):
     * they are queued and written by one event-loop task with one flush, instead of one task, one
     * flush (a write syscall) and one read-resume task each.
     */
    public static final class ClientInboundHandler extends SimpleChannelInboundHandler<ClientFrame> {
        private final Handler handler;
        private final int maxInFlight;
        private final AtomicInteger inFlight = new AtomicInteger();
        private final Queue<ClientFrame.Response> responses = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean drainScheduled = new AtomicBoolean();
        private CertIdentity identity;

        public ClientInboundHandler(Handler handler, int maxInFlight) {
            this.handler = handler;
            this.maxInFlight = maxInFlight;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ClientFrame received) {
            Channel ch = ctx.channel();
            if (identity == null) {
                identity = ClientAccess.identityOf(ConnectionPolicy.sslOf(ch)); // The handshake is over: frames follow it.
            }
            ClientFrame.Response refused = handler.access().refusal(identity, received);
            if (refused != null) {
                ch.writeAndFlush(refused);
                return;
            }
            ClientFrame frame = handler.access().stamped(identity, received);
            if (frame instanceof ClientFrame.Command || frame instanceof ClientFrame.StaleRead
                    || frame instanceof ClientFrame.WatchPoll || frame instanceof ClientFrame.CodingChange
                    || frame instanceof ClientFrame.MembershipRequest) {
                if (inFlight.incrementAndGet() >= maxInFlight) {
                    ch.config().setAutoRead(false);
                }
                Consumer<ClientFrame.Response> respond = response -> {
                    responses.add(response);
                    if (drainScheduled.compareAndSet(false, true)) {
                        try {
                            ch.eventLoop().execute(() -> writeResponses(ch));
                        } catch (RejectedExecutionException e) {
                            // The server is closing (its event loops are gone): the answer is lost with the
                            // connection, as if it had closed; the group loop answering it must not fail.
                        }
                    }
                };
                if (frame instanceof ClientFrame.Command c) {
                    handler.onCommand(identity, c, respond);
                } else if (frame instanceof ClientFrame.WatchPoll w) {
                    handler.onWatchPoll(w, respond);
                } else if (frame instanceof ClientFrame.CodingChange c) {
                    handler.onCodingChange(c, respond);
                } else if (frame instanceof ClientFrame.MembershipRequest m) {
                    handler.onMembership(m, respond);
                } else {
                    handler.onStaleRead((ClientFrame.StaleRead) frame, respond);
                }
            } else if (frame instanceof ClientFrame.StatusQuery q) {
                ch.writeAndFlush(handler.access().visibleStatus(identity, handler.status(q.requestId())));
            } else if (frame instanceof ClientFrame.ShardMapQuery q) {
                ch.writeAndFlush(new ClientFrame.ShardMapReport(q.requestId(), handler.shardMap()));
            } else if (frame instanceof ClientFrame.PlacementQuery q) {
                ch.writeAndFlush(handler.placement(q));
            } else {
                LOG.warn("closing client connection from {}: unexpected {}", ch.remoteAddress(),
                        frame.getClass().getSimpleName());
                ctx.close();
            }
        }

        /** On the event loop: writes every queued response, one flush, and resumes reading below the bound. */
        private void writeResponses(Channel ch) {
            drainScheduled.set(false); // Before polling: a response queued from now on schedules another drain.
            int written = 0;
            ClientFrame.Response response;
            while ((response = responses.poll()) != null) {
                ch.write(response, ch.voidPromise());
                written++;
            }
            if (written == 0) {
                return;
            }
            ch.flush();
            if (inFlight.addAndGet(-written) < maxInFlight && ch.isWritable() && !ch.config().isAutoRead()) {
                ch.config().setAutoRead(true);
            }
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            Channel ch = ctx.channel();
            ch.config().setAutoRead(ch.isWritable() && inFlight.get() < maxInFlight);
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            REFUSALS.warn("closing client connection from {}: {}", ctx.channel().remoteAddress(),
                    cause instanceof ReadTimeoutException ? "idle longer than client.idle.timeout.ms"
                            : cause instanceof CorruptedFrameException ? cause.getMessage() : cause.toString());
            ctx.close();
        }
    }
}
