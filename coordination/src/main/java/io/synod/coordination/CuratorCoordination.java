package io.synod.coordination;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * One Synod node's connection to ZooKeeper (one session) and the coordination services on it.
 * Create one per node with {@link #connect}; close it last (it closes what it created).
 */
public final class CuratorCoordination implements Closeable {

    private final CuratorFramework client;
    private final ClusterPaths paths;
    private final CoordinationOptions options;
    private final ZooKeeperAccess access;
    private final List<Closeable> created = new ArrayList<>();
    private CuratorClusterMetadata metadata;
    private CuratorMembership membership;

    private CuratorCoordination(CuratorFramework client, ClusterPaths paths, CoordinationOptions options,
            ZooKeeperAccess access) {
        this.client = client;
        this.paths = paths;
        this.options = options;
        this.access = access;
    }

    /** {@link #connect(String, String, CoordinationOptions, ZooKeeperAccess)} without an identity or TLS: for readers. */
    public static CuratorCoordination connect(String connectString, String cluster, CoordinationOptions options) {
        return connect(connectString, cluster, options, ZooKeeperAccess.open());
    }

    /**
     * Start a Curator client on {@code connectString} and wait until it is connected.
     *
     * @param connectString ZooKeeper ensemble, "host:port[,host:port...]"
     * @param cluster       the Synod cluster name (one znode segment, see {@link ClusterPaths#validClusterName})
     * @param access        the session's identity (znodes it creates get {@link ClusterAcls}) and client properties
     * @throws IllegalArgumentException if the cluster name or connect string is malformed
     * @throws CoordinationException    if ZooKeeper is not reachable within the connection timeout
     */
    public static CuratorCoordination connect(String connectString, String cluster, CoordinationOptions options,
            ZooKeeperAccess access) {
        ClusterPaths paths = new ClusterPaths(cluster);
        validConnectString(connectString);
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(Math.toIntExact(options.sessionTimeout().toMillis()))
                .connectionTimeoutMs(Math.toIntExact(options.connectionTimeout().toMillis()))
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                // Leaders step down on LOST or after a bounded SUSPENDED, enforced by the election service.
                .connectionStateErrorPolicy(new SessionConnectionStateErrorPolicy());
        if (!access.clientProperties().isEmpty()) {
            builder.zkClientConfig(clientConfig(access));
        }
        if (access.authenticated()) {
            // Sent again by Curator on every new session, so a reconnected node keeps its identity.
            builder.authorization("digest", access.authData()).aclProvider(new ClusterAcls(access));
        }
        CuratorFramework client = builder.build();
        client.start();
        boolean up;
        try {
            up = client.blockUntilConnected(Math.toIntExact(options.connectionTimeout().toMillis()), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            client.close();
            throw new CoordinationException("interrupted while connecting to ZooKeeper at " + connectString, e);
        }
        if (!up) {
            client.close();
            throw new CoordinationException("cannot reach ZooKeeper at " + connectString + " within "
                    + options.connectionTimeout().toMillis() + " ms" + (access.clientProperties().isEmpty() ? ""
                    : " (with " + access + ")"));
        }
        return new CuratorCoordination(client, paths, options, access);
    }

    /**
     * This session's own ZooKeeper client configuration: the defaults, then {@code access}'s properties, so
     * that TLS to ZooKeeper is set per session and JVM system properties are not touched.
     */
    private static ZKClientConfig clientConfig(ZooKeeperAccess access) {
        ZKClientConfig config = new ZKClientConfig();
        access.clientProperties().forEach(config::setProperty);
        return config;
    }

    /**
     * Checks a ZooKeeper connect string: {@code host:port[,host:port...][/chroot]}, ports 1..65535.
     *
     * @throws IllegalArgumentException naming the bad part
     */
    public static String validConnectString(String connectString) {
        if (connectString == null || connectString.isBlank()) {
            throw new IllegalArgumentException("ZooKeeper connect string must not be empty");
        }
        int chroot = connectString.indexOf('/');
        String hosts = chroot < 0 ? connectString : connectString.substring(0, chroot);
        for (String server : hosts.split(",", -1)) {
            int colon = server.lastIndexOf(':');
            String port = colon < 0 ? "" : server.substring(colon + 1);
            boolean ok = colon > 0 && !port.isEmpty() && port.length() <= 5 && port.chars().allMatch(Character::isDigit)
                    && Integer.parseInt(port) >= 1 && Integer.parseInt(port) <= 65535;
            if (!ok) {
                throw new IllegalArgumentException("ZooKeeper connect string '" + connectString + "': '" + server
                        + "' is not host:port (port 1..65535)");
            }
        }
        return connectString;
    }

    public CuratorFramework curator() {
        return client;
    }

    public ClusterPaths paths() {
        return paths;
    }

    public CoordinationOptions options() {
        return options;
    }

    /** The cluster's metadata (one shared instance). */
    public synchronized ClusterMetadata metadata() {
        if (metadata == null) {
            metadata = new CuratorClusterMetadata(client, paths, access);
            created.add(metadata);
        }
        return metadata;
    }

    /** This node's membership (one shared instance). */
    public synchronized Membership membership() {
        if (membership == null) {
            membership = new CuratorMembership(client, paths, options);
            created.add(membership);
        }
        return membership;
    }

    /** A new election service for node {@code nodeId}, preferring up-to-date members via {@link #membership()}. */
    public synchronized ElectionService election(int nodeId) {
        CuratorElectionService election = new CuratorElectionService(client, paths, nodeId, options, membership());
        created.add(election);
        return election;
    }

    /** Closes every service created here (elections first, so leaders step down), then the session. */
    @Override
    public synchronized void close() {
        for (int i = created.size() - 1; i >= 0; i--) {
            try {
                created.get(i).close();
            } catch (Exception e) {
                // keep closing the rest; the session close below removes our ephemerals anyway
            }
        }
        created.clear();
        client.close();
    }
}
