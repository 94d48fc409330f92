package io.synod.client;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.synod.protocol.ClientFrame;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * One {@link ClientEngine} connection to a server: frames (encoded by the channel's
 * {@code ClientFrameEncoder}) queued until the channel is active, and the request ids sent through it. Touched only on the engine's event loop.
 */
final class ServerConnection {
    /** The channel attribute pointing back at its connection. */
    static final AttributeKey<ServerConnection> KEY = AttributeKey.valueOf("synod");

    final InetSocketAddress address;
    Channel channel;
    boolean active;
    boolean lost;
    /** The node a connection of its own for one placement query asks ({@link PlacementProbe}), else -1. */
    int probeNode = -1;
    /** The features its placement query named ({@link ClientFrame.PlacementQuery#features}). */
    int probeFeatures;
    /** Told when the connection fails or closes (set by {@link ClientChannels#connect}). */
    BiConsumer<ServerConnection, String> onLost;
    final ArrayDeque<ClientFrame> queued = new ArrayDeque<>();
    final Set<Long> requests = new HashSet<>();

    ServerConnection(InetSocketAddress address) {
        this.address = address;
    }

    void send(long requestId, ClientFrame frame) {
        requests.add(requestId);
        if (active) {
            write(frame);
        } else {
            queued.add(frame);
        }
    }

    void write(ClientFrame frame) {
        channel.writeAndFlush(frame, channel.voidPromise());
    }
}
