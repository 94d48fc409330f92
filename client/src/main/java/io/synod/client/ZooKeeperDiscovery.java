package io.synod.client;

import io.synod.coordination.ClusterMetadata;
import io.synod.coordination.CoordinationException;
import io.synod.coordination.CoordinationOptions;
import io.synod.coordination.CuratorCoordination;
import io.synod.coordination.MemberInfo;
import io.synod.coordination.Membership;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Discovery through ZooKeeper (docs/client.md): the live members' client addresses
 * from {@code /synod/<cluster>/members} and the shard map from {@code /synod/<cluster>/shards}, both
 * watched, through the coordination module's Curator implementations (read only: the client never
 * registers, elects or writes).
 */
final class ZooKeeperDiscovery implements Discovery {
    private final String connectString;
    private final String requestedCluster;
    private final Duration connectTimeout;
    private CuratorCoordination coordination;
    private String cluster;

    ZooKeeperDiscovery(String connectString, String cluster, Duration connectTimeout) {
        this.connectString = CuratorCoordination.validConnectString(connectString);
        this.requestedCluster = cluster;
        this.connectTimeout = connectTimeout;
    }

    @Override
    public void start(ClientEngine engine) {
        try {
            String name = requestedCluster == null ? "synod" : requestedCluster;
            CoordinationOptions d = CoordinationOptions.defaults();
            CoordinationOptions options = new CoordinationOptions(d.sessionTimeout(), connectTimeout, d.suspendedStepDown(),
                    d.progressPublish(), d.upToDateDeferral(), d.maxConsecutiveDeferrals());
            coordination = CuratorCoordination.connect(connectString, name, options);
            if (requestedCluster == null) {
                name = onlyCluster();
                coordination.close();
                coordination = CuratorCoordination.connect(connectString, name, options);
            }
            cluster = name;
            ClusterMetadata metadata = coordination.metadata();
            if (metadata.clusterSpec().isEmpty()) {
                throw new UnavailableException("ZooKeeper at " + connectString + " holds no Synod cluster '" + name + "'");
            }
            metadata.watchShardMap(v -> engine.updateShardMap(v.value()));
            Membership membership = coordination.membership();
            membership.addListener(members -> engine.updateNodes(addresses(members)));
        } catch (CoordinationException e) {
            close();
            throw new UnavailableException(e.getMessage(), e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** With no cluster name given: the one cluster under /synod, or an error naming the choices. */
    private String onlyCluster() {
        List<String> names;
        try {
            names = coordination.curator().checkExists().forPath("/synod") == null ? List.of()
                    : coordination.curator().getChildren().forPath("/synod");
        } catch (Exception e) {
            throw new UnavailableException("cannot list Synod clusters in ZooKeeper at " + connectString + ": " + e, e);
        }
        if (names.size() != 1) {
            throw new UnavailableException(names.isEmpty() ? "ZooKeeper at " + connectString + " holds no Synod cluster"
                    : "ZooKeeper at " + connectString + " holds several Synod clusters " + names.stream().sorted().toList()
                            + ": name one");
        }
        return names.get(0);
    }

    private static Map<Integer, InetSocketAddress> addresses(Map<Integer, MemberInfo> members) {
        Map<Integer, InetSocketAddress> out = new HashMap<>();
        for (MemberInfo m : members.values()) {
            int colon = m.clientAddress().lastIndexOf(':');
            if (colon <= 0) {
                continue;
            }
            try {
                out.put(m.nodeId(), InetSocketAddress.createUnresolved(m.clientAddress().substring(0, colon),
                        Integer.parseInt(m.clientAddress().substring(colon + 1))));
            } catch (IllegalArgumentException e) {
                // A malformed address: that member is not reachable by clients.
            }
        }
        return out;
    }

    @Override
    public void refreshShardMap(ClientEngine engine) {
        // Watched: ZooKeeper tells us about every change.
    }

    @Override
    public String describe() {
        return "ZooKeeper " + connectString + (cluster == null ? "" : " (cluster '" + cluster + "')");
    }

    @Override
    public void close() {
        if (coordination != null) {
            coordination.close();
            coordination = null;
        }
    }
}
