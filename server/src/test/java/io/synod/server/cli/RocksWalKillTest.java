package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.client.KeyEntry;
import io.synod.client.SynodClient;
import io.synod.client.SynodSession;
import io.synod.client.TlsFiles;
import io.synod.core.paxos.Role;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvResult;
import io.synod.server.client.NodeClient;
import io.synod.server.state.RocksKvStore;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * RocksDB runs without its write-ahead log ({@link RocksKvStore}): after a kill -9 a replica's database falls back to
 * its last flush, and the replica re-applies the Paxos log from the applied slot stored in that flush. On real
 * processes (ZooKeeper and three servers started by {@code synod cluster start}), while a client writes without
 * pause, every server is killed -9 at once, so that no replica keeps what its memtable held, and restarted; three
 * rounds, with snapshots (checkpoints, after which the log is compacted) every 100 slots, so that kills fall between
 * compactions. After each restart: every acknowledged write reads back with its value; a live session's ephemeral key
 * is still there and still its own; a revoked session's key is still gone (the session table rolls back and is
 * re-applied with the data). Between kill and restart the test opens each database as a restart would and records how
 * far the newest of them fell behind the slot of the last acknowledged write, so that it shows the re-apply path ran.
 */
class RocksWalKillTest {
    private static final int ROUNDS = 3;
    /** Acknowledged writes in a round before the kill: enough that the kill lands while entries are being applied. */
    private static final int WRITES_BEFORE_KILL = 150;
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private final Map<String, byte[]> acknowledged = new ConcurrentHashMap<>();
    private Thread writer;
    private final AtomicBoolean stopWriting = new AtomicBoolean();
    /** Set while the test reads everything back, so that the set to check stops growing meanwhile. */
    private final AtomicBoolean pauseWriting = new AtomicBoolean();
    private final AtomicLong lastAcknowledgedSlot = new AtomicLong();

    /** If this JVM is stopped mid-test, the cluster's processes go with it. */
    private final Thread reaper = new Thread(() -> ClusterTestProcesses.destroyAll(dir));

