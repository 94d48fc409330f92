package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.server.node.LocalCluster;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The SDK across a leader crash, and what STALE and LINEARIZABLE reads promise (3 nodes, 2 groups). */
@Timeout(240)
class SynodClientFailoverTest {
    Path dir;
    TestingServer zk;
    LocalCluster cluster;

    @BeforeEach
    void start() throws Exception {
        dir = Files.createTempDirectory("synod-sdk-failover");
        zk = new TestingServer(true);
        cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, 2, "fo",
                Map.of("zookeeper.session.timeout.ms", "3000", "metrics.port", "-1"));
        cluster.startAll();
        assertTrue(cluster.awaitLeaders(60_000), "every group gets a leader");
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        zk.close();
        try (var paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /**
     * Appends run from many lanes while the leader of the list's group is killed. Every acknowledged
     * append is in the list exactly once, and no append (acknowledged or with an unknown outcome) is
     * there twice: retries carried the same (client id, sequence), so the new leader applied each at
     * most once even when the old leader's log already held it.
     */
    @Test
    void retriesAcrossALeaderKillApplyEachAppendOnce() throws Exception {
        try (SynodClient client = SynodClient.builder().zookeeper(zk.getConnectString()).cluster("fo")
                .timeout(Duration.ofSeconds(60)).tls(cluster.clientTls()).build()) { // The failover's length must not turn retries into unknowns.
            String key = "list";
            int group = client.shardMap().groupFor(key.getBytes(StandardCharsets.UTF_8));
            int leader = cluster.leaderOf(group);
            Map<Long, CompletableFuture<WriteResult>> appends = new HashMap<>();
            for (long e = 1; e <= 300; e++) {
                appends.put(e, client.append(key, e));
                if (e == 150) {
                    cluster.crash(leader); // Mid-stream: some appends are in the dead leader's log, uncommitted.
                }
            }
            List<Long> acknowledged = new ArrayList<>();
            int unknown = 0;
            for (Map.Entry<Long, CompletableFuture<WriteResult>> a : appends.entrySet()) {
                try {
                    a.getValue().join();
                    acknowledged.add(a.getKey());
                } catch (CompletionException e) {
                    assertInstanceOf(OutcomeUnknownException.class, e.getCause(), "only an unknown outcome may fail");
                    unknown++;
                }
            }
            long[] list = client.readList(key).join().elements();
            Map<Long, Integer> counts = new HashMap<>();
            for (long e : list) {
                counts.merge(e, 1, Integer::sum);
            }
            for (Map.Entry<Long, Integer> c : counts.entrySet()) {
                assertEquals(1, c.getValue(), "element " + c.getKey() + " applied once");
            }
            for (long e : acknowledged) {
                assertTrue(counts.containsKey(e), "acknowledged append " + e + " is in the list");
            }
            assertTrue(acknowledged.size() >= 250, "most appends succeed across the failover: " + acknowledged.size()
                    + " acknowledged, " + unknown + " unknown");
            assertTrue(cluster.leaderOf(group) != leader && cluster.leaderOf(group) >= 0, "a new leader serves the group");
        }
    }

    /**
     * STALE reads are answered by whichever replica receives them, leader or not, from its local state;
     * LINEARIZABLE reads only by the leader. A client that can reach one follower only gets STALE answers
     * from it (each naming the slot it reflects); its linearizable reads are the leader's, forwarded by the
     * follower (server-side forwarding, docs/nemesis.md).
     */
    @Test
    void staleReadsComeFromAnyReplicaLinearizableOnlyFromTheLeader() throws Exception {
        try (SynodClient all = SynodClient.builder().servers(cluster.clientAddressList()).tls(cluster.clientTls()).build()) {
            String key = "k";
            int group = all.shardMap().groupFor(key.getBytes(StandardCharsets.UTF_8));
            WriteResult first = all.put(key, "v1").join();
            int leader = cluster.leaderOf(group);
            int follower = (leader + 1) % 3;
            InetSocketAddress f = cluster.clientAddresses().get(follower);
            try (SynodClient onlyFollower = SynodClient.builder().servers(List.of(f)).timeout(Duration.ofSeconds(2))
                    .backoff(Duration.ofMillis(10), Duration.ofMillis(100)).tls(cluster.clientTls()).build()) {
                GetResult stale = waitForStale(onlyFollower, key, first.slot());
                assertEquals("v1", stale.valueUtf8());
                // A follower never answers a linearizable read from its own state: it names the leader, and once the
                // client (which knows no other server) retries with the forward flag, it forwards the read there.
                GetResult linearizable = onlyFollower.get(key, Consistency.LINEARIZABLE).join();
                assertEquals("v1", linearizable.valueUtf8());
                assertTrue(linearizable.slot() >= first.slot(), "the leader's answer, through the follower");
                assertTrue(cluster.node(follower).forwardedCommands() >= 1, "forwarded, not answered locally");

                // The follower restarts on its disk while the key moves on: its STALE answers may be old, but each
                // names the slot it reflects, and the value matches that slot; LINEARIZABLE reads are never old.
                cluster.stop(follower);
                WriteResult second = all.put(key, "v2").join();
                cluster.start(follower);
                assertEquals("v2", all.get(key).join().valueUtf8());
                assertTrue(all.get(key).join().slot() >= second.slot());
                GetResult after = waitForStale(onlyFollower, key, 0);
                // A restarted replica rebuilds its state from its log, so it may even answer from before the first put.
                String asOfSlot = after.slot() >= second.slot() ? "v2" : after.slot() >= first.slot() ? "v1" : null;
                assertEquals(asOfSlot, after.valueUtf8(), "an old answer is the value as of its slot " + after.slot());
                GetResult caughtUp = waitForStale(onlyFollower, key, second.slot());
                assertEquals("v2", caughtUp.valueUtf8());
                assertEquals(second.slot(), caughtUp.version());
            }
        }
    }

    /** Polls STALE reads until one reflects at least {@code slot} (a follower applies commits a heartbeat later). */
    private static GetResult waitForStale(SynodClient client, String key, long slot) throws InterruptedException {
        long deadline = System.nanoTime() + 90_000_000_000L; // A restarted follower catches up slowly on a loaded machine.
        while (true) {
            try {
                GetResult r = client.get(key, Consistency.STALE).join();
                if (r.slot() >= slot || System.nanoTime() > deadline) {
                    return r;
                }
            } catch (CompletionException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
            Thread.sleep(20);
        }
    }
}
