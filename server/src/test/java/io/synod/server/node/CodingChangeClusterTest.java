package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.client.BadRequestException;
import io.synod.client.BlockingSynodClient;
import io.synod.client.CodingChangeResult;
import io.synod.client.SynodClient;
import io.synod.core.paxos.Coding;
import io.synod.core.paxos.Entry;
import io.synod.server.log.NodeLog;
import io.synod.server.state.RocksKvStateMachine;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin path for coding changes on a real five-node cluster (RS-Paxos, Mu et al. 2014, §4 and §4.6): created
 * with {@code coding=5,1,3}, changed to 5,2,1 through the SDK while values are written, a follower stopped and
 * restarted on its disk, then every node restarted with its unchanged {@code coding=5,1,3} setting and ZooKeeper spec. Every
 * acknowledged value reads back byte-exact; every node's RocksDB and log show the coding came back from disk (new
 * large values are full copies, X = 1), and entries written before the change kept their X = 3 shards.
 */
class CodingChangeClusterTest {
    static final int THRESHOLD = 4096;
    static final int[] SIZES = {10, THRESHOLD - 1, THRESHOLD, 5_000, 65_536, 150_000};

    @TempDir
    Path dir;

    @Test
    @Timeout(400)
    void changeFrom513To521KeepsEveryValueThroughAFollowerRestartAndAFullRestart() throws Exception {
        Random random = new Random(29);
        Map<String, byte[]> acknowledged = new LinkedHashMap<>();
        long changeSlot;
        try (TestingServer zk = new TestingServer(true)) {
            try (LocalCluster cluster = cluster(zk, "5,1,3")) {
                cluster.startAll();
                assertTrue(cluster.awaitLeaders(60_000), "the group gets a leader");
                try (SynodClient async = sdk(cluster)) {
                    BlockingSynodClient client = async.blocking();
                    write(client, random, "before", acknowledged);

                    // Refusals name the rule; nothing is proposed.
                    BadRequestException broken =
                            assertThrows(BadRequestException.class, () -> client.changeCoding(0, 2, 3, 0));
                    assertTrue(broken.getMessage().contains("X <= N - 2F = 1"), broken.getMessage());
                    BadRequestException noGroup =
                            assertThrows(BadRequestException.class, () -> client.changeCoding(3, 2, 1, 0));
                    assertTrue(noGroup.getMessage().contains("group 3 does not exist"), noGroup.getMessage());

                    CodingChangeResult changed = client.changeCoding(0, 2, 1, 0);
                    changeSlot = changed.slot();
                    assertTrue(changeSlot > 0);
                    // N is the group's replica id space: one shard per id, 3 ids per node (docs/membership.md, rule M8).
                    assertTrue(changed.coding().contains("N=" + 5 * Rejoin.CODED_IDS_PER_NODE + ",F=2,X=1,threshold="
                            + THRESHOLD + "B"), changed.coding());
                    write(client, random, "after", acknowledged);

                    int leader = cluster.leaderOf(0);
                    int follower = (leader + 1) % 5;
                    cluster.stop(follower); // (a crashed node keeps its RocksDB lock in this process: stop, not crash)
                    write(client, random, "follower-down", acknowledged);
                    cluster.start(follower);
                    write(client, random, "follower-back", acknowledged);
                    readBack(client, acknowledged);
                    awaitApplied(cluster, acknowledged.size());
                }
                for (int node = 0; node < 5; node++) {
                    cluster.stop(node);
                }
                for (int node = 0; node < 5; node++) {
                    Path group = dir.resolve("node-" + node).resolve("group-0");
                    try (RocksKvStateMachine sm =
                            new RocksKvStateMachine(group.resolve("rocksdb"), group.resolve("snapshot"))) {
                        byte[] stored = sm.durableCoding();
                        assertNotNull(stored, "node " + node + " keeps the coding with its applied state");
                        ByteBuffer p = ByteBuffer.wrap(stored, 4, 16);
                        assertEquals(5 * Rejoin.CODED_IDS_PER_NODE, p.getInt());
                        assertEquals(2, p.getInt(), "node " + node + ": F after the change");
                        assertEquals(1, p.getInt(), "node " + node + ": X after the change");
                    }
                }
                // Entries keep the coding they were written with (section 4.6): shards of X = 3 before the change, full
                // copies after it.
                int[] logs = scanLogs(dir, changeSlot);
                assertTrue(logs[0] >= 5 * 4, "entries before the change kept their shards: " + logs[0]);
                assertTrue(logs[1] >= 5 * 4 * 3, "large values after the change are full copies: " + logs[1]);
                // Every node restarts with coding=5,1,3 (its setting and ZooKeeper's spec are unchanged).
                cluster.startAll();
                assertTrue(cluster.awaitLeaders(60_000), "a leader after the restart");
                try (SynodClient async = sdk(cluster)) {
                    BlockingSynodClient client = async.blocking();
                    readBack(client, acknowledged);
                    write(client, random, "restarted", acknowledged);
                    readBack(client, acknowledged);
                }
            }
            // After the restarts large values are full copies: a replica that came back with the creation-time 5,1,3
            // would have coded them with X = 3. (Each node's restart compacted its log through RocksDB's slot.)
            int restartedLarge = scanLogs(dir, changeSlot)[1];
            assertTrue(restartedLarge >= 5 * 4, "large values written after the restart are full copies: " + restartedLarge);
            // Every node restarts again, now with coding=5,2,1 in its configuration: it differs from ZooKeeper's spec
            // (still 5,1,3) only in F and X, so the nodes start (with the spec's coding, then their disks').
            try (LocalCluster cluster = cluster(zk, "5,2,1")) {
                cluster.startAll();
                assertTrue(cluster.awaitLeaders(60_000), "a leader with coding=5,2,1 in every node's file");
                try (SynodClient async = sdk(cluster)) {
                    BlockingSynodClient client = async.blocking();
                    write(client, random, "reconfigured", acknowledged);
                    readBack(client, acknowledged);
                }
            }
            assertTrue(scanLogs(dir, changeSlot)[1] >= restartedLarge, "still full copies after the second restart");
        }
    }

