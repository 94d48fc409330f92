package io.synod.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientFrameCodec;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;

/**
 * One {@link ClientEngine} connection to a server: length-prefixed frame writes, frames queued until
 * the channel is active, and the request ids sent through it. Touched only on the engine's event loop.
 */
final class ServerConnection {
    /** The channel attribute pointing back at its connection. */
    static final AttributeKey<ServerConnection> KEY = AttributeKey.valueOf("synod");

    final InetSocketAddress address;
    Channel channel;
    boolean active;
    boolean lost;
    final ArrayDeque<byte[]> queued = new ArrayDeque<>();
    final Set<Long> requests = new HashSet<>();

    ServerConnection(InetSocketAddress address) {
        this.address = address;
    }

    void send(long requestId, ClientFrame frame) {
        requests.add(requestId);
        byte[] body = ClientFrameCodec.encode(frame);
        if (active) {
            write(body);
        } else {
            queued.add(body);
        }
    }

    void write(byte[] body) {
        ByteBuf buf = channel.alloc().buffer(4 + body.length);
        buf.writeInt(body.length).writeBytes(body);
        channel.writeAndFlush(buf, channel.voidPromise());
    }
}