    @BeforeEach
    void armReaper() {
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    @AfterEach
    void stopEverything() throws Exception {
        stopWriting.set(true);
        if (writer != null) {
            writer.join(TimeUnit.SECONDS.toMillis(30));
        }
        Runtime.getRuntime().removeShutdownHook(reaper);
        if (Files.exists(ClusterFile.path(dir))) {
            run("cluster", "stop", "--dir", dir.toString());
            ClusterTestProcesses.destroyAll(dir);
        }
    }

    @Test
    @Timeout(600)
    void everyAcknowledgedWriteAndTheSessionTableSurviveKillingEveryServerUnderLoad() throws Exception {
        String[] start = run("cluster", "start", "--nodes", "3", "--groups", "1", "--dir", dir.toString(),
                "--session-timeout-ms", "3000", "--set", "snapshot.every.slots=100", "--set", "log.retain.slots=10",
                "--timeout-s", "120");
        assertEquals("0", start[0], start[1] + start[2]);
        ClusterFile file = ClusterFile.read(dir);
        Map<Integer, InetSocketAddress> endpoints = new TreeMap<>();
        for (ClusterFile.NodeEntry n : file.nodes()) {
            endpoints.put(n.id(), new InetSocketAddress("127.0.0.1", n.clientPort()));
        }
        TlsFiles tls = ClusterCommand.clientTls(dir, file);
        try (SynodClient sdk = SynodClient.builder().servers(new ArrayList<>(endpoints.values())).tls(tls)
                .timeout(WAIT).build(); NodeClient reader = new NodeClient(endpoints, 8, 2_000, 1 << 20, tls)) {
            SynodSession live = sdk.grantSession(Duration.ofMinutes(30)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(sdk.createEphemeral(live, "wal-live", bytes("live")).get(WAIT.toSeconds(), TimeUnit.SECONDS).created());
            SynodSession revoked = sdk.grantSession(Duration.ofMinutes(30)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(sdk.createEphemeral(revoked, "wal-revoked", bytes("revoked")).get(WAIT.toSeconds(), TimeUnit.SECONDS).created());
            assertTrue(sdk.revokeSession(revoked.id()).get(WAIT.toSeconds(), TimeUnit.SECONDS));

            writer = new Thread(() -> writeUntilStopped(endpoints, tls), "wal-kill-writer");
            writer.start();
            long rolledBack = 0;
            for (int round = 1; round <= ROUNDS; round++) {
                awaitAcknowledged(acknowledged.size() + WRITES_BEFORE_KILL);
                for (ClusterFile.NodeEntry n : file.nodes()) {
                    assertEquals("0", run("cluster", "kill", Integer.toString(n.id()), "--dir", dir.toString())[0]);
                }
                int killedAt = acknowledged.size();
                // The leader applied every acknowledged write before answering it: if no database holds the slot of
                // the last one, every replica fell back behind it and re-applies.
                long newestDurable = 0;
                for (ClusterFile.NodeEntry n : file.nodes()) {
                    long durable = durableAppliedSlot(n.id());
                    newestDurable = Math.max(newestDurable, durable);
                    System.out.printf("round %d: node %d's RocksDB holds slot %d; the last acknowledged write was applied at %d%n",
                            round, n.id(), durable, lastAcknowledgedSlot.get());
                }
                rolledBack += Math.max(0, lastAcknowledgedSlot.get() - newestDurable);
                // The three come back at once, as after a power cut (`cluster restart` would start one JVM and wait
                // for its port before the next): each on its data, recorded in the cluster file; then every port.
                for (ClusterFile.NodeEntry n : ClusterFile.read(dir).nodes()) {
                    ClusterCommand.restartNode(dir, ClusterFile.read(dir), n, List.of());
                }
                for (ClusterFile.NodeEntry n : file.nodes()) {
                    ClusterCommand.awaitPort(n.clientPort(), 60_000, "node " + n.id());
                }
                awaitLeader(endpoints, tls);
                // Writes go on after the restart (the replicas re-applied and serve), then everything is checked.
                awaitAcknowledged(killedAt + 20);
                System.out.printf("round %d: killed all servers after %d acknowledged writes%n", round, killedAt);
                pauseWriting.set(true);
                checkEveryAcknowledgedWrite(reader);
                KeyEntry liveKey = sdk.getEntry("wal-live").get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertTrue(liveKey.exists(), "the live session's key survives round " + round);
                assertEquals(live.id(), liveKey.ownerSession(), "and is still the live session's");
                assertFalse(sdk.getEntry("wal-revoked").get(WAIT.toSeconds(), TimeUnit.SECONDS).exists(),
                        "the revoked session's key stays deleted in round " + round);
                pauseWriting.set(false);
            }
            // What makes this test about the WAL-less path: some replica's database did fall back behind what it had
            // applied (its memtable died with it), and the checks above passed on re-applied state.
            assertTrue(rolledBack > 0, "no kill left every database behind the last acknowledged write: the re-apply path was not exercised");
            stopWriting.set(true);
            writer.join(WAIT.toMillis());
            assertFalse(writer.isAlive(), "the writer stops");
            checkEveryAcknowledgedWrite(reader);
            live.close();
        }
    }

    /** Writes distinct keys one at a time; a write whose outcome is unknown (servers killed) is simply not acknowledged. */
    private void writeUntilStopped(Map<Integer, InetSocketAddress> endpoints, TlsFiles tls) {
        try (NodeClient client = new NodeClient(endpoints, 7, 2_000, 1 << 20, tls)) {
            for (int i = 0; !stopWriting.get(); i++) {
                if (pauseWriting.get()) {
                    pause();
                    continue;
                }
                String key = "k-" + i;
                byte[] value = bytes("v-" + i);
                try {
                    NodeClient.Result result = client.put(key, value, 3_000);
                    if (result.status() == ClientReply.Status.OK) {
                        acknowledged.put(key, value);
                        lastAcknowledgedSlot.accumulateAndGet(result.slot(), Math::max);
                    }
                } catch (IOException e) {
                    // Servers down: this write's outcome is unknown; the next one is tried.
                }
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The applied slot RocksDB of node {@code id} (down) opens with: its last flush, since the WAL is off. */
    private long durableAppliedSlot(int id) throws IOException {
        Path group = dir.resolve("node-" + id).resolve("data").resolve("group-0");
        try (RocksKvStore store = new RocksKvStore(group.resolve("rocksdb"), group.resolve("snapshot"))) {
            return store.appliedSlot();
        }
    }

    private void awaitAcknowledged(int count) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (acknowledged.size() < count) {
            assertTrue(System.nanoTime() - deadline < 0, "only " + acknowledged.size() + " of " + count + " writes acknowledged");
            assertTrue(writer.isAlive(), "the writer died");
            Thread.sleep(20);
        }
    }

    /** {@code reader}: one client for every check (a client id's sequence numbers are used once). */
    private void checkEveryAcknowledgedWrite(NodeClient reader) throws IOException {
        List<Map.Entry<String, byte[]>> snapshot = new ArrayList<>(acknowledged.entrySet());
        for (Map.Entry<String, byte[]> e : snapshot) {
            NodeClient.Result r = reader.get(e.getKey(), WAIT.toMillis());
            assertEquals(ClientReply.Status.OK, r.status(), e.getKey());
            KvResult result = KvResult.decode(r.result());
            assertTrue(result instanceof KvResult.Value, e.getKey() + " is missing: " + result);
            assertArrayEquals(e.getValue(), ((KvResult.Value) result).value(), e.getKey());
        }
        System.out.printf("%d acknowledged writes read back with their values%n", snapshot.size());
    }

    private static void awaitLeader(Map<Integer, InetSocketAddress> endpoints, TlsFiles tls) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            for (InetSocketAddress address : endpoints.values()) {
                try {
                    if (NodeClient.status(address, 2_000, 1 << 20, tls).groups().get(0).role() == Role.LEADER.ordinal()) {
                        return;
                    }
                } catch (IOException e) {
                    // Still starting.
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no leader within " + WAIT + " after the restart");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String[] run(String... args) {
        return ClusterProcessesTest.run(args);
    }
}
