package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.coordination.NodeIncarnation;
import io.synod.coordination.ReplicaMap;
import io.synod.server.log.CorruptStateException;
import io.synod.server.log.NodeStorage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a partly lost data directory looks like to the node (docs/server.md, "Node identity"): which missing pieces
 * are a certain loss of a group's acceptor state ({@link NodeStorage#lostState}), and the group marker's form.
 */
class LostGroupsTest {
    @TempDir
    Path dir;

    @Test
    void aMissingGroupDirectoryPromiseOrLogIsALossAndNothingElseIs() throws Exception {
        try (NodeStorage storage = NodeStorage.open(dir, 1 << 20, 4, 2)) {
            assertEquals(2, storage.shards().size()); // opened once: every group directory and both shards exist
        }
        for (int g = 0; g < 4; g++) {
            assertNull(NodeStorage.lostState(dir, g, 2), "group " + g + " of an intact directory");
        }
        // log-1/ gone: as for a directory created with log.shards=1, which NodeStorage refuses; not taken for a loss.
        deleteTree(dir.resolve("log-1"));
        assertNull(NodeStorage.lostState(dir, 1, 2));
        Files.delete(dir.resolve("group-1").resolve("promise"));
        assertEquals("group-1/promise is missing", NodeStorage.lostState(dir, 1, 2));
        deleteTree(dir.resolve("group-3"));
        assertEquals("group-3/ is missing", NodeStorage.lostState(dir, 3, 2));
        deleteTree(dir.resolve("log"));
        assertEquals("its log shard log/ is missing", NodeStorage.lostState(dir, 0, 2));
        assertEquals("its log shard log/ is missing", NodeStorage.lostState(dir, 2, 2));
        // A directory of the previous layout keeps its log in the group directory: converted at open, not lost.
        Files.createDirectories(dir.resolve("group-2").resolve("log"));
        assertNull(NodeStorage.lostState(dir, 2, 2));
    }

    @Test
    void theGroupMarkerRoundTripsAndADamagedOneIsRefusedNamingTheFile() throws Exception {
        LostGroups.Marker m = new LostGroups.Marker("demo", 2, 1, 5);
        LostGroups.write(dir, m);
        assertEquals(m, LostGroups.read(dir).orElseThrow());
        Path file = dir.resolve(LostGroups.FILE);
        String text = Files.readString(file, StandardCharsets.UTF_8);
        Files.writeString(file, text.replace("replica.id=5", "replica.id=2"), StandardCharsets.UTF_8);
        CorruptStateException e = assertThrows(CorruptStateException.class, () -> LostGroups.read(dir));
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("crc32c"), e.getMessage());
        Files.writeString(file, text.replace("group=1\n", ""), StandardCharsets.UTF_8);
        e = assertThrows(CorruptStateException.class, () -> LostGroups.read(dir));
        assertTrue(e.getMessage().contains("no 'group' line"), e.getMessage());
        assertTrue(LostGroups.read(dir.resolve("absent")).isEmpty());
    }

    @Test
    void aMoveBackResetsOnlyTheDirectoryOfTheIdItReplacedAndOnlyOnce() throws Exception {
        ReplicaMap renewed = ReplicaMap.identity(1, 3).withIncarnation(new NodeIncarnation(2,
                ReplicaMoves.moveBackMark(1, 2)), 63);
        assertEquals(5, renewed.currentId(2));
        LostGroups.Marker old = new LostGroups.Marker("demo", 2, 1, 2);
        assertTrue(LostGroups.movedBack(dir, 1, old, renewed, "demo", 2), "replica 2's directory, replaced by a move back");
        assertFalse(LostGroups.movedBack(dir, 1, new LostGroups.Marker("demo", 2, 1, 5), renewed, "demo", 2),
                "the new replica's own directory");
        assertFalse(LostGroups.movedBack(dir, 0, new LostGroups.Marker("demo", 2, 0, 2), renewed, "demo", 2),
                "another group's mark");
        assertFalse(LostGroups.movedBack(dir, 1, new LostGroups.Marker("other", 2, 1, 2), renewed, "other2", 2),
                "another cluster's directory");
        ReplicaMap rejoined = ReplicaMap.identity(1, 3).withIncarnation(new NodeIncarnation(2, UUID.randomUUID()), 63);
        assertFalse(LostGroups.movedBack(dir, 1, old, rejoined, "demo", 2),
                "a re-join's new id: a restored copy of replica 2, refused");
        Files.createDirectories(LostGroups.movedAside(dir, 1, 2));
        assertFalse(LostGroups.movedBack(dir, 1, old, renewed, "demo", 2),
                "replica 2's directory was put aside once: this one is a restored copy, refused");
    }

    private static void deleteTree(Path root) throws Exception {
        try (var files = Files.walk(root)) {
            for (Path p : (Iterable<Path>) files.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
