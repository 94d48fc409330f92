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
import io.netty.util.concurrent.DefaultThreadFactory;

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

    /**
     * {@code threads} event loops whose threads are named {@code role-<pool>-<n>}: the role first, as the kernel
     * keeps 15 characters of a thread's name and a profile by thread must tell peer links from client connections.
     */
    public static EventLoopGroup eventLoops(int threads, String role) {
        DefaultThreadFactory factory = new DefaultThreadFactory(role);
        return EPOLL ? new EpollEventLoopGroup(threads, factory) : new NioEventLoopGroup(threads, factory);
    }

    public static Class<? extends SocketChannel> socketChannel() {
        return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    public static Class<? extends ServerSocketChannel> serverChannel() {
        return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
