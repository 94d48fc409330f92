package io.synod.server.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.Properties;

/**
 * What one node lets the network cost it (docs/security.md, "Limits"): connection caps on the client
 * port, time bounds for the TLS handshake, the peer {@code Hello}, a started frame and an idle client,
 * a node-wide budget of bytes held for partially received frames, the client frame limit (the largest
 * command plus overhead, below the peer limit {@code max.frame.bytes}), and the metrics listen address.
 */
public record NetworkLimits(
        String metricsAddress,
        int clientMaxConnections,
        int clientMaxConnectionsPerAddress,
        int clientMaxFrameBytes,
        int clientIdleTimeoutMillis,
        int handshakeTimeoutMillis,
        int helloTimeoutMillis,
        int frameTimeoutMillis,
        long frameBudgetBytes) {

    /** The largest command (1 MiB, the replica's default maxCommandBytes) plus 64 KiB of frame overhead. */
    public static final int DEFAULT_CLIENT_MAX_FRAME = (1 << 20) + (64 << 10);

    static void addKeys(Map<String, String[]> k) {
        k.put("metrics.address", new String[] {"127.0.0.1", "address the metrics HTTP endpoint listens on"});
        k.put("client.max.connections", new String[] {"4096", "client-port connections at once; more are refused"});
        k.put("client.max.connections.per.address", new String[] {"1024",
                "client-port connections at once from one remote IP address; more are refused"});
        k.put("client.max.frame.bytes", new String[] {Integer.toString(DEFAULT_CLIENT_MAX_FRAME),
                "largest frame accepted from a client (the largest command plus overhead)"});
        k.put("client.idle.timeout.ms", new String[] {"600000", "a client connection that sends nothing this long is "
                + "closed (0: never)"});
        k.put("tls.handshake.timeout.ms", new String[] {"10000", "a TLS handshake not finished in this time is closed"});
        k.put("peer.hello.timeout.ms", new String[] {"10000", "an inbound peer connection must say Hello within this"});
        k.put("frame.timeout.ms", new String[] {"30000", "a frame whose first byte arrived must be complete within this"});
        k.put("frame.budget.bytes", new String[] {"134217728", "node-wide bytes reserved for partially received frames "
                + "(peer and client); a connection whose frame does not fit is closed"});
    }

    /** The limits set in {@code p} (defaults for keys not set), for peer frames of up to {@code peerMaxFrame}. */
    public static NetworkLimits parse(Properties p, int peerMaxFrame) throws ConfigException {
        String metrics = p.getProperty("metrics.address", "127.0.0.1").trim();
        try {
            InetAddress.getByName(metrics);
        } catch (UnknownHostException | RuntimeException e) {
            throw new ConfigException("metrics.address: '" + metrics + "' is not a host or address");
        }
        int clientFrame = ServerConfig.integer(p, "client.max.frame.bytes", 4096, peerMaxFrame);
        long budget = ServerConfig.integer(p, "frame.budget.bytes", 4096, Integer.MAX_VALUE);
        if (budget < peerMaxFrame) {
            throw new ConfigException("frame.budget.bytes (" + budget + ") must be at least max.frame.bytes (" + peerMaxFrame
                    + "), or a single largest frame could never be received");
        }
        return new NetworkLimits(metrics, ServerConfig.integer(p, "client.max.connections", 1, 1_000_000),
                ServerConfig.integer(p, "client.max.connections.per.address", 1, 1_000_000), clientFrame,
                ServerConfig.integer(p, "client.idle.timeout.ms", 0, Integer.MAX_VALUE),
                ServerConfig.integer(p, "tls.handshake.timeout.ms", 100, 600_000),
                ServerConfig.integer(p, "peer.hello.timeout.ms", 100, 600_000),
                ServerConfig.integer(p, "frame.timeout.ms", 100, 3_600_000), budget);
    }

    String toProperties() {
        return "metrics.address=" + metricsAddress + "\nclient.max.connections=" + clientMaxConnections
                + "\nclient.max.connections.per.address=" + clientMaxConnectionsPerAddress + "\nclient.max.frame.bytes="
                + clientMaxFrameBytes + "\nclient.idle.timeout.ms=" + clientIdleTimeoutMillis + "\ntls.handshake.timeout.ms="
                + handshakeTimeoutMillis + "\npeer.hello.timeout.ms=" + helloTimeoutMillis + "\nframe.timeout.ms="
                + frameTimeoutMillis + "\nframe.budget.bytes=" + frameBudgetBytes + "\n";
    }
}
