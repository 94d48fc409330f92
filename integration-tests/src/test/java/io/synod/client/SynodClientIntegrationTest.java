package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.server.node.LocalCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** The SDK against a real in-process cluster: 3 Synod nodes, 4 groups, a real ZooKeeper server. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
class SynodClientIntegrationTest {
    private RealCluster real;
    TestingServer zk;
    LocalCluster cluster;
    SynodClient client;

    @BeforeAll
    void start() throws Exception {
        real = RealCluster.start("sdk", 3, 4, Map.of("zookeeper.session.timeout.ms", "3000", "metrics.port", "-1"));
        zk = real.zk;
        cluster = real.cluster;
        client = SynodClient.builder().zookeeper(zk.getConnectString()).cluster("sdk").timeout(Duration.ofSeconds(20))
                .tls(cluster.clientTls()).build();
    }

    @AfterAll
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (real != null) {
            real.close();
        }
    }

    @Test
    void everyCallOfTheAsyncApi() {
        WriteResult put = client.put("alpha", "one").join();
        assertTrue(put.slot() > 0);
        GetResult got = client.get("alpha").join();
        assertEquals("one", got.valueUtf8());
        assertEquals(put.slot(), got.version(), "a key's version is the slot of its last write");
        assertTrue(got.slot() >= put.slot(), "a linearizable read reflects the write before it");

        assertFalse(client.compareAndSet("alpha", "nope", "two").join().swapped());
        CasResult cas = client.compareAndSet("alpha", "one", "two").join();
        assertTrue(cas.swapped());
        assertEquals("two", client.get("alpha").join().valueUtf8());

        assertFalse(client.compareAndSetVersion("alpha", put.slot(), bytes("three")).join().swapped(),
                "the version moved with the compare-and-set");
        assertTrue(client.compareAndSetVersion("alpha", cas.slot(), bytes("three")).join().swapped());
        assertTrue(client.compareAndSetVersion("fresh-key", 0, bytes("x")).join().swapped(), "0 expects absence");
        assertFalse(client.compareAndSetVersion("fresh-key", 0, bytes("y")).join().swapped());

        client.delete("alpha").join();
        GetResult gone = client.get("alpha").join();
        assertNull(gone.value());
        assertEquals(0, gone.version());

        client.append("list", 1).join();
        client.append("list", 2).join();
        assertArrayEquals(new long[] {1, 2}, client.readList("list").join().elements());
        CompletionException wrongType = assertThrows(CompletionException.class, () -> client.get("list").join());
        assertTrue(wrongType.getCause() instanceof BadRequestException, wrongType.getCause().toString());
    }

    @Test
    void badKeysAndValuesFailWithTypedExceptions() {
        CompletionException empty = assertThrows(CompletionException.class, () -> client.put("", "v").join());
        assertTrue(empty.getCause() instanceof InvalidKeyException);
        CompletionException big = assertThrows(CompletionException.class,
                () -> client.put("big", new byte[(1 << 20) + 1]).join());
        assertTrue(big.getCause() instanceof ValueTooLargeException);
        assertThrows(InvalidKeyException.class, () -> client.blocking().get("k".repeat(2000)));
    }

    @Test
    void scanWalksEveryGroupInKeyOrder() {
        // Keys starting with each printable character land in all four groups (ShardMap.uniform).
        List<String> keys = new ArrayList<>();
        for (char c : new char[] {'A', 'M', 'a', 'm', 'x', '0', '~'}) {
            for (int i = 0; i < 3; i++) {
                keys.add("scan" + c + i);
                keys.add(c + "scan" + i);
            }
        }
        List<CompletableFuture<WriteResult>> writes = new ArrayList<>();
        for (String k : keys) {
            writes.add(client.put(k, "v-" + k));
        }
        writes.forEach(CompletableFuture::join);
        Set<Integer> groups = keys.stream().map(k -> client.shardMap().groupFor(bytes(k))).collect(Collectors.toSet());
        assertEquals(4, groups.size(), "the keys cover all four groups");

        List<String> expected = keys.stream().sorted().toList();
        ScanResult all = client.scan("", "", 1000).join();
        List<String> seen = all.entries().stream().map(KeyValue::key).filter(keys::contains).toList();
        assertEquals(expected, seen, "one scan across four groups returns every key, in order");
        for (KeyValue kv : all.entries()) {
            if (keys.contains(kv.key())) {
                assertEquals("v-" + kv.key(), kv.valueUtf8());
                assertTrue(kv.version() > 0);
            }
        }
        ScanResult page = client.scan("0", "", 5).join();
        assertEquals(5, page.entries().size());
        assertTrue(page.more());
        ScanResult range = client.scan("scanA", "scanN", 100).join();
        assertEquals(keys.stream().filter(k -> k.compareTo("scanA") >= 0 && k.compareTo("scanN") < 0).sorted().toList(),
                range.entries().stream().map(KeyValue::key).toList());
    }

    @Test
    void pipelinesManyRequestsAndRoutesByShard() {
        long[] commitBefore = new long[4];
        int[] routed = new int[4];
        for (int g = 0; g < 4; g++) {
            commitBefore[g] = cluster.status(cluster.leaderOf(g), g).commitSlot();
        }
        for (int i = 0; i < 500; i++) {
            routed[client.shardMap().groupFor(bytes((char) ('!' + i % 90) + "pipe" + i))]++;
        }
        List<CompletableFuture<WriteResult>> futures = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            futures.add(client.put((char) ('!' + i % 90) + "pipe" + i, "v" + i));
        }
        Set<Long> slots = new HashSet<>();
        for (CompletableFuture<WriteResult> f : futures) {
            slots.add(f.join().slot());
        }
        for (int i = 0; i < 500; i++) {
            assertEquals("v" + i, client.get((char) ('!' + i % 90) + "pipe" + i).join().valueUtf8());
        }
        assertTrue(client.lanesCreated() > 1, "requests were in flight at once");
        for (int g = 0; g < 4; g++) {
            assertTrue(routed[g] > 0, "group " + g + " owns some of the keys");
            long grew = cluster.status(cluster.leaderOf(g), g).commitSlot() - commitBefore[g];
            assertTrue(grew >= 2L * routed[g], "group " + g + " logged its " + routed[g] + " puts and gets (" + grew + ")");
        }
    }

    @Test
    void clientFromServerAddressesLearnsTheShardMap() throws Exception {
        String servers = cluster.clientAddressList();
        try (SynodClient byServers = SynodClient.builder().connect(servers).tls(cluster.clientTls()).build()) {
            assertEquals(client.shardMap(), byServers.shardMap());
            byServers.put("via-servers", "yes").join();
            assertEquals("yes", client.get("via-servers").join().valueUtf8());
            assertEquals("yes", byServers.blocking().get("via-servers").valueUtf8());
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
