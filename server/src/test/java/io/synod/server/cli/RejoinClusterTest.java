package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientReply;
import io.synod.protocol.KvResult;
import io.synod.server.client.NodeClient;
import io.synod.server.node.LocalCluster;
import io.synod.server.node.NodeIdentity;
import io.synod.server.node.SynodNode;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A wiped node re-joins by itself, in process (docs/membership.md, "A wiped node re-joins"; rules M6 and M7): node 2's
 * directory is deleted while it is down, it starts again with no other command, takes a new incarnation and new
 * replica ids, and each group's leader removes its old id, adds the new one as a learner and promotes it once caught
 * up. Every acknowledged write is then readable from it alone, and the cluster commits with node 2 as a voter while
 * another node is down (so node 2's new replica really votes).
 */
class RejoinClusterTest {
    @TempDir
    Path dir;

    static double gauge(SynodNode node, String name, int group) {
        return node.registry().get(name).tag("group", Integer.toString(group)).gauge().value();
    }

    /** {@code synod admin --connect SERVERS --certs CERTS ARGS}: exit status, out, err. */
    static String[] admin(LocalCluster cluster, String... args) throws Exception {
        java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of("admin", "--connect",
                cluster.clientAddressList(), "--certs", cluster.dir().resolve("certs").toString()));
        all.addAll(java.util.List.of(args));
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        int code = SynodCli.execute(all.toArray(String[]::new), new java.io.PrintWriter(out, true),
                new java.io.PrintWriter(err, true));
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    static void deleteTree(Path root) throws Exception {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    @Test
    @Timeout(240)
    void aWipedNodeStartsAsANewIncarnationAndIsAVoterOfEveryGroupAgain() throws Exception {
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, -1, -1,
                Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1");
        Map<String, byte[]> acknowledged = new LinkedHashMap<>();
        try (TestingServer zk = new TestingServer(spec, true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, 2, "rejoin",
                        Map.of("zookeeper.session.timeout.ms", "3000", "snapshot.every.slots", "20",
                                "log.retain.slots", "5"))) {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "a leader of every group");
            try (NodeClient client = cluster.client(21, 2_000)) {
                for (int i = 0; i < 60; i++) {
                    byte[] v = ("v" + i).getBytes(StandardCharsets.UTF_8);
                    assertEquals(ClientReply.Status.OK, client.put("k" + i, v, 30_000).status());
                    acknowledged.put("k" + i, v);
                }
                Path own = dir.resolve("node-2");
                UUID before = NodeIdentity.read(own).orElseThrow().incarnation();
                cluster.stop(2);
                deleteTree(own);
                for (int i = 60; i < 120; i++) { // written while node 2 is down: it must learn them
                    byte[] v = ("v" + i).getBytes(StandardCharsets.UTF_8);
                    assertEquals(ClientReply.Status.OK, client.put("k" + i, v, 30_000).status());
                    acknowledged.put("k" + i, v);
                }
                SynodNode again = cluster.start(2);
                UUID after = NodeIdentity.read(own).orElseThrow().incarnation();
                assertNotEquals(before, after, "a new incarnation");
                for (int g = 0; g < 2; g++) {
                    assertEquals(5, gauge(again, "synod.group.replica.id", g), "node 2's next replica id is 2 + 3");
                }
                long deadline = System.nanoTime() + 120_000_000_000L;
                boolean voter = false;
                while (!voter && System.nanoTime() < deadline) {
                    voter = true;
                    for (int g = 0; g < 2; g++) {
                        voter &= gauge(again, "synod.group.voter", g) == 1 && gauge(again, "synod.group.voters", g) == 3
                                && gauge(again, "synod.group.learners", g) == 0;
                    }
                    Thread.sleep(50);
                }
                assertTrue(voter, "node 2 votes again in every group (voters 3, no learner left)");
                // synod admin status: each group's leader names the ids, their nodes and incarnations, and progress.
                String[] status = admin(cluster, "status");
                assertEquals("0", status[0], status[2]);
                System.out.print("synod admin status after the re-join:\n" + status[1]);
                for (String want : new String[] {"group 0: leader replica", "group 1: leader replica",
                        "5 (node 2, incarnation " + after, "retired: 2 (node 2, incarnation " + before,
                        "0 (node 0, incarnation first"}) {
                    assertTrue(status[1].contains(want), "'" + want + "' in:\n" + status[1]);
                }
                // A removed id never returns (rule M7): refused with the rule, exit 1.
                String[] reuse = admin(cluster, "add-learner", "--group", "0", "--replica", "2");
                assertEquals("1", reuse[0], reuse[1] + reuse[2]);
                assertTrue(reuse[2].contains("was removed before"), reuse[2]);
            }
            // Node 2 alone holds every acknowledged write (stale reads answer from its local state).
            cluster.stop(0);
            try (NodeClient client = cluster.client(22, 2_000)) {
                for (Map.Entry<String, byte[]> e : acknowledged.entrySet()) {
                    NodeClient.Result r = client.get(e.getKey(), 60_000);
                    assertEquals(ClientReply.Status.OK, r.status(), e.getKey());
                    assertArrayEquals(e.getValue(), ((KvResult.Value) KvResult.decode(r.result())).value(), e.getKey());
                }
                // With node 0 down, a write needs node 2's new replica's vote: it is a voter, not a learner.
                assertEquals(ClientReply.Status.OK, client.put("after", new byte[] {1}, 60_000).status());
            }
        }
    }
}
