package io.synod.coordination;

import static io.synod.coordination.ZkFixture.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The placement record (docs/membership.md, "Placement"): its checks, its codec and its znode's compare-and-set. */
class PlacementTest {
    private static final Placement THREE_OF_FOUR = new Placement(4, 3, List.of("a", "b", "c", "a"),
            List.of(List.of(0, 1, 2), List.of(3, 1, 2)), List.of(List.of(0, 1, 2), List.of(3, 1, 2)));

    @Test
    void aMoveReplacesOneNodeAndKeepsTheInitialNodes() {
        Placement moved = THREE_OF_FOUR.moved(0, 1, 3);
        assertEquals(List.of(0, 3, 2), moved.current().get(0));
        assertEquals(List.of(0, 1, 2), moved.initial().get(0), "slot 0's membership never changes");
        assertTrue(moved.hosts(0, 3) && !moved.hosts(0, 1));
        assertEquals(2, moved.replicasOn(3));
        assertEquals("a", moved.zone(3));
        assertThrows(IllegalArgumentException.class, () -> THREE_OF_FOUR.moved(0, 3, 1), "3 does not host group 0");
        assertThrows(IllegalArgumentException.class, () -> THREE_OF_FOUR.moved(0, 1, 2), "2 hosts group 0 already");
        assertThrows(IllegalArgumentException.class, () -> new Placement(4, 5, List.of(), List.of(), List.of()));
        assertThrows(IllegalArgumentException.class, () -> new Placement(4, 3, List.of(),
                List.of(List.of(0, 1, 1)), List.of(List.of(0, 1, 2))), "a node twice");
        assertThrows(IllegalArgumentException.class, () -> new Placement(4, 3, List.of(),
                List.of(List.of(0, 1)), List.of(List.of(0, 1, 2))), "created on two of three");
    }

    @Test
    void theCodecRoundTripsAndRefusesDamage() {
        assertEquals(THREE_OF_FOUR, ZnodeCodec.decodePlacement(ZnodeCodec.encodePlacement(THREE_OF_FOUR)));
        byte[] bytes = ZnodeCodec.encodePlacement(THREE_OF_FOUR);
        bytes[bytes.length - 1] = 9; // the last node id, beyond the node count
        assertThrows(MetadataFormatException.class, () -> ZnodeCodec.decodePlacement(bytes));
        byte[] twice = ZnodeCodec.encodePlacement(THREE_OF_FOUR);
        twice[twice.length - 1] = 1; // group 1's current nodes 3, 1, 1
        assertThrows(MetadataFormatException.class, () -> ZnodeCodec.decodePlacement(twice));
        byte[] cut = Arrays.copyOf(ZnodeCodec.encodePlacement(THREE_OF_FOUR), 20);
        assertThrows(MetadataFormatException.class, () -> ZnodeCodec.decodePlacement(cut));
    }

    @Test
    void aRemovedNodeLeavesTheNodeSetInFormat3AndOlderFormatsReadAsNoneRemoved() {
        // Format 1 as builds before the removed nodes wrote it, byte by byte: 3 nodes, 3 replicas, no zone, 1 group.
        ByteBuffer old = ByteBuffer.allocate(1 + 4 * 4 + 2 * 4 * 4).put((byte) 1).putInt(3).putInt(3).putInt(0).putInt(1);
        for (int list = 0; list < 2; list++) {
            old.putInt(3).putInt(0).putInt(1).putInt(2);
        }
        Placement read = ZnodeCodec.decodePlacement(old.array());
        assertEquals(Set.of(), read.removed());
        assertEquals(3, read.liveNodes());
        Placement joined = read.withNode(3, "127.0.0.1:7003:8003", "");
        assertEquals(Set.of(), ZnodeCodec.decodePlacement(ZnodeCodec.encodePlacement(joined)).removed(), "format 2");

        Placement emptied = THREE_OF_FOUR.moved(0, 0, 3).withRemoved(0);
        assertTrue(emptied.isRemoved(0) && !emptied.isRemoved(3));
        assertEquals(3, emptied.liveNodes());
        assertEquals(emptied, emptied.withRemoved(0), "removing it again changes nothing");
        assertEquals(ZnodeCodec.PLACEMENT_REMOVED_FORMAT, ZnodeCodec.encodePlacement(emptied)[0]);
        assertEquals(emptied, ZnodeCodec.decodePlacement(ZnodeCodec.encodePlacement(emptied)), "no joined node");
        Placement both = joined.moved(0, 0, 3).withRemoved(0);
        assertEquals(both, ZnodeCodec.decodePlacement(ZnodeCodec.encodePlacement(both)), "a joined and a removed node");
        assertEquals(Set.of(0), both.withNode(4, "127.0.0.1:7004:8004", "").removed(), "a join keeps the removed nodes");

        IllegalArgumentException hosting = assertThrows(IllegalArgumentException.class, () -> THREE_OF_FOUR.withRemoved(1));
        assertTrue(hosting.getMessage().contains("removed node 1 still hosts group 0"), hosting.getMessage());
        assertThrows(IllegalArgumentException.class, () -> emptied.moved(0, 3, 0), "nothing moves onto a removed node");
        Placement noGroups = new Placement(3, 3, List.of(), List.of(), List.of());
        IllegalArgumentException few = assertThrows(IllegalArgumentException.class, () -> noGroups.withRemoved(2));
        assertTrue(few.getMessage().contains("2 nodes left for groups of 3 replicas"), few.getMessage());
    }

