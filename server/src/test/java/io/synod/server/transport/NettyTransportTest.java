package io.synod.server.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollSocketChannel;
import org.junit.jupiter.api.Test;

/** The server ports run on native epoll where Netty ships its library (Linux x86-64, the project's CI and bench). */
class NettyTransportTest {
    @Test
    void linuxX8664UsesEpoll() {
        assumeTrue(System.getProperty("os.name").startsWith("Linux") && System.getProperty("os.arch").equals("amd64"),
                "epoll's native library is for Linux x86-64 here");
        assumeTrue(System.getProperty("synod.transport") == null, "NIO forced by -Dsynod.transport");
        assertTrue(NettyTransport.epoll(), "epoll not available: " + Epoll.unavailabilityCause());
        assertTrue(NettyTransport.socketChannel() == EpollSocketChannel.class);
    }
}
