package io.synod.bench.netdelay;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A TCP proxy that forwards bytes to one target after an injected one-way delay per direction
 * (user-space stand-in for {@code tc netem}, which this kernel lacks; docs/lock-experiments.md).
 *
 * <p>How it works: each accepted connection gets one outbound connection to the target on the
 * <em>same</em> event loop, so both halves of a connection are touched by one thread only. Every chunk
 * read from one side is stamped with a release time {@code now + delay (+ jitter) (+ serialization at
 * the bandwidth cap)} and queued; a timer writes it to the other side when its time comes. Release
 * times are forced to be non-decreasing, so jitter never reorders bytes. The queue is bounded in bytes:
 * when it holds {@code maxQueuedBytesPerDirection} the proxy stops reading from the source
 * ({@code autoRead=false}), which lets TCP flow control push back on the sender, and resumes when the
 * queue has drained to half. It also stops draining while the destination socket is not writable, so
 * Netty's outbound buffer stays bounded by its write-buffer water marks.
 *
 * <p>Delays can be changed while connections are open ({@link #setDelays}); chunks already queued keep
 * the release time they were stamped with. Timer precision is Netty's scheduler (about a millisecond);
 * a chunk is never released early.
 */
public final class DelayProxy implements AutoCloseable {

    /** Default per-direction queue bound: large enough for ZooKeeper snapshots to stream, small enough to bound memory. */
    public static final int DEFAULT_MAX_QUEUED_BYTES_PER_DIRECTION = 4 * 1024 * 1024;

    private final String name;
    private final InetSocketAddress targetAddress;
    private final EventLoopGroup group;
    private final boolean ownsGroup;
    private final int maxQueuedBytesPerDirection;
    private final Channel serverChannel;
    private final ChannelGroup openChannels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final SplittableRandom seedSource;
    private final Supplier<ChannelHandler> toTargetRewriter;

    private volatile DelaySpec toTarget;
    private volatile DelaySpec fromTarget;

    private final AtomicLong bytesForwarded = new AtomicLong();
    private final AtomicLong connectionsAccepted = new AtomicLong();
    private final AtomicLong readPauses = new AtomicLong();
    private final AtomicLong maxQueuedBytesSeen = new AtomicLong();

    private DelayProxy(Builder builder) throws InterruptedException {
        this.name = builder.name;
        this.targetAddress = Objects.requireNonNull(builder.targetAddress, "targetAddress");
        this.toTarget = builder.toTarget;
        this.fromTarget = builder.fromTarget;
        this.maxQueuedBytesPerDirection = builder.maxQueuedBytesPerDirection;
        this.seedSource = new SplittableRandom(builder.seed);
        this.toTargetRewriter = builder.toTargetRewriter;
        if (builder.group != null) {
            this.group = builder.group;
            this.ownsGroup = false;
        } else {
            this.group = new NioEventLoopGroup(1);
            this.ownsGroup = true;
        }
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // Source reads start only once the target connection is up.
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel inbound) {
                        connectionsAccepted.incrementAndGet();
                        openChannels.add(inbound);
                        connectToTarget(inbound);
                    }
                });
        ChannelFuture bound = bootstrap.bind(builder.listenAddress).sync();
        this.serverChannel = bound.channel();
        openChannels.add(serverChannel);
    }

    public static Builder builder(InetSocketAddress targetAddress) {
        return new Builder(targetAddress);
    }

    /** The port this proxy listens on (useful when it was bound to port 0). */
    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    public InetSocketAddress listenAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    public InetSocketAddress targetAddress() {
        return targetAddress;
    }

    public String name() {
        return name;
    }

    /** Change the delays for chunks read from now on; queued chunks keep their release times. */
    public void setDelays(DelaySpec toTarget, DelaySpec fromTarget) {
        this.toTarget = Objects.requireNonNull(toTarget);
        this.fromTarget = Objects.requireNonNull(fromTarget);
    }

    public DelaySpec toTargetDelay() {
        return toTarget;
    }

    public DelaySpec fromTargetDelay() {
        return fromTarget;
    }

    /** Payload bytes delivered in either direction since start. */
    public long bytesForwarded() {
        return bytesForwarded.get();
    }

    public long connectionsAccepted() {
        return connectionsAccepted.get();
    }

    /** How many times a full queue made the proxy stop reading from a source (backpressure events). */
    public long readPauses() {
        return readPauses.get();
    }

    /** Largest number of bytes one direction's queue ever held. */
    public long maxQueuedBytesSeen() {
        return maxQueuedBytesSeen.get();
    }

    public int maxQueuedBytesPerDirection() {
        return maxQueuedBytesPerDirection;
    }

    private void connectToTarget(Channel inbound) {
        SplittableRandom random;
        synchronized (seedSource) {
            random = seedSource.split();
        }
        DelayLine upstream = new DelayLine(inbound, true, random.split());
        DelayLine downstream = new DelayLine(null, false, random.split());
        upstream.peer = downstream;
        downstream.peer = upstream;
        if (toTargetRewriter != null) {
            inbound.pipeline().addLast(toTargetRewriter.get());
        }
        inbound.pipeline().addLast(upstream);
        Bootstrap bootstrap = new Bootstrap()
                .group(inbound.eventLoop())
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(64 * 1024, 256 * 1024))
                .handler(downstream);
        ChannelFuture connect = bootstrap.connect(targetAddress);
        openChannels.add(connect.channel());
        downstream.source = connect.channel();
        connect.addListener((ChannelFutureListener) future -> {
            if (future.isSuccess()) {
                upstream.destination = future.channel();
                downstream.destination = inbound;
                // A direction's queued bytes are dropped only once its destination is gone: a closed
                // source still has its accepted bytes delivered after their delay.
                future.channel().closeFuture().addListener(closed -> upstream.discardQueue());
                inbound.closeFuture().addListener(closed -> downstream.discardQueue());
                inbound.config().setAutoRead(true);
                future.channel().config().setAutoRead(true);
            } else {
                inbound.close();
            }
        });
        inbound.config().setOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(64 * 1024, 256 * 1024));
    }

    /** One chunk waiting for its release time. */
    private record Pending(ByteBuf bytes, long releaseNanos) {
    }

    /**
     * One direction of one proxied connection: reads from {@code source}, queues, writes to
     * {@code destination}. Only ever touched from the connection's event loop.
     */
    private final class DelayLine extends ChannelInboundHandlerAdapter {
        private final boolean towardTarget;
        private final SplittableRandom random;
        private final ArrayDeque<Pending> queue = new ArrayDeque<>();
        private Channel source;
        private Channel destination;
        private DelayLine peer;
        private long queuedBytes;
        private long lastReleaseNanos;
        private long lastSerializationEndNanos;
        private ScheduledFuture<?> drainTimer;
        private boolean sourceClosed;
        private boolean readPaused;

        DelayLine(Channel source, boolean towardTarget, SplittableRandom random) {
            this.source = source;
            this.towardTarget = towardTarget;
            this.random = random;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof ByteBuf bytes)) {
                ReferenceCountUtil.release(msg);
                return;
            }
            int size = bytes.readableBytes();
            if (size == 0) {
                bytes.release();
                return;
            }
            DelaySpec spec = towardTarget ? toTarget : fromTarget;
            long now = System.nanoTime();
            // Bandwidth: the chunk occupies the link after the previous one has been serialized.
            long serializationStart = Math.max(now, lastSerializationEndNanos);
            long serializationEnd = serializationStart + spec.serializationNanos(size);
            lastSerializationEndNanos = serializationEnd;
            // Never release before an earlier chunk: jitter must not reorder a byte stream.
            long release = Math.max(serializationEnd + spec.sampleDelayNanos(random), lastReleaseNanos);
            lastReleaseNanos = release;
            queue.addLast(new Pending(bytes, release));
            queuedBytes += size;
            maxQueuedBytesSeen.accumulateAndGet(queuedBytes, Math::max);
            if (queuedBytes >= maxQueuedBytesPerDirection && !readPaused) {
                readPaused = true;
                readPauses.incrementAndGet();
                ctx.channel().config().setAutoRead(false);
            }
            scheduleDrain();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            // Our channel is the destination of the opposite direction: it can take more bytes now.
            if (ctx.channel().isWritable()) {
                peer.drain();
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            sourceClosed = true;
            // Bytes already accepted are still delivered after their delay, as a real link would.
            if (queue.isEmpty()) {
                closeDestinationWhenFlushed();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // A reset or I/O error on either side ends the proxied connection.
            ctx.close();
            if (destination != null) {
                destination.close();
            }
            discardQueue();
        }

        private void scheduleDrain() {
            if (drainTimer != null || queue.isEmpty() || destination == null) {
                return;
            }
            long waitNanos = queue.peekFirst().releaseNanos() - System.nanoTime();
            if (waitNanos <= 0) {
                drain();
            } else {
                drainTimer = source.eventLoop().schedule(this::onTimer, waitNanos, TimeUnit.NANOSECONDS);
            }
        }

        private void onTimer() {
            drainTimer = null;
            drain();
        }

        void drain() {
            if (destination == null) {
                return;
            }
            if (!destination.isActive()) {
                discardQueue();
                source.close();
                return;
            }
            long now = System.nanoTime();
            boolean wrote = false;
            while (!queue.isEmpty() && queue.peekFirst().releaseNanos() <= now && destination.isWritable()) {
                Pending pending = queue.pollFirst();
                int size = pending.bytes().readableBytes();
                queuedBytes -= size;
                bytesForwarded.addAndGet(size);
                destination.write(pending.bytes());
                wrote = true;
            }
            if (wrote) {
                destination.flush();
            }
            if (readPaused && queuedBytes <= maxQueuedBytesPerDirection / 2) {
                readPaused = false;
                source.config().setAutoRead(true);
            }
            if (queue.isEmpty()) {
                if (sourceClosed) {
                    closeDestinationWhenFlushed();
                }
                return;
            }
            // Not writable: channelWritabilityChanged on the destination calls drain() again.
            if (destination.isWritable()) {
                scheduleDrain();
            }
        }

        private void closeDestinationWhenFlushed() {
            if (destination != null && destination.isActive()) {
                destination.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            }
        }

        private void discardQueue() {
            if (drainTimer != null) {
                drainTimer.cancel(false);
                drainTimer = null;
            }
            while (!queue.isEmpty()) {
                queue.pollFirst().bytes().release();
            }
            queuedBytes = 0;
        }
    }

    @Override
    public void close() {
        openChannels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        if (ownsGroup) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    @Override
    public String toString() {
        return "DelayProxy[" + name + " " + listenAddress() + " -> " + targetAddress + ", to target: " + toTarget
                + ", from target: " + fromTarget + "]";
    }

    public static final class Builder {
        private final InetSocketAddress targetAddress;
        private InetSocketAddress listenAddress = new InetSocketAddress("127.0.0.1", 0);
        private DelaySpec toTarget = DelaySpec.NONE;
        private DelaySpec fromTarget = DelaySpec.NONE;
        private int maxQueuedBytesPerDirection = DEFAULT_MAX_QUEUED_BYTES_PER_DIRECTION;
        private EventLoopGroup group;
        private long seed = 1;
        private String name = "proxy";
        private Supplier<ChannelHandler> toTargetRewriter;

        private Builder(InetSocketAddress targetAddress) {
            this.targetAddress = targetAddress;
        }

        public Builder listenAddress(InetSocketAddress address) {
            this.listenAddress = address;
            return this;
        }

        public Builder delays(DelaySpec toTarget, DelaySpec fromTarget) {
            this.toTarget = Objects.requireNonNull(toTarget);
            this.fromTarget = Objects.requireNonNull(fromTarget);
            return this;
        }

        public Builder maxQueuedBytesPerDirection(int bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maxQueuedBytesPerDirection must be >= 1024, was " + bytes);
            }
            this.maxQueuedBytesPerDirection = bytes;
            return this;
        }

        /** Share an event loop group (the caller shuts it down); otherwise the proxy owns a one-thread group. */
        public Builder eventLoopGroup(EventLoopGroup group) {
            this.group = group;
            return this;
        }

        /** Seed of the jitter draws, so a run with jitter is repeatable. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /**
         * A protocol-aware handler (a new one per connection) that may rewrite bytes travelling toward the
         * target before they are delayed; it removes itself when done. Used by the ZooKeeper ensemble.
         */
        public Builder toTargetRewriter(Supplier<ChannelHandler> rewriter) {
            this.toTargetRewriter = rewriter;
            return this;
        }

        public DelayProxy start() throws InterruptedException {
            return new DelayProxy(this);
        }
    }
}
