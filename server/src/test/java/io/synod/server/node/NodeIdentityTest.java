package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.coordination.ClusterMetadata;
import io.synod.coordination.ClusterSpec;
import io.synod.coordination.CoordinationOptions;
import io.synod.coordination.CuratorCoordination;
import io.synod.coordination.NodeIncarnation;
import io.synod.server.log.CorruptStateException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

class NodeIdentityTest {
    @TempDir
    Path dir;

    private static final UUID A = new UUID(0x1111L, 0x2222L);
    private static final UUID B = new UUID(0x3333L, 0x4444L);

    /** A ZooKeeper on 127.0.0.1 only (ephemeral port, temp directory it deletes on close). */
    static TestingServer loopbackZooKeeper() throws Exception {
        return new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, -1, -1,
                java.util.Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1"), true);
    }

    static <T extends Throwable> String message(Class<T> type, Executable call, String... words) {
        String m = assertThrows(type, call).getMessage();
        for (String w : words) {
            assertTrue(m.contains(w), "'" + w + "' in: " + m);
        }
        return m;
    }

    @Test
    void markerRoundTripsDurablyAndIsAbsentInAFreshDirectory() throws Exception {
        assertEquals(Optional.empty(), NodeIdentity.read(dir));
        NodeIdentity.Marker m = new NodeIdentity.Marker("t-1.x", 62, A);
        NodeIdentity.write(dir, m);
        assertEquals(Optional.of(m), NodeIdentity.read(dir));
        assertFalse(Files.exists(dir.resolve(NodeIdentity.FILE + ".tmp")), "the temp file was renamed");
        String text = Files.readString(dir.resolve(NodeIdentity.FILE));
        assertTrue(text.contains("cluster=t-1.x\nnode.id=62\nincarnation=" + A + "\n"), text);
    }

    @Test
    void damagedMarkerIsRefusedNamingTheFileAndTheFault() throws Exception {
        Path file = dir.resolve(NodeIdentity.FILE);
        String good = new String(NodeIdentity.encode(new NodeIdentity.Marker("c", 3, A)), StandardCharsets.UTF_8);
        String[][] cases = {
            {"", "no 'format' line"},
            {good.replace("node.id=3", "node.id=4"), "crc32c"},
            {good.replace("incarnation=" + A, "incarnation=" + B), "does not match its content"},
            {good.replace("format=1", "format=2"), "format 2 unknown"},
            {good.replace("node.id=3", "node.id=x"), "node.id 'x' is not a number"},
            {good.replace("node.id=3", "node.id=63"), "outside 0..62"},
            {good.replace("cluster=c", "cluster=a/b"), "cluster name may hold only"},
            {good.replace("incarnation=" + A, "incarnation=zz"), "zz"},
            {good + "extra line\n", "unexpected line 'extra line'"},
            {good + "cluster=c\n", "'cluster' appears twice"},
            {good.replace("crc32c=", "crc=") , "unexpected line"},
        };
        for (String[] c : cases) {
            Files.writeString(file, c[0]);
            message(CorruptStateException.class, () -> NodeIdentity.read(dir), "identity file " + file + " is damaged",
                    c[1]);
        }
    }

    @Test
    void groupStateIsAGroupDirectory() throws Exception {
        assertFalse(NodeIdentity.holdsGroupState(dir.resolve("absent")));
        Files.createDirectories(dir.resolve("lost+found"));
        Files.writeString(dir.resolve("group-notes"), "x");
        Files.createDirectories(dir.resolve("group-x"));
        assertFalse(NodeIdentity.holdsGroupState(dir), "unrelated entries are not group state");
        Files.createDirectories(dir.resolve("group-12"));
        assertTrue(NodeIdentity.holdsGroupState(dir));
    }

