package io.synod.server.node;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;

/**
 * A real standalone ZooKeeper server in this JVM, started from ZooKeeper's own server classes
 * ({@link ZooKeeperServer} serving through a {@link ServerCnxnFactory}) the way ZooKeeper's
 * standalone main does, on 127.0.0.1 and a port the kernel picks. {@code synod demo} runs its
 * cluster on it; it replaces a test library's server so that none ships in the server jar.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    private static final String LOOPBACK = "127.0.0.1";
    /** Connections per client address: the demo opens one per node plus its clients. */
    private static final int MAX_CLIENT_CONNECTIONS = 100;
    /** The longest session the server grants: covers the demo's largest --session-timeout-ms. */
    private static final int MAX_SESSION_TIMEOUT_MS = 60_000;

    private final FileTxnSnapLog snapLog;
    private final ZooKeeperServer server;
    private final ServerCnxnFactory connections;

    private EmbeddedZooKeeper(FileTxnSnapLog snapLog, ZooKeeperServer server, ServerCnxnFactory connections) {
        this.snapLog = snapLog;
        this.server = server;
        this.connections = connections;
    }

    /**
     * Starts a server keeping its snapshots and transaction log under {@code dataDir}.
     *
     * @param tickMillis ZooKeeper's tick: sessions expire on tick boundaries, so a short tick makes
     *     the server notice a dead client's session promptly; the shortest session is two ticks
     */
    public static EmbeddedZooKeeper start(Path dataDir, int tickMillis) throws IOException, InterruptedException {
        Files.createDirectories(dataDir);
        FileTxnSnapLog snapLog = new FileTxnSnapLog(dataDir.toFile(), dataDir.toFile());
        ZooKeeperServer server = new ZooKeeperServer(snapLog, tickMillis, 2 * tickMillis, MAX_SESSION_TIMEOUT_MS, -1,
                null, "");
        ServerCnxnFactory connections;
        try {
            connections = ServerCnxnFactory.createFactory(
                    new InetSocketAddress(LOOPBACK, 0), MAX_CLIENT_CONNECTIONS);
        } catch (IOException e) {
            snapLog.close();
            throw e;
        }
        try {
            connections.startup(server);
        } catch (IOException | InterruptedException | RuntimeException e) {
            connections.shutdown();
            server.shutdown();
            snapLog.close();
            throw e;
        }
        return new EmbeddedZooKeeper(snapLog, server, connections);
    }

    /** The address clients connect to: 127.0.0.1 and the port the server is listening on. */
    public InetSocketAddress address() {
        return new InetSocketAddress(LOOPBACK, connections.getLocalPort());
    }

    /** Stops accepting connections, closes every session's connection, then stops the server. */
    @Override
    public void close() throws IOException {
        connections.shutdown();
        server.shutdown();
        snapLog.close();
    }
}