    @Test
    void aJoinedNodeGrowsTheNodeSetAsASpareWithItsAddress() {
        Placement joined = THREE_OF_FOUR.withNode(4, "127.0.0.1:7004:8004", "b");
        assertEquals(5, joined.nodes());
        assertEquals(0, joined.replicasOn(4), "the new node hosts no group: a spare in each");
        assertEquals(THREE_OF_FOUR.current(), joined.current());
        assertEquals("b", joined.zone(4));
        assertEquals("127.0.0.1:7004:8004", joined.joined().get(4));
        assertEquals("127.0.0.1:7004:8004", joined.moved(0, 1, 4).joined().get(4), "a move keeps the joined addresses");
        assertEquals(joined, ZnodeCodec.decodePlacement(ZnodeCodec.encodePlacement(joined)));
        assertEquals(ZnodeCodec.PLACEMENT_FORMAT, ZnodeCodec.encodePlacement(THREE_OF_FOUR)[0],
                "a cluster no node joined keeps format 1");
        assertEquals(ZnodeCodec.PLACEMENT_JOINED_FORMAT, ZnodeCodec.encodePlacement(joined)[0]);
        IllegalArgumentException gap = assertThrows(IllegalArgumentException.class,
                () -> THREE_OF_FOUR.withNode(5, "h:1:2", "b"));
        assertTrue(gap.getMessage().contains("the next node of a cluster of 4 nodes is node 4"), gap.getMessage());
        assertThrows(IllegalArgumentException.class, () -> THREE_OF_FOUR.withNode(4, "h:1:2", ""), "zones name every node");
        Placement plain = new Placement(3, 3, List.of(), List.of(List.of(0, 1, 2)), List.of(List.of(0, 1, 2)));
        assertThrows(IllegalArgumentException.class, () -> plain.withNode(3, "h:1:2", "a"), "no zones, none for one");
        assertEquals(List.of(), plain.withNode(3, "h:1:2", "").zones());
    }

    @Test
    void zooKeeperKeepsThePlacementByCompareAndSet() throws Exception {
        try (ZkFixture zk = new ZkFixture()) {
            ClusterMetadata metadata = zk.connect("placed").metadata();
            metadata.createCluster(ClusterSpec.defaults(4).withGroups(2));
            assertTrue(metadata.placement().isEmpty(), "no record yet");
            List<Placement> seen = new CopyOnWriteArrayList<>();
            ClusterMetadata watcher = zk.connect("placed").metadata();
            watcher.watchPlacement(v -> seen.add(v.value()));
            assertTrue(metadata.compareAndSetPlacement(-1, THREE_OF_FOUR));
            assertFalse(metadata.compareAndSetPlacement(-1, THREE_OF_FOUR.moved(0, 1, 3)), "written once");
            Versioned<Placement> stored = metadata.placement().orElseThrow();
            assertEquals(THREE_OF_FOUR, stored.value());
            Placement moved = THREE_OF_FOUR.moved(0, 1, 3);
            assertFalse(metadata.compareAndSetPlacement(stored.version() + 1, moved), "a stale version loses");
            assertTrue(metadata.compareAndSetPlacement(stored.version(), moved));
            assertEquals(moved, metadata.placement().orElseThrow().value());
            eventually("the watch delivers the move", () -> seen.contains(moved));
        }
    }
}
