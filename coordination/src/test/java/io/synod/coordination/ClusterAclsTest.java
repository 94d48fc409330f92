package io.synod.coordination;

import static io.synod.coordination.ShardMapTest.assertMessage;
import static io.synod.coordination.ZkFixture.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ACLs of a cluster's znodes on a real ZooKeeper server: servers with the cluster's digest identity
 * write, anyone reads, an unauthenticated client gets NoAuth for every write (docs/security.md).
 */
@Timeout(120)
class ClusterAclsTest {
    private static final ZooKeeperAccess SERVERS = ZooKeeperAccess.digest("synod", "s3cret-s3cret-s3cret");

    @TempDir
    Path dir;
    private ZkFixture zk;
    private CuratorFramework anonymous;

    @BeforeEach
    void start() throws Exception {
        zk = new ZkFixture();
        anonymous = CuratorFrameworkFactory.newClient(zk.server.getConnectString(), new RetryOneTime(100));
        anonymous.start();
    }

    @AfterEach
    void stop() throws Exception {
        anonymous.close();
        zk.close();
    }

    /** Creates the cluster with {@code access}, has node 0 win group 0 and returns the node. */
    private CuratorCoordination electedNode(String cluster, ZooKeeperAccess access) throws Exception {
        CuratorCoordination node = zk.connect(cluster, access);
        node.metadata().createCluster(ClusterSpec.defaults(3));
        node.membership().register(MemberInfo.of(0, "127.0.0.1:1", "127.0.0.1:2", "", ""));
        node.membership().flush();
        ElectionRecorder events = new ElectionRecorder(0);
        node.election(0).join(0, events);
        eventually("node 0 leads group 0", () -> events.leads(0));
        return node;
    }

    private List<String> tree(String path) throws Exception {
        List<String> out = new ArrayList<>();
        for (String child : anonymous.getChildren().forPath(path)) {
            out.addAll(tree(path + "/" + child));
        }
        out.add(path);
        return out;
    }

    private void assertNoAuth(String what, ZkWrite write) {
        assertThrows(KeeperException.NoAuthException.class, write::run, what + " by an unauthenticated client");
    }

    @FunctionalInterface
    private interface ZkWrite {
        void run() throws Exception;
    }

