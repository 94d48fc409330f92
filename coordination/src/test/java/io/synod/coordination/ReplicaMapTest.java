package io.synod.coordination;

import static io.synod.coordination.ShardMapTest.assertMessage;
import static io.synod.coordination.ZkFixture.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The replica-id map of a group (docs/membership.md, "Replica ids beyond node ids"), in memory and in ZooKeeper. */
class ReplicaMapTest {
    private static final UUID A = new UUID(1, 1);
    private static final UUID B = new UUID(2, 2);

    @Test
    void aReJoinTakesANewIdOfItsNodeNeverOneUsedBefore() {
        ReplicaMap identity = ReplicaMap.identity(0, 3);
        for (int n = 0; n < 3; n++) {
            assertEquals(n, identity.currentId(n));
            assertTrue(identity.isCurrent(n));
        }
        assertEquals(0, identity.replaced());
        assertEquals(0, identity.rejoined());
        assertFalse(identity.isCurrent(5), "never allocated");

        ReplicaMap once = identity.withIncarnation(new NodeIncarnation(2, A), 63);
        assertEquals(5, once.currentId(2), "node 2's next id is 2 + 3");
        assertEquals(2, once.nodeOf(5));
        assertTrue(once.isCurrent(5));
        assertFalse(once.isCurrent(2), "the old incarnation's id no longer runs");
        assertEquals(1L << 2, once.replaced());
        assertEquals(1L << 5, once.rejoined());
        assertSame(once, once.withIncarnation(new NodeIncarnation(2, A), 63), "a repeated start allocates nothing");

        assertEquals(null, once.replica(2).incarnation(), "an identity id names no incarnation");
        UUID first = new UUID(3, 3);
        assertEquals(first, identity.withIncarnation(new NodeIncarnation(2, A), first, 63).replica(2).incarnation(),
                "the replaced identity id is recorded as the incarnation it belonged to");
        ReplicaMap twice = once.withIncarnation(new NodeIncarnation(2, B), 63);
        assertEquals(8, twice.currentId(2));
        assertEquals((1L << 2) | (1L << 5), twice.replaced(), "both earlier ids of node 2 are replaced (rule M7)");
        assertEquals(1L << 8, twice.rejoined());
        assertEquals(A, twice.replica(5).incarnation());

        assertEquals(9, twice.withIncarnation(new NodeIncarnation(2, UUID.randomUUID()), 10).currentId(2),
                "past the universe, the lowest id never allocated above the node's newest (its ids ascend)");
        IllegalStateException full = assertThrows(IllegalStateException.class,
                () -> identity.withIncarnation(new NodeIncarnation(2, UUID.randomUUID()), 3));
        assertTrue(full.getMessage().contains("no replica id left for node 2"), full.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ReplicaMap(0, 3, List.of(new ReplicaMap.Replica(4, 63, A))),
                "node ids are 0..62");
        assertThrows(IllegalArgumentException.class, () -> new ReplicaMap(0, 3,
                List.of(new ReplicaMap.Replica(1, 1, null), new ReplicaMap.Replica(1, 1, A))), "ids are unique");
    }

