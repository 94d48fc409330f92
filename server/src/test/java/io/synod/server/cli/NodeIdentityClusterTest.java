package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientReply;
import io.synod.protocol.KvResult;
import io.synod.server.client.NodeClient;
import io.synod.server.node.LocalCluster;
import io.synod.server.node.NodeIdentity;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3-node cluster whose node 1 comes back on a wiped, a copied and a mislabelled data directory: each start is
 * refused (in process and through {@code synod server}), and on its own restored directory it rejoins and serves.
 * The wiped directory is refused because {@code rejoin.wiped=false} here; with the default a wiped node re-joins as a
 * new incarnation (RejoinClusterTest, WipedNodeProcessesTest), while a copied or mislabelled one is refused either way.
 */
class NodeIdentityClusterTest {
    @TempDir
    Path dir;

    private static String refusal(LocalCluster cluster, int node, String... words) {
        Exception e = assertThrows(Exception.class, () -> cluster.start(node), "node " + node + " must not start");
        cluster.stop(node); // releases the ZooKeeper relay of the refused start
        String m = e.getMessage();
        for (String w : words) {
            assertTrue(m.contains(w), "'" + w + "' in: " + m);
        }
        return m;
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    private static void deleteTree(Path root) throws Exception {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : (Iterable<Path>) files.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    @Test
    @Timeout(240)
    void wipedCopiedAndMislabelledDirectoriesAreRefusedAndTheRestoredOneRejoins() throws Exception {
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, -1, -1,
                Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1");
        try (TestingServer zk = new TestingServer(spec, true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, 1, "ident",
                        Map.of("zookeeper.session.timeout.ms", "3000", "rejoin.wiped", "false"));
                CuratorFramework curator = CuratorFrameworkFactory.newClient("127.0.0.1:" + zk.getPort(),
                        new RetryOneTime(100))) {
            curator.start();
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "a leader");
            try (NodeClient client = cluster.client(11, 2_000)) {
                for (int i = 0; i < 10; i++) {
                    assertEquals(ClientReply.Status.OK, client.put("k" + i, ("v" + i).getBytes(StandardCharsets.UTF_8),
                            30_000).status());
                }
            }
            // First start wrote each node's marker and znode, with the same incarnation.
            for (int i = 0; i < 3; i++) {
                UUID id = NodeIdentity.read(dir.resolve("node-" + i)).orElseThrow().incarnation();
                byte[] znode = curator.getData().forPath("/synod/ident/incarnations/" + i);
                assertEquals(id, io.synod.coordination.ZnodeCodec.decodeIncarnation(znode).id());
            }
            Path own = dir.resolve("node-1");
            UUID incarnation = NodeIdentity.read(own).orElseThrow().incarnation();
            // A plain restart on its own directory is fine.
            cluster.stop(1);
            cluster.start(1);
            cluster.stop(1);
            // Wiped (the directory moved aside, an empty one in its place): refused.
            Path saved = dir.resolve("node-1.saved");
            Files.move(own, saved);
            Files.createDirectories(own);
            refusal(cluster, 1, "node 1 of cluster 'ident' refuses to start", own.toString(), "holds no Synod state",
                    "remembers incarnation " + incarnation, "lose acknowledged writes", "Restore the data directory",
                    "delete the znode /synod/ident/incarnations/1");
            assertEquals(0, Files.list(own).count(), "a refused start leaves the directory as it found it");
            // The same through `synod server`: "error: ..." and exit status 1.
            Path props = dir.resolve("node-1.properties");
            Files.writeString(props, cluster.config(1).toProperties());
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int status = SynodCli.execute(new String[] {"server", "--config", props.toString(), "--set",
                "zookeeper.connect=127.0.0.1:" + zk.getPort()}, new PrintWriter(out, true), new PrintWriter(err, true));
            assertEquals(1, status, err.toString());
            assertTrue(err.toString().startsWith("error: node 1 failed to start: node 1 of cluster 'ident' refuses to start"),
                    err.toString());
            assertTrue(err.toString().contains("remembers incarnation " + incarnation), err.toString());
            // Node 0's directory copied into node 1's place: refused (with node 0 stopped, so the copy is consistent).
            cluster.stop(0);
            deleteTree(own);
            copyTree(dir.resolve("node-0"), own);
            refusal(cluster, 1, "belongs to node 0 of cluster 'ident'", "wrong data.dir");
            cluster.start(0);
            // Node 1's own state under a marker naming another node: refused.
            deleteTree(own);
            Files.move(saved, own);
            byte[] marker = Files.readAllBytes(own.resolve(NodeIdentity.FILE));
            Files.writeString(own.resolve(NodeIdentity.FILE), new String(marker, StandardCharsets.UTF_8)
                    .replace("node.id=1", "node.id=2"));
            refusal(cluster, 1, "identity file", "is damaged"); // the checksum covers the node id
            // ... and one written properly for node 2 (as a copy of node 2's marker would be).
            Files.copy(dir.resolve("node-2").resolve(NodeIdentity.FILE), own.resolve(NodeIdentity.FILE),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            refusal(cluster, 1, "belongs to node 2 of cluster 'ident'", "wrong data.dir");
            // Restored: node 1 starts on its own directory and the cluster serves every acknowledged write.
            Files.write(own.resolve(NodeIdentity.FILE), marker);
            cluster.start(1);
            assertTrue(cluster.awaitLeaders(60_000), "a leader after the restore");
            try (NodeClient client = cluster.client(12, 2_000)) {
                for (int i = 0; i < 10; i++) {
                    NodeClient.Result r = client.get("k" + i, 60_000);
                    assertEquals(ClientReply.Status.OK, r.status());
                    assertArrayEquals(("v" + i).getBytes(StandardCharsets.UTF_8),
                            ((KvResult.Value) KvResult.decode(r.result())).value());
                }
            }
            assertEquals(incarnation, NodeIdentity.read(own).orElseThrow().incarnation(), "the same incarnation");
        }
    }
}