    /** Every case of the start-up check against a real ZooKeeper, without a node. */
    @Test
    @Timeout(120)
    void establishStartsKnownDirectoriesAndRefusesLostOrForeignOnes() throws Exception {
        try (TestingServer zk = loopbackZooKeeper();
                CuratorCoordination c = CuratorCoordination.connect(zk.getConnectString(), "ids",
                        CoordinationOptions.defaults().withSessionTimeout(Duration.ofSeconds(10)))) {
            ClusterMetadata metadata = c.metadata();
            metadata.createCluster(ClusterSpec.defaults(3));
            Path n1 = dir.resolve("node-1");
            Files.createDirectories(n1);
            // First start: marker and znode, the same id.
            assertEquals(A, NodeIdentity.establish(n1, "ids", 1, metadata, () -> A));
            assertEquals(new NodeIncarnation(1, A), metadata.incarnation(1).orElseThrow());
            assertEquals(A, NodeIdentity.read(n1).orElseThrow().incarnation());
            // Restart: the id is not drawn again.
            assertEquals(A, NodeIdentity.establish(n1, "ids", 1, metadata, () -> B));
            // Wiped: refused, naming node, directory, incarnation, reason and both remedies.
            Path wiped = dir.resolve("wiped");
            Files.createDirectories(wiped.resolve("lost+found"));
            String m = message(NodeIdentity.RefusedException.class,
                    () -> NodeIdentity.establish(wiped, "ids", 1, metadata, () -> B),
                    "node 1 of cluster 'ids' refuses to start", wiped.toString(), "holds no Synod state",
                    "remembers incarnation " + A, "promises and accepted values are gone", "lose acknowledged writes",
                    "Restore the data directory", "delete the znode /synod/ids/incarnations/1");
            assertFalse(m.contains("\n"), "one line");
            assertFalse(Files.exists(wiped.resolve(NodeIdentity.FILE)), "a refused start writes nothing");
            // Group state without a marker while ZooKeeper knows the node: refused too.
            Files.createDirectories(wiped.resolve("group-0"));
            message(NodeIdentity.RefusedException.class, () -> NodeIdentity.establish(wiped, "ids", 1, metadata, () -> B),
                    "holds group state but no node.identity", "remembers incarnation " + A);
            // A marker of another incarnation of this node (an old copy): refused.
            Path old = dir.resolve("old");
            Files.createDirectories(old);
            NodeIdentity.write(old, new NodeIdentity.Marker("ids", 1, B));
            message(NodeIdentity.RefusedException.class, () -> NodeIdentity.establish(old, "ids", 1, metadata, () -> B),
                    "belongs to incarnation " + B, "ZooKeeper records incarnation " + A, "/synod/ids/incarnations/1");
            // Another node's or another cluster's directory: refused before ZooKeeper is consulted for a remedy.
            message(NodeIdentity.RefusedException.class, () -> NodeIdentity.establish(n1, "ids", 2, metadata, () -> B),
                    "node 2 of cluster 'ids' refuses to start", "belongs to node 1 of cluster 'ids'", "wrong data.dir");
            message(NodeIdentity.RefusedException.class, () -> NodeIdentity.establish(n1, "other", 1, metadata, () -> B),
                    "belongs to node 1 of cluster 'ids'", "wrong data.dir");
            assertTrue(metadata.incarnation(2).isEmpty(), "a refused start records nothing");
            // Upgrade: group state from before incarnations and no record: marker and znode are created.
            Path upgraded = dir.resolve("node-0");
            Files.createDirectories(upgraded.resolve("group-0"));
            assertEquals(B, NodeIdentity.establish(upgraded, "ids", 0, metadata, () -> B));
            assertEquals(new NodeIncarnation(0, B), metadata.incarnation(0).orElseThrow());
            // A marker whose znode is gone (a new ZooKeeper): the znode is written back from the marker.
            c.curator().delete().forPath("/synod/ids/incarnations/0");
            assertEquals(B, NodeIdentity.establish(upgraded, "ids", 0, metadata, () -> A));
            assertEquals(new NodeIncarnation(0, B), metadata.incarnation(0).orElseThrow());
            // The documented escape: deleting the znode lets the wiped directory start as a new incarnation.
            c.curator().delete().forPath("/synod/ids/incarnations/1");
            Path fresh = dir.resolve("fresh");
            Files.createDirectories(fresh);
            assertEquals(B, NodeIdentity.establish(fresh, "ids", 1, metadata, () -> B));
            assertEquals(new NodeIncarnation(1, B), metadata.incarnation(1).orElseThrow());
        }
    }
}