    @Test
    void aJoinedNodeTakesItsOwnIdOrTheLowestNeverAllocated() {
        ReplicaMap identity = ReplicaMap.identity(0, 3);
        ReplicaMap joined = identity.withNode(3, 63);
        assertEquals(3, joined.currentId(3), "node 3 takes id 3, free in a cluster where no node re-joined");
        assertEquals(3, joined.nodeOf(3));
        assertTrue(joined.isCurrent(3));
        assertEquals(null, joined.replica(3).incarnation(), "its first incarnation, like an identity id");
        assertSame(joined, joined.withNode(3, 63), "a repeated join allocates nothing");
        assertEquals(0, joined.rejoined(), "a joined node is no re-joined one");
        ReplicaMap rejoined = joined.withIncarnation(new NodeIncarnation(0, A), 63);
        assertEquals(4, rejoined.currentId(0), "node 0's next id 3 is taken by node 3: the lowest id never allocated");
        ReplicaMap afterRejoin = identity.withIncarnation(new NodeIncarnation(0, A), 63).withNode(3, 63);
        assertEquals(4, afterRejoin.currentId(3), "id 3 went to node 0's new incarnation");
        assertEquals(-1, afterRejoin.nodeOf(9), "an id never allocated is on no node");
        assertEquals(afterRejoin, ZnodeCodec.decodeReplicaMap(ZnodeCodec.encodeReplicaMap(afterRejoin)));
        assertThrows(IllegalStateException.class, () -> identity.withNode(3, 3), "no id left below the universe");
    }

    @Test
    void theCodecRoundTripsAndRefusesDamage() {
        ReplicaMap map = ReplicaMap.identity(7, 5).withIncarnation(new NodeIncarnation(3, A), 63);
        assertEquals(map, ZnodeCodec.decodeReplicaMap(ZnodeCodec.encodeReplicaMap(map)));
        byte[] bytes = ZnodeCodec.encodeReplicaMap(map);
        bytes[bytes.length - 17] = 7; // the last entry's incarnation flag
        assertThrows(MetadataFormatException.class, () -> ZnodeCodec.decodeReplicaMap(bytes));
        byte[] cut = java.util.Arrays.copyOf(ZnodeCodec.encodeReplicaMap(map), 20);
        assertThrows(MetadataFormatException.class, () -> ZnodeCodec.decodeReplicaMap(cut));
    }

    @Test
    void zooKeeperKeepsTheMapByCompareAndSetAndReplacesAnIncarnationOnlyFromTheExpectedOne() throws Exception {
        try (ZkFixture zk = new ZkFixture()) {
            ClusterMetadata metadata = zk.connect("alpha").metadata();
            metadata.createCluster(ClusterSpec.defaults(3));
            Versioned<ReplicaMap> absent = metadata.replicaMap(1);
            assertEquals(-1, absent.version(), "no znode: the identity map");
            assertEquals(ReplicaMap.identity(1, 3), absent.value());
            List<ReplicaMap> seen = new CopyOnWriteArrayList<>();
            ClusterMetadata watcher = zk.connect("alpha").metadata();
            watcher.watchReplicaMap(1, v -> seen.add(v.value()));

            ReplicaMap next = absent.value().withIncarnation(new NodeIncarnation(0, A), 63);
            assertTrue(metadata.compareAndSetReplicaMap(1, -1, next));
            assertFalse(metadata.compareAndSetReplicaMap(1, -1, next), "created once");
            Versioned<ReplicaMap> stored = metadata.replicaMap(1);
            assertEquals(next, stored.value());
            ReplicaMap later = next.withIncarnation(new NodeIncarnation(0, B), 63);
            assertFalse(metadata.compareAndSetReplicaMap(1, stored.version() + 1, later), "a stale version loses");
            assertTrue(metadata.compareAndSetReplicaMap(1, stored.version(), later));
            eventually("the watch delivers the change", () -> seen.contains(later));
            assertEquals(ReplicaMap.identity(0, 3), metadata.replicaMap(0).value(), "maps are per group");
            assertMessage(() -> metadata.compareAndSetReplicaMap(2, -1, later), "cannot be stored as group 2");

            NodeIncarnation first = metadata.recordIncarnation(new NodeIncarnation(0, A));
            NodeIncarnation second = new NodeIncarnation(0, B);
            assertEquals(first, metadata.replaceIncarnation(new NodeIncarnation(0, UUID.randomUUID()), second),
                    "not the expected incarnation: nothing replaced");
            assertEquals(second, metadata.replaceIncarnation(first, second));
            assertEquals(second, metadata.incarnation(0).orElseThrow());
        }
    }
}
