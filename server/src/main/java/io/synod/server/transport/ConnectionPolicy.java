package io.synod.server.transport;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import io.synod.server.config.ConfigException;
import io.synod.server.config.NetworkLimits;
import io.synod.server.config.ServerConfig;
import io.synod.server.security.ServerTls;
import java.util.Properties;

/**
 * How a node's ports treat connections: TLS ({@code tls}, or null when the node runs with
 * {@code insecure=true}), the limits of the network configuration, and the node-wide budget for
 * partially received frames that the peer and client ports share.
 */
public record ConnectionPolicy(ServerTls tls, NetworkLimits limits, FrameBudget budget) {
    /** Insecure, with the default limits for peer frames of up to {@code maxFrameBytes}: for tests of the framing. */
    public static ConnectionPolicy insecureDefaults(int maxFrameBytes) {
        Properties p = new Properties();
        p.setProperty("frame.budget.bytes", Long.toString(Math.max(maxFrameBytes, 128L << 20)));
        p.setProperty("client.max.frame.bytes", Integer.toString(maxFrameBytes));
        try {
            NetworkLimits limits = NetworkLimits.parse(p, maxFrameBytes);
            return new ConnectionPolicy(null, limits, new FrameBudget(limits.frameBudgetBytes()));
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** The policy of a configuration, loading its TLS files (a node whose files do not load does not start). */
    public static ConnectionPolicy of(ServerConfig config) {
        ServerTls tls = config.tls().insecure() ? null
                : new ServerTls(config.tls().files(), config.limits().handshakeTimeoutMillis());
        return new ConnectionPolicy(tls, config.limits(), new FrameBudget(config.limits().frameBudgetBytes()));
    }

    /** A decoder bounded by this policy's budget and frame timeout. */
    public FrameDecoder decoder(int maxFrameBytes) {
        return new FrameDecoder(maxFrameBytes, budget, limits.frameTimeoutMillis());
    }

    /** Adds the server side of TLS first in an accepted channel's pipeline (nothing when insecure). */
    public void acceptTls(Channel ch) {
        if (tls != null) {
            ch.pipeline().addLast(tls.serverHandler(ch.alloc()));
        }
    }

    /** The TLS handler of a channel, or null on an insecure one. */
    public static SslHandler sslOf(Channel ch) {
        return ch.pipeline().get(SslHandler.class);
    }
}
