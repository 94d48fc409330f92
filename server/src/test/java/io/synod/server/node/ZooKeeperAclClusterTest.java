package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.client.SynodClient;
import io.synod.coordination.ClusterAclException;
import io.synod.coordination.ClusterPaths;
import io.synod.coordination.EpochRecord;
import io.synod.coordination.ShardMap;
import io.synod.coordination.ZnodeCodec;
import io.synod.protocol.ClientReply;
import io.synod.server.client.NodeClient;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster whose znodes carry ACLs (its nodes hold the secret of {@link LocalCluster}'s directory), on the
 * ZooKeeper server the demo runs: it elects, serves, survives a node's and the whole cluster's restart, the
 * SDK still discovers it through ZooKeeper, and an unauthenticated ZooKeeper client cannot write the shard map
 * or an epoch (docs/security.md, "A ZooKeeper client").
 */
class ZooKeeperAclClusterTest {
    @TempDir
    Path dir;

    private static void put(NodeClient client, String key, String value) throws Exception {
        assertEquals(ClientReply.Status.OK, client.put(key, value.getBytes(StandardCharsets.UTF_8), 30_000).status(), key);
    }

    @Test
    @Timeout(240)
    void aClusterWithAclsServesRestartsAndRefusesAnonymousWrites() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zookeeper"), 200);
                LocalCluster cluster = new LocalCluster(zk.address(), dir.resolve("cluster"), 3, 2, "acl",
                        Map.of("zookeeper.session.timeout.ms", "3000"));
                CuratorFramework anonymous = CuratorFrameworkFactory.newClient("127.0.0.1:" + zk.address().getPort(),
                        new RetryOneTime(100))) {
            anonymous.start();
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "every group gets a leader");
            try (NodeClient client = cluster.client(21, 2_000)) {
                put(client, "before", "1");
            }
            ClusterPaths paths = new ClusterPaths("acl");
            // Anyone reads: the shard map, the epochs, the members.
            ShardMap map = ShardMap.decode(anonymous.getData().forPath(paths.shards()));
            EpochRecord epoch = ZnodeCodec.decodeEpoch(anonymous.getData().forPath(paths.epoch(0)));
            assertEquals(3, anonymous.getChildren().forPath(paths.members()).size());
            // Nobody else writes.
            assertThrows(KeeperException.NoAuthException.class, () -> anonymous.setData().forPath(paths.shards(),
                    map.withGeneration(map.generation() + 1).encode()), "shard map");
            assertThrows(KeeperException.NoAuthException.class, () -> anonymous.setData().forPath(paths.epoch(0),
                    ZnodeCodec.encodeEpoch(new EpochRecord(1L << 62, 2))), "epoch");
            assertThrows(KeeperException.NoAuthException.class, () -> anonymous.delete().forPath(paths.member(0)),
                    "member");
            assertEquals(epoch, ZnodeCodec.decodeEpoch(anonymous.getData().forPath(paths.epoch(0))), "epoch unchanged");

            // The SDK discovers the cluster through ZooKeeper without any identity: reads are open.
            try (SynodClient sdk = SynodClient.builder().zookeeper("127.0.0.1:" + zk.address().getPort()).cluster("acl")
                    .tls(cluster.clientTls()).timeout(Duration.ofSeconds(30)).build()) {
                assertTrue(sdk.put("sdk", "2").get(60, TimeUnit.SECONDS).slot() >= 0, "written through the SDK");
            }

            // A node restarts (new ZooKeeper session, same identity) and takes part again.
            int leader = cluster.leaderOf(0);
            cluster.stop(leader);
            assertTrue(cluster.awaitLeaders(60_000), "a new leader for every group");
            cluster.start(leader);
            // The whole cluster restarts: the existing znodes are found protected by the nodes' own identity.
            for (int i = 0; i < 3; i++) {
                cluster.stop(i);
            }
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "leaders again after the restart");
            try (NodeClient client = cluster.client(22, 2_000)) {
                put(client, "after", "3");
                assertEquals(ClientReply.Status.OK, client.get("before", 30_000).status());
            }
            EpochRecord later = ZnodeCodec.decodeEpoch(anonymous.getData().forPath(paths.epoch(0)));
            assertTrue(later.epoch() > epoch.epoch(), "elections after the restarts allocated epochs: " + later);
        }
    }

    /** One node of cluster 'owned' without TLS, in {@code dir/sub} (whose zookeeper.secret it uses unless told). */
    private LocalCluster oneNodeOfOwned(EmbeddedZooKeeper zk, String sub, Map<String, String> more) throws Exception {
        Map<String, String> extra = new HashMap<>(more);
        extra.put("insecure", "true");
        return new LocalCluster(zk.address(), dir.resolve(sub), 1, 1, "owned", extra);
    }

    /** A node whose identity is not the cluster's does not start, and says which keys to set. */
    @Test
    @Timeout(120)
    void aNodeWithoutTheClustersSecretIsRefusedAtStartInOneLine() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zookeeper"), 200);
                LocalCluster owner = oneNodeOfOwned(zk, "owner", Map.of());
                LocalCluster stranger = oneNodeOfOwned(zk, "stranger", Map.of()); // its own directory: another secret
                LocalCluster open = oneNodeOfOwned(zk, "open", Map.of("zookeeper.auth.secret.file", "-"))) {
            owner.startAll();
            assertTrue(owner.awaitLeaders(60_000));
            String other = assertThrows(ClusterAclException.class, () -> stranger.start(0)).getMessage();
            assertEquals("cluster 'owned' in ZooKeeper is protected by digest:synod, not by this node's identity "
                    + "digest:synod: set zookeeper.auth.user and zookeeper.auth.secret.file to the ones its servers use", other);
            String none = assertThrows(ClusterAclException.class, () -> open.start(0)).getMessage();
            assertEquals("cluster 'owned' in ZooKeeper is writable only by digest:synod and this node has no ZooKeeper "
                    + "identity: set zookeeper.auth.secret.file (and zookeeper.auth.user) to the ones its servers use", none);
            assertEquals(0, owner.leaderOf(0), "the cluster's own node keeps leading");
        }
    }
}