    @Test
    void anUnauthenticatedClientReadsEveryZnodeButCannotWriteAny() throws Exception {
        CuratorCoordination node = electedNode("sec", SERVERS);
        ClusterPaths paths = node.paths();
        // Every znode, the ephemeral member and election znodes included, carries the cluster ACL.
        List<String> znodes = tree(paths.root());
        assertTrue(znodes.size() > 10, znodes.toString());
        for (String path : znodes) {
            assertEquals(SERVERS.clusterAcl(), node.curator().getACL().forPath(path), path);
            anonymous.getData().forPath(path); // read: anyone
        }
        assertTrue(znodes.stream().anyMatch(p -> p.startsWith(paths.election(0) + "/")), "a latch znode: " + znodes);
        String hash = SERVERS.id().getId().substring("synod:".length());
        List<ACL> seen = anonymous.getACL().forPath(paths.root());
        assertFalse(seen.toString().contains(hash), "ZooKeeper hides the digest from a client without admin: " + seen);
        assertTrue(seen.toString().contains("synod:x"), seen.toString());
        List<ACL> parent = node.curator().getACL().forPath("/synod");
        assertTrue(parent.contains(new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.CREATE, ZooDefs.Ids.ANYONE_ID_UNSAFE)),
                parent.toString());
        // Writes: the shard map, an epoch, a group's config, membership, the election, the ACLs themselves.
        byte[] forged = ShardMap.uniform(4).withGeneration(99).encode();
        assertNoAuth("shard map", () -> anonymous.setData().forPath(paths.shards(), forged));
        assertNoAuth("epoch", () -> anonymous.setData().forPath(paths.epoch(0), ZnodeCodec.encodeEpoch(new EpochRecord(1L << 62, 1))));
        assertNoAuth("group config", () -> anonymous.setData().forPath(paths.config(0), new byte[] {1}));
        assertNoAuth("member", () -> anonymous.create().forPath(paths.member(2), new byte[] {1}));
        assertNoAuth("member removal", () -> anonymous.delete().forPath(paths.member(0)));
        assertNoAuth("election", () -> anonymous.create().forPath(paths.election(0) + "/_c_x-latch-0000000000"));
        assertNoAuth("incarnations", () -> anonymous.create().forPath(paths.incarnations()));
        assertNoAuth("ACL", () -> anonymous.setACL().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath(paths.root()));
        assertEquals(ShardMap.uniform(4), node.metadata().shardMap().value(), "shard map unchanged");
        assertEquals(new EpochRecord(1, 0), node.metadata().epoch(0).value(), "epoch unchanged");
        // Through Synod's own API, a node without the identity is refused at once, naming the fix.
        CuratorCoordination reader = zk.connect("sec");
        assertEquals(ClusterSpec.defaults(3), reader.metadata().clusterSpec().orElseThrow(), "reads work");
        assertMessage(() -> reader.metadata().createCluster(ClusterSpec.defaults(3)),
                "cluster 'sec' in ZooKeeper is writable only by digest:synod and this node has no ZooKeeper identity: "
                        + "set zookeeper.auth.secret.file");
        assertMessage(() -> reader.metadata().compareAndSetShardMap(0, ShardMap.uniform(4).withGeneration(2)), "NoAuth");
        // The servers themselves still write.
        assertTrue(node.metadata().compareAndSetShardMap(0, ShardMap.uniform(4).withGeneration(2)));
    }

    @Test
    void theIdentityIsPresentedAgainAfterTheSessionExpires() throws Exception {
        CuratorCoordination node = electedNode("expiry", SERVERS);
        long before = node.curator().getZookeeperClient().getZooKeeper().getSessionId();
        zk.expireSession(node);
        eventually("a new session", () -> {
            try {
                return node.curator().getZookeeperClient().getZooKeeper().getSessionId() != before
                        && node.curator().getZookeeperClient().isConnected();
            } catch (Exception e) {
                return false;
            }
        });
        assertTrue(node.metadata().compareAndSetShardMap(0, ShardMap.uniform(4).withGeneration(2)),
                "the new session writes with the servers' identity");
    }

    @Test
    void aClusterCreatedWithoutAclsIsSecuredByTheFirstAuthenticatedNode() throws Exception {
        CuratorCoordination open = electedNode("legacy", ZooKeeperAccess.open());
        ClusterPaths paths = open.paths();
        anonymous.setData().forPath(paths.config(1), ZnodeCodec.encodeGroupConfig(ClusterSpec.defaults(3).groupConfig(1)));
        CuratorCoordination secured = zk.connect("legacy", SERVERS);
        assertFalse(secured.metadata().createCluster(ClusterSpec.defaults(3)), "exists: not created again");
        for (String path : tree(paths.root())) {
            assertEquals(SERVERS.clusterAcl(), secured.curator().getACL().forPath(path), path);
        }
        assertNoAuth("shard map", () -> anonymous.setData().forPath(paths.shards(), ShardMap.uniform(4).encode()));
        assertNoAuth("epoch", () -> open.curator().setData().forPath(paths.epoch(0), new byte[] {1}));
        assertFalse(secured.metadata().createCluster(ClusterSpec.defaults(3)), "a second start finds its own ACL");
    }

    @Test
    void aNodeWithAnotherIdentityIsRefusedInOneLine() throws Exception {
        electedNode("owned", SERVERS);
        CuratorCoordination stranger = zk.connect("owned", ZooKeeperAccess.digest("synod", "another-secret-0123"));
        String m = assertThrows(CoordinationException.class,
                () -> stranger.metadata().createCluster(ClusterSpec.defaults(3))).getMessage();
        assertEquals("cluster 'owned' in ZooKeeper is protected by digest:synod, not by this node's identity digest:synod: "
                + "set zookeeper.auth.user and zookeeper.auth.secret.file to the ones its servers use", m);
        // A cluster with another identity still fits beside it: /synod lets anyone create.
        CuratorCoordination other = zk.connect("other", ZooKeeperAccess.digest("synod2", "another-secret-0123"));
        assertTrue(other.metadata().createCluster(ClusterSpec.defaults(1)));
    }

    @Test
    void secretFilesMustBeTheOwnersOnlyAndLongEnough() throws Exception {
        Path f = dir.resolve("zk.secret");
        Files.writeString(f, "0123456789abcdef-ok\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        assertMessage(() -> ZooKeeperAccess.readSecret(f), "is readable by others (mode 0644): run chmod 600 " + f);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        assertEquals("0123456789abcdef-ok", ZooKeeperAccess.readSecret(f), "one trailing newline dropped");
        Files.writeString(f, "short\n");
        assertMessage(() -> ZooKeeperAccess.readSecret(f), "must hold 16..1024 characters on one line, found 5");
        Files.writeString(f, "0123456789abcdef\n0123456789abcdef\n");
        assertMessage(() -> ZooKeeperAccess.readSecret(f), "printable ASCII without spaces (one line), found a character 0xa");
        assertMessage(() -> ZooKeeperAccess.readSecret(dir.resolve("absent")), "does not exist or is not a file");
        assertMessage(() -> ZooKeeperAccess.digest("a:b", "0123456789abcdef"), "ZooKeeper user must be 1..64");
        assertFalse(SERVERS.toString().contains(SERVERS.secret()), "toString hides the secret: " + SERVERS);
    }
}