    private LocalCluster cluster(TestingServer zk, String coding) throws Exception {
        return new LocalCluster(new java.net.InetSocketAddress("127.0.0.1", zk.getPort()), dir, 5, 1, "recoding",
                Map.of("zookeeper.session.timeout.ms", "3000", "coding", coding, "coding.threshold.bytes",
                        Integer.toString(THRESHOLD), "snapshot.every.slots", "40"));
    }

    /**
     * Every node's log: entries at or below the change keep X = 3 if coded, entries after it are plain. Returns the
     * number of coded entries before the change and of large plain values after it.
     */
    private static int[] scanLogs(Path dir, long changeSlot) throws Exception {
        int codedBefore = 0;
        int largeAfter = 0;
        for (int node = 0; node < 5; node++) {
            Path logDir = dir.resolve("node-" + node).resolve("log");
            try (NodeLog log = NodeLog.open(logDir, 16 << 20)) {
                for (Entry e : log.recovery(0).entries().values()) {
                    if (e.command().isNoop() || Coding.isChange(e.command())) {
                        continue;
                    }
                    if (e.slot() > changeSlot) {
                        assertEquals(null, e.coded(), "node " + node + " slot " + e.slot() + " after the change is plain");
                        largeAfter += e.command().payload().length >= THRESHOLD ? 1 : 0;
                    } else if (e.coded() != null) {
                        assertEquals(3, e.coded().dataShards(), "node " + node + " slot " + e.slot() + " keeps X = 3");
                        codedBefore++;
                    }
                }
            }
        }
        return new int[] {codedBefore, largeAfter};
    }

    private static SynodClient sdk(LocalCluster cluster) throws Exception {
        return SynodClient.builder().servers(new ArrayList<>(cluster.clientAddresses().values()))
                .timeout(Duration.ofSeconds(60)).connectTimeout(Duration.ofSeconds(30)).tls(cluster.clientTls()).build();
    }

    private static void write(BlockingSynodClient client, Random random, String prefix, Map<String, byte[]> acknowledged) {
        for (int round = 0; round < 2; round++) {
            for (int size : SIZES) {
                byte[] value = new byte[size];
                random.nextBytes(value);
                String key = prefix + "-" + round + "-" + size;
                client.put(key, value);
                acknowledged.put(key, value);
            }
        }
    }

    private static void readBack(BlockingSynodClient client, Map<String, byte[]> acknowledged) {
        for (Map.Entry<String, byte[]> e : acknowledged.entrySet()) {
            assertArrayEquals(e.getValue(), client.get(e.getKey()).value(), e.getKey());
        }
    }

    /** Waits (bounded) until every running node applied as far as the leader, so a clean stop leaves no node behind. */
    private static void awaitApplied(LocalCluster cluster, int writes) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        int leader = cluster.leaderOf(0);
        long target = leader < 0 ? 0 : cluster.status(leader, 0).commitSlot();
        for (int node = 0; node < 5; node++) {
            while (cluster.status(node, 0).appliedSlot() < target && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        }
        assertTrue(target >= writes, "the leader committed every write: " + target);
    }
}
