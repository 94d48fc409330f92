package io.synod.coordination;

import static io.synod.coordination.ShardMapTest.assertMessage;
import static io.synod.coordination.ZkFixture.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CuratorClusterMetadataTest {
    private ZkFixture zk;
    private ClusterMetadata metadata;
    private CuratorCoordination node;

    @BeforeEach
    void start() throws Exception {
        zk = new ZkFixture();
        node = zk.connect("alpha");
        metadata = node.metadata();
    }

    @AfterEach
    void stop() throws Exception {
        zk.close();
    }

    @Test
    void createClusterLaysOutEveryZnodeAndIsIdempotent() throws Exception {
        ClusterSpec spec = ClusterSpec.defaults(3);
        assertTrue(metadata.clusterSpec().isEmpty());
        assertTrue(metadata.createCluster(spec));
        assertFalse(metadata.createCluster(spec), "second creation with the same spec is a no-op");
        assertEquals(4, metadata.groupCount());
        for (int g = 0; g < 4; g++) {
            Versioned<GroupConfig> config = metadata.groupConfig(g);
            assertEquals(spec.groupConfig(g), config.value());
            assertEquals(new EpochRecord(0, -1), metadata.epoch(g).value());
            assertTrue(node.curator().checkExists().forPath("/synod/alpha/groups/" + g + "/election") != null);
        }
        assertTrue(node.curator().checkExists().forPath("/synod/alpha/members") != null);
        assertEquals(ShardMap.uniform(4), metadata.shardMap().value());
        // A second client sees the same cluster and a conflicting creation names both specs.
        ClusterMetadata other = zk.connect("alpha").metadata();
        assertEquals(spec, other.clusterSpec().orElseThrow());
        assertMessage(() -> other.createCluster(spec.withGroups(8)), "cluster 'alpha' already exists with");
        // The lease is part of the spec: another mode, or the same mode with another delta, is a different cluster.
        assertMessage(() -> other.createCluster(spec.withLease(LeaseMode.LEADER_TIMER, LeaseTiming.defaults(LeaseMode.LEADER_TIMER))),
                "cluster 'alpha' already exists with");
        LeaseTiming t = spec.leaseTiming();
        assertMessage(() -> other.createCluster(spec.withLease(spec.leaseMode(),
                new LeaseTiming(t.deltaMillis() + 1, t.clockBoundMicros(), t.driftPpm()))), "cluster 'alpha' already exists with");
        assertFalse(other.createCluster(spec.withLease(spec.leaseMode(), new LeaseTiming(t.deltaMillis(), t.clockBoundMicros(),
                123))), "a parameter the mode does not use is normalized away: the same cluster");
        // Clusters are independent namespaces.
        ClusterMetadata beta = zk.connect("beta").metadata();
        assertTrue(beta.createCluster(ClusterSpec.defaults(5).withGroups(2)));
        assertEquals(2, beta.groupCount());
        assertEquals(4, metadata.groupCount());
    }

    @Test
    void incarnationIsRecordedOnceAndReadBack() throws Exception {
        metadata.createCluster(ClusterSpec.defaults(3));
        assertTrue(metadata.incarnation(1).isEmpty(), "no record before the node's first start");
        NodeIncarnation first = new NodeIncarnation(1, java.util.UUID.randomUUID());
        assertEquals(first, metadata.recordIncarnation(first));
        assertEquals(first, metadata.incarnation(1).orElseThrow());
        // A second record for the same node does not overwrite the first: the caller sees the earlier one.
        NodeIncarnation second = new NodeIncarnation(1, java.util.UUID.randomUUID());
        assertEquals(first, metadata.recordIncarnation(second));
        assertEquals(first, zk.connect("alpha").metadata().incarnation(1).orElseThrow());
        assertTrue(metadata.incarnation(0).isEmpty(), "records are per node");
        // Damage is named with the path: a record of another node, bytes that do not decode.
        node.curator().create().forPath("/synod/alpha/incarnations/2", ZnodeCodec.encodeIncarnation(first));
        assertMessage(() -> metadata.incarnation(2), "/synod/alpha/incarnations/2: holds the incarnation of node 1");
        node.curator().setData().forPath("/synod/alpha/incarnations/2", new byte[] {1, 0, 0});
        assertMessage(() -> metadata.incarnation(2), "znode /synod/alpha/incarnations/2: incarnation");
        byte[] bytes = ZnodeCodec.encodeIncarnation(first);
        assertEquals(21, bytes.length);
        assertEquals(first, ZnodeCodec.decodeIncarnation(bytes));
    }

    @Test
    void shardMapCompareAndSetDetectsConflicts() {
        metadata.createCluster(ClusterSpec.defaults(3));
        Versioned<ShardMap> first = metadata.shardMap();
        ShardMap moved = ShardMap.of(2, 4, List.of(new ShardMap.Range(new byte[0], 3),
                new ShardMap.Range(new byte[] {10}, 1), new ShardMap.Range(new byte[] {20}, 0)));
        assertTrue(metadata.compareAndSetShardMap(first.version(), moved));
        Versioned<ShardMap> second = metadata.shardMap();
        assertEquals(moved, second.value());
        assertEquals(first.version() + 1, second.version());
        // A writer that read the first version loses and learns it by the return value.
        assertFalse(metadata.compareAndSetShardMap(first.version(), moved.withGeneration(3)));
        assertEquals(moved, metadata.shardMap().value());
        assertMessage(() -> metadata.compareAndSetShardMap(second.version(), moved), "generation must grow");
        assertMessage(() -> metadata.compareAndSetShardMap(second.version(), ShardMap.uniform(3).withGeneration(9)),
                "shard map has 3 groups, cluster 'alpha' has 4");

        Versioned<GroupConfig> config = metadata.groupConfig(1);
        GroupConfig lease = new GroupConfig(1, List.of(0, 1, 2), 1, 1, 0, LeaseMode.QUORUM);
        assertTrue(metadata.compareAndSetGroupConfig(1, config.version(), lease));
        assertFalse(metadata.compareAndSetGroupConfig(1, config.version(), lease));
        assertEquals(lease, metadata.groupConfig(1).value());
        assertThrows(IllegalArgumentException.class, () -> metadata.compareAndSetGroupConfig(2, 1, lease));
    }

    @Test
    void watchesDeliverTheCurrentValueThenEveryChange() throws Exception {
        metadata.createCluster(ClusterSpec.defaults(3));
        List<Versioned<ShardMap>> maps = new CopyOnWriteArrayList<>();
        List<Versioned<GroupConfig>> configs = new CopyOnWriteArrayList<>();
        // Watch through another node's session, as a server watching an administrator's change would.
        ClusterMetadata watcher = zk.connect("alpha").metadata();
        watcher.watchShardMap(maps::add);
        watcher.watchGroupConfig(2, configs::add);
        eventually("initial shard map delivered", () -> maps.size() == 1);
        eventually("initial config delivered", () -> configs.size() == 1);
        assertEquals(ShardMap.uniform(4), maps.get(0).value());

        ShardMap next = ShardMap.uniform(4).withGeneration(5);
        assertTrue(metadata.compareAndSetShardMap(maps.get(0).version(), next));
        eventually("changed shard map delivered", () -> maps.size() == 2);
        assertEquals(next, maps.get(1).value());
        assertEquals(maps.get(0).version() + 1, maps.get(1).version());

        GroupConfig changed = new GroupConfig(2, List.of(0, 1, 2), 0, 1, 0, LeaseMode.NONE);
        assertTrue(metadata.compareAndSetGroupConfig(2, configs.get(0).version(), changed));
        eventually("changed config delivered", () -> configs.size() == 2);
        assertEquals(changed, configs.get(1).value());

        // Malformed bytes written behind Synod's back are not delivered; the next good value is.
        node.curator().setData().forPath("/synod/alpha/shards", new byte[] {1, 2, 3});
        ShardMap after = next.withGeneration(6);
        node.curator().setData().forPath("/synod/alpha/shards", after.encode());
        eventually("good value after a malformed one delivered", () -> maps.size() == 3);
        assertEquals(after, maps.get(2).value());
    }

    @Test
    void malformedZnodesAndMissingClustersFailWithClearErrors() throws Exception {
        assertMessage(() -> metadata.shardMap(), "/synod/alpha/shards does not exist (was the cluster created?)");
        assertMessage(() -> metadata.groupCount(), "cluster 'alpha' does not exist");
        metadata.createCluster(ClusterSpec.defaults(3));
        node.curator().setData().forPath("/synod/alpha/shards", new byte[] {1, 0, 0});
        MetadataFormatException e = assertThrows(MetadataFormatException.class, () -> metadata.shardMap());
        assertEquals("znode /synod/alpha/shards: shard map: truncated at generation (needs 8 bytes, 2 left)", e.getMessage());
        node.curator().setData().forPath("/synod/alpha/groups/0/epoch", new byte[] {2});
        assertMessage(() -> metadata.epoch(0), "znode /synod/alpha/groups/0/epoch: epoch: unsupported format version 2");
        node.curator().setData().forPath("/synod/alpha", new byte[0]);
        assertMessage(() -> metadata.clusterSpec(), "znode /synod/alpha: cluster spec: truncated at format version");
    }
}
