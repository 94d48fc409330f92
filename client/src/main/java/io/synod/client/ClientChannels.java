package io.synod.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.synod.client.codec.ClientFrameDecoder;
import io.synod.client.codec.ClientFrameEncoder;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The Netty side of {@link ClientEngine}: its single event loop thread and the pipeline of every
 * connection (TLS if configured, the client protocol's frame decoder and encoder, decoded frames handed to the engine).
 */
final class ClientChannels {
    private final EventLoopGroup group;
    private final EventLoop loop;
    private final Bootstrap bootstrap;

    /** {@code tls}: the client side of TLS for every connection, or null for servers running with insecure=true. */
    ClientChannels(int maxFrameBytes, SslContext tls, ClientEngine engine) {
        this.group = new NioEventLoopGroup(1, new DefaultThreadFactory("synod-client", true));
        this.loop = group.next();
        this.bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 3_000)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                        }
                        ch.pipeline().addLast(new FlushConsolidationHandler(256, true),
                                new ClientFrameDecoder(maxFrameBytes), new ClientFrameEncoder(maxFrameBytes),
                                new InboundHandler(engine));
                    }
                });
    }

    EventLoop loop() {
        return loop;
    }

    /** Connects {@code conn}; its queued frames go out once connected; {@code lost} hears a failed connect or a close. */
    void connect(ServerConnection conn, BiConsumer<ServerConnection, String> lost) {
        InetSocketAddress address = conn.address;
        conn.onLost = lost;
        ChannelFuture f = bootstrap.connect(address);
        conn.channel = f.channel();
        conn.channel.attr(ServerConnection.KEY).set(conn);
        f.addListener(done -> {
            if (!done.isSuccess()) {
                lost.accept(conn, "cannot connect to " + address + ": " + done.cause().getMessage());
                return;
            }
            conn.active = true;
            while (!conn.queued.isEmpty()) {
                conn.write(conn.queued.poll());
            }
            conn.channel.closeFuture().addListener(x -> lost.accept(conn, "connection to " + address + " closed"));
        });
    }

    void shutdown() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
