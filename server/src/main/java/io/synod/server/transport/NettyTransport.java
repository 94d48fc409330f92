package io.synod.server.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/**
 * The server's socket transport: Netty's native epoll on Linux when its library loads (it comes with ZooKeeper's
 * dependencies), which reads and writes without the JDK selector's per-key bookkeeping and garbage, otherwise
 * the JDK's NIO. The peer and client ports take their event loops and channel classes from here, so both always
 * run on the same one. {@code -Dsynod.transport=nio} forces NIO (to compare the two, or to rule epoll out).
 */
public final class NettyTransport {
    private static final boolean EPOLL = !"nio".equals(System.getProperty("synod.transport")) && Epoll.isAvailable();

    private NettyTransport() {}

    /** Whether the native epoll transport is in use. */
    public static boolean epoll() {
        return EPOLL;
    }

    public static EventLoopGroup eventLoops(int threads) {
        return EPOLL ? new EpollEventLoopGroup(threads) : new NioEventLoopGroup(threads);
    }

    public static Class<? extends SocketChannel> socketChannel() {
        return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    public static Class<? extends ServerSocketChannel> serverChannel() {
        return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
