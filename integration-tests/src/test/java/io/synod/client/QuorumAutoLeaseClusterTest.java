package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.check.CheckResult;
import io.synod.core.check.LinearizabilityChecker;
import io.synod.leases.LeaseConfiguration;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import io.synod.server.node.LocalCluster;
import io.synod.server.node.SynodNode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Quorum leases with configurations agreed through the log and assigned from read statistics
 * ({@code lease=quorum-auto}; Moraru et al., SoCC 2014, §3, §5; docs/leases.md rules C1–C5, A1–A3) on a
 * real 3-node cluster, with {@link QuorumLeaseClusterTest}'s harness. A follower that is asked for keys
 * the static assignment (version 0) does not give it becomes their holder through a configuration the
 * leader commits in the log, then answers them locally; every read of the run is checked for
 * linearizability; the other follower's refusals name the new holders; clients cannot write the
 * configuration's key; and the follower, killed and restarted on its data, reads the configuration back
 * from its RocksDB state. Every wait is for a state, bounded generously; no assertion bounds a duration.
 */
@Timeout(600)
class QuorumAutoLeaseClusterTest {
    private final QuorumLeaseClusterTest harness = new QuorumLeaseClusterTest();

    @AfterEach
    void stop() throws Exception {
        harness.stop();
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The holders a NOT_LEADER refusal names (bit i = node i), or -1 if it names none. */
    private static long holders(ClientFrame.Response r) {
        return r.result().length == Long.BYTES ? ByteBuffer.wrap(r.result()).getLong() : -1;
    }

    @Test
    void aFollowerBecomesTheHolderOfTheKeysItIsAskedForThroughTheLogAndKeepsTheConfigurationAcrossARestart()
            throws Exception {
        harness.start("quorum-auto", Map.of("zookeeper.session.timeout.ms", "3000", "lease", "quorum-auto", "lease.delta.ms",
                "2000", "lease.guard.ms", "800", "lease.renew.ms", "400", "lease.grace.ms", "800", "lease.auto.period.ms", "500",
                "lease.auto.min.reads", "20", "lease.auto.half.life.periods", "20"));
        LocalCluster cluster = harness.cluster;
        int leader = cluster.leaderOf(0);
        assertTrue(leader >= 0, "a leader");
        int reader = (leader + 1) % 3;
        int other = (leader + 2) % 3;
        long leaderBit = 1L << leader;
        long readerBit = 1L << reader;
        long otherBit = 1L << other;
        // Hot keys: held by the leader and the other follower under version 0, read through the reader.
        List<String> hot = QuorumLeaseClusterTest.keysHeldBy(leaderBit | otherBit, 3);
        // Cold key: the reader's under version 0, read only by this test's few probes (under min.reads).
        String cold = QuorumLeaseClusterTest.keysHeldBy(leaderBit | readerBit, 1).get(0);
        ClientFrame.Response v0 = harness.rawCommand(reader, new KvCommand.Get(hot.get(0)).encode());
        assertEquals(ClientReply.Status.NOT_LEADER.ordinal(), v0.status(), "version 0: the reader does not hold a hot key");
        assertEquals(leaderBit | otherBit, holders(v0), "version 0: the static hashed holders");

        SharedHistory history = new SharedHistory();
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger leaseReads = new AtomicInteger();
        AtomicInteger otherReads = new AtomicInteger();
        AtomicInteger writes = new AtomicInteger();
        String counts;
        try (SynodClient writer = SynodClient.builder().zookeeper(harness.zk.getConnectString()).cluster("quorum-auto")
                .timeout(Duration.ofSeconds(60)).tls(harness.cluster.clientTls()).build();
                SynodClient local = SynodClient.builder().zookeeper(harness.zk.getConnectString()).cluster("quorum-auto")
                        .timeout(Duration.ofSeconds(60)).readFrom(reader).tls(harness.cluster.clientTls()).build()) {
            // Clients cannot change the configuration's key (the state machine's validate refuses it).
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> writer.put(LeaseConfiguration.KEY, new byte[] {1}).get(60, TimeUnit.SECONDS));
            assertTrue(refused.getCause() instanceof BadRequestException
                    && refused.getCause().getMessage().contains("\\0synod/quorum-lease-config\" is reserved"),
                    String.valueOf(refused.getCause()));

            List<Thread> workers = new ArrayList<>();
            workers.add(new Thread(() -> {
                for (int i = 0; i < 3_000 && !done.get(); i++) {
                    String key = hot.get(i % hot.size());
                    int op = history.invokeAppend(0, key, 1_000_000L + i);
                    try {
                        writer.append(key, 1_000_000L + i).get(90, TimeUnit.SECONDS);
                        history.okAppend(op);
                        writes.incrementAndGet();
                    } catch (Exception e) {
                        history.info(op); // It may or may not have been applied.
                    }
                    pause(50); // Gaps between writes: a holder refuses a key while a write of it is pending.
                }
            }, "qa-writer"));
            for (int t = 0; t < 2; t++) {
                int process = 1 + t;
                workers.add(new Thread(() -> {
                    for (int i = 0; i < 10_000 && !done.get(); i++) {
                        String key = hot.get((process + i) % hot.size());
                        int op = history.invokeRead(process, key);
                        try {
                            ListResult r = local.readList(key).get(90, TimeUnit.SECONDS);
                            history.okRead(op, r.elements());
                            (r.servedBy() == ServedBy.LEASE ? leaseReads : otherReads).incrementAndGet();
                        } catch (Exception e) {
                            history.fail(op); // A read changes nothing.
                        }
                        pause(5);
                    }
                }, "qa-reader-" + t));
            }
            workers.forEach(Thread::start);
            // Wait for the state we need (the reader answering hot keys under its lease), however loaded the machine.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
            while (cluster.node(reader).readsByPath()[2] < 30 && System.nanoTime() < deadline
                    && workers.stream().anyMatch(Thread::isAlive)) {
                Thread.sleep(50);
            }
            done.set(true);
            for (Thread t : workers) {
                t.join(TimeUnit.SECONDS.toMillis(200));
            }
            long followerReads = cluster.node(reader).readsByPath()[2];
            GetResult stored = writer.get(LeaseConfiguration.KEY, Consistency.LOG).get(90, TimeUnit.SECONDS);
            CheckResult result = new LinearizabilityChecker().check(history.history());
            counts = "leader " + leader + ", reader " + reader + "; writes " + writes.get() + ", reads under a lease "
                    + leaseReads.get() + ", other reads " + otherReads.get() + "; reader's follower lease reads "
                    + followerReads + "; configuration version " + stored.version() + " (" + stored.value().length + " bytes)";
            System.out.println("quorum-auto test: " + counts + "; verdict " + result.verdict());
            for (Thread t : workers) {
                assertFalse(t.isAlive(), t.getName() + " finished: " + counts);
            }
            assertTrue(result.isLinearizable(), counts + ": " + result.explanation());
            assertTrue(stored.version() > 0, "a configuration was committed in the log (version = its slot): " + counts);
            assertTrue(followerReads > 0, "the reader answered keys that version 0 does not give it, under its lease: "
                    + counts);

            // The other follower's refusals name the holders of the configuration in force there (not version 0's).
            long named = -1;
            for (int probe = 0; probe < 60 && (named < 0 || (named & readerBit) == 0); probe++) {
                ClientFrame.Response r = harness.rawCommand(other, new KvCommand.Get(hot.get(0)).encode());
                named = r.status() == ClientReply.Status.NOT_LEADER.ordinal() ? holders(r) : -1;
                Thread.sleep(1000);
            }
            assertTrue(named >= 0 && (named & readerBit) != 0 && (named & otherBit) == 0,
                    "the other follower names the reader as a hot key's holder: " + Long.toBinaryString(named));

            // The reader is killed and restarts on its data: it reads the configuration back from RocksDB.
            Map<String, List<Long>> expected = new HashMap<>();
            for (String key : hot) {
                expected.put(key, QuorumLeaseClusterTest.toList(writer.readList(key, Consistency.LOG).get(90, TimeUnit.SECONDS)
                        .elements()));
            }
            SynodNode dead = cluster.node(reader);
            cluster.crash(reader);
            dead.close(); // What is left of the halted node (its RocksDB, logs): a dead process holds no files.
            cluster.start(reader);
            long coldHolders = -1;
            int probes = 0;
            for (; probes < 90 && coldHolders <= 0; probes++) {
                try {
                    ClientFrame.Response r = harness.rawCommand(reader, new KvCommand.Get(cold).encode());
                    assertFalse(r.status() == ClientReply.Status.OK.ordinal() && cluster.leaderOf(0) != reader,
                            "the restarted reader served a key only version 0 gives it");
                    coldHolders = r.status() == ClientReply.Status.NOT_LEADER.ordinal() ? holders(r) : -1;
                    assertTrue(coldHolders < 0 || (coldHolders & readerBit) == 0,
                            "the restarted reader names version 0's holders: " + Long.toBinaryString(coldHolders));
                } catch (java.io.IOException e) {
                    coldHolders = -1; // Not listening yet.
                }
                Thread.sleep(1000); // Slowly: every probe is a read the reader counts (kept under min.reads).
            }
            System.out.println("quorum-auto test: the restarted reader named the cold key's holders "
                    + Long.toBinaryString(coldHolders) + " after " + probes + " probes");
            assertTrue(coldHolders > 0, "the restarted reader knows the configuration in force: "
                    + Long.toBinaryString(coldHolders));

            // And it serves the hot keys under its lease again; no writer runs, so each read equals the log's list.
            int reads = 0;
            try (SynodClient near = SynodClient.builder().zookeeper(harness.zk.getConnectString()).cluster("quorum-auto")
                    .timeout(Duration.ofSeconds(60)).readFrom(reader).tls(harness.cluster.clientTls()).build()) {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
                while (cluster.node(reader).readsByPath()[2] == 0 && reads < 10_000 && System.nanoTime() < until) {
                    String key = hot.get(reads % hot.size());
                    ListResult r = near.readList(key).get(90, TimeUnit.SECONDS);
                    reads++;
                    assertEquals(expected.get(key), QuorumLeaseClusterTest.toList(r.elements()),
                            "read " + reads + " of " + key + " after the restart (" + r.servedBy() + ")");
                    Thread.sleep(10);
                }
            }
            System.out.println("quorum-auto test: the restarted reader served its first lease read after " + reads + " reads");
            assertTrue(cluster.node(reader).readsByPath()[2] > 0, "the restarted reader serves lease reads again: " + counts);
        }
    }
}
