package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.check.CheckResult;
import io.synod.core.check.LinearizabilityChecker;
import io.synod.leases.KeyAssignment;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientFrameCodec;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import io.synod.server.node.SynodNode;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Quorum leases (Moraru et al., SoCC 2014, §3) on a real 3-node cluster (127.0.0.1, one group,
 * ZooKeeper from Curator's TestingServer), through the SDK with {@code readFrom(follower)}: the
 * follower answers LINEARIZABLE reads of the keys it holds from its own state (counted by its
 * {@code synod.reads{path=lease,role=follower}} counter), every read of the whole history is
 * linearizable while a writer appends, and after the other follower is killed (ZooKeeper link cut,
 * process halted) writes to the keys it held resume once its leases run out (§3.8), the follower
 * keeps reading with the leader's promise alone, and no acknowledged append is lost. No assertion
 * bounds how long anything takes.
 */
@Timeout(300)
class QuorumLeaseClusterTest extends OneGroupClusterTest {
    /** One client command sent to node {@code node} over a bare (TLS) socket, and its answer. */
    ClientFrame.Response rawCommand(int node, byte[] payload) throws Exception {
        try (Socket socket = cluster.clientTls().jdkClientContext().getSocketFactory().createSocket()) {
            socket.connect(cluster.clientAddresses().get(node), 30_000);
            socket.setSoTimeout(60_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] body = ClientFrameCodec.encode(new ClientFrame.Command(1, 4242, 1, payload));
            out.writeInt(body.length);
            out.write(body);
            out.flush();
            byte[] reply = new byte[in.readInt()];
            in.readFully(reply);
            return (ClientFrame.Response) ClientFrameCodec.decode(reply);
        }
    }

    /** The first {@code count} keys "q0", "q1", ... whose lease holders (static hashed assignment) are exactly {@code holders}. */
    static List<String> keysHeldBy(long holders, int count) {
        List<String> out = new ArrayList<>();
        for (int i = 0; out.size() < count && i < 10_000; i++) {
            String key = "q" + i;
            if (KeyAssignment.HASHED_MAJORITY.holders(key, 3) == holders) {
                out.add(key);
            }
        }
        assertEquals(count, out.size(), "keys held by " + Long.toBinaryString(holders));
        return out;
    }

    @Test
    void aFollowerServesItsKeysLocallyAndWritesResumeAfterAnotherFollowerDies() throws Exception {
        long leaseMillis = 2000;
        long guardMillis = 800;
        long graceMillis = 800;
        start("quorum-lease", Map.of("zookeeper.session.timeout.ms", "3000", "lease", "quorum", "lease.delta.ms",
                Long.toString(leaseMillis), "lease.drift.ppm", "10000", "lease.guard.ms", Long.toString(guardMillis),
                "lease.renew.ms", "400", "lease.grace.ms", Long.toString(graceMillis)));
        int leader = cluster.leaderOf(0);
        assertTrue(leader >= 0, "a leader");
        int reader = (leader + 1) % 3;
        int victim = (leader + 2) % 3;
        // Keys the reading follower holds with the leader, with the victim, and keys it does not hold.
        List<String> withLeader = keysHeldBy((1L << reader) | (1L << leader), 2);
        List<String> withVictim = keysHeldBy((1L << reader) | (1L << victim), 2);
        List<String> notHeld = keysHeldBy((1L << leader) | (1L << victim), 1);
        List<String> keys = new ArrayList<>(withLeader);
        keys.addAll(withVictim);
        keys.addAll(notHeld);
        // A read of a key the follower does not hold is refused, and the refusal names the key's holders.
        ClientFrame.Response refusal = rawCommand(reader, new KvCommand.Get(notHeld.get(0)).encode());
        assertEquals(ClientReply.Status.NOT_LEADER.ordinal(), refusal.status(), "a read of a key the follower does not hold");
        assertEquals((1L << leader) | (1L << victim), ByteBuffer.wrap(refusal.result()).getLong(),
                "the refusal names the key's lease holders");

        SharedHistory history = new SharedHistory();
        int readers = 3;
        int readsPerThread = 200;
        int writes = 150;
        AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
        AtomicLong firstVictimKeyWriteAfterKill = new AtomicLong(-1);
        AtomicLong longestWrite = new AtomicLong();
        AtomicInteger leaseReadsBefore = new AtomicInteger();
        AtomicInteger leaseReadsAfter = new AtomicInteger();
        AtomicInteger otherReads = new AtomicInteger();
        AtomicInteger writesAfterKill = new AtomicInteger();
        AtomicInteger writesDone = new AtomicInteger();
        Map<String, Set<Long>> acknowledged = new ConcurrentHashMap<>();
        try (SynodClient writer = SynodClient.builder().zookeeper(zk.getConnectString()).cluster("quorum-lease")
                .timeout(Duration.ofSeconds(60)).tls(cluster.clientTls()).build();
                SynodClient local = SynodClient.builder().zookeeper(zk.getConnectString()).cluster("quorum-lease")
                        .timeout(Duration.ofSeconds(60)).readFrom(reader).tls(cluster.clientTls()).build()) {
            // The follower holds its leases once promises came back (t_guard at most); on a loaded machine that can
            // take longer than the first half of the writes. Wait for it (bounded) before the workload starts.
            long warmUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (cluster.node(reader).readsByPath()[2] == 0 && System.nanoTime() < warmUntil) {
                int op = history.invokeRead(1, withLeader.get(0));
                ListResult r = local.readList(withLeader.get(0)).get(90, TimeUnit.SECONDS);
                history.okRead(op, r.elements());
                Thread.sleep(20);
            }
            long followerReadsAtStart = cluster.node(reader).readsByPath()[2];
            assertTrue(followerReadsAtStart > 0, "the follower took its leases within 60 s");
            List<Thread> workers = new ArrayList<>();
            Thread w = new Thread(() -> {
                for (int i = 0; i < writes; i++) {
                    String key = keys.get(i % keys.size());
                    long value = 1_000_000L + i;
                    long sent = System.nanoTime();
                    if (history.append(0, writer, key, value)) {
                        longestWrite.accumulateAndGet(System.nanoTime() - sent, Math::max);
                        acknowledged.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(value);
                        if (sent > killedAt.get()) {
                            long now = System.nanoTime();
                            writesAfterKill.incrementAndGet();
                            if (withVictim.contains(key)) {
                                firstVictimKeyWriteAfterKill.compareAndSet(-1, now);
                            }
                        }
                    }
                    writesDone.incrementAndGet();
                }
            }, "ql-writer");
            workers.add(w);
            for (int t = 0; t < readers; t++) {
                int process = 1 + t;
                Thread r = new Thread(() -> {
                    // At least readsPerThread reads, then on while the writer runs (so some follow the kill), bounded.
                    for (int i = 0; i < 5 * readsPerThread && (i < readsPerThread || writesDone.get() < writes); i++) {
                        String key = keys.get((process + i) % keys.size());
                        int op = history.invokeRead(process, key);
                        long sent = System.nanoTime();
                        try {
                            ListResult res = local.readList(key).get(90, TimeUnit.SECONDS);
                            history.okRead(op, res.elements());
                            if (res.servedBy() == ServedBy.LEASE) {
                                (sent > killedAt.get() ? leaseReadsAfter : leaseReadsBefore).incrementAndGet();
                            } else {
                                otherReads.incrementAndGet();
                            }
                        } catch (Exception e) {
                            history.fail(op); // A read changes nothing.
                        }
                    }
                }, "ql-reader-" + t);
                workers.add(r);
            }
            workers.forEach(Thread::start);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while ((writesDone.get() < writes / 2 || cluster.node(reader).readsByPath()[2] == followerReadsAtStart)
                    && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            long followerReadsBefore = cluster.node(reader).readsByPath()[2];
            SynodNode dead = cluster.node(victim);
            cluster.crash(victim);
            killedAt.set(System.nanoTime()); // Once crash() returned: the victim's loop has stopped.
            for (Thread t : workers) {
                t.join(TimeUnit.SECONDS.toMillis(200));
            }
            long followerReads = cluster.node(reader).readsByPath()[2];

            CheckResult result = new LinearizabilityChecker().check(history.history());
            String counts = "leader " + leader + ", reader " + reader + ", killed " + victim + "; lease reads before the "
                    + "kill " + leaseReadsBefore.get() + ", after " + leaseReadsAfter.get() + ", other reads "
                    + otherReads.get() + "; follower counter " + followerReadsBefore + " before the kill, " + followerReads
                    + " at the end; writes acknowledged after the kill " + writesAfterKill.get()
                    + "; first write of a key the killed follower held acknowledged "
                    + (firstVictimKeyWriteAfterKill.get() < 0 ? "never"
                            : (firstVictimKeyWriteAfterKill.get() - killedAt.get()) / 1_000_000 + " ms after the kill")
                    + ", longest write " + longestWrite.get() / 1_000_000 + " ms"
                    + " (t_grace + t_guard + t_lease(1+ε) = " + (graceMillis + guardMillis + leaseMillis * 101 / 100)
                    + " ms)";
            System.out.println("quorum lease test: " + counts + "; verdict " + result.verdict());
            assertTrue(result.isLinearizable(), counts + ": " + result.explanation());
            for (Thread t : workers) {
                assertTrue(!t.isAlive(), t.getName() + " finished: " + counts);
            }
            assertTrue(followerReadsBefore > followerReadsAtStart, "the follower served reads under its quorum lease: "
                    + counts);
            assertTrue(followerReads > followerReadsBefore,
                    "the follower kept serving reads with the leader's promise alone: " + counts);
            assertTrue(firstVictimKeyWriteAfterKill.get() > 0,
                    "writes to keys the killed follower held resumed: " + counts);

            // Nothing acknowledged was lost: a read through the log of every key holds every acknowledged append.
            Map<String, List<Long>> found = new HashMap<>();
            for (String key : keys) {
                ListResult r = writer.readList(key, Consistency.LOG).get(90, TimeUnit.SECONDS);
                found.put(key, toList(r.elements()));
                Set<Long> missing = new TreeSet<>(acknowledged.getOrDefault(key, Set.of()));
                missing.removeAll(found.get(key));
                assertTrue(missing.isEmpty(), "acknowledged appends to " + key + " lost: " + missing);
            }

            // The killed follower restarts on its data (it starts bound to every holder for t_lease(1+ε): rule 7)
            // and, once caught up and promised, serves its keys again. No writer runs now, so every read must
            // equal the log's list plus one append made after the restart.
            dead.close(); // What is left of the halted node (its RocksDB, logs): a dead process holds no files.
            cluster.start(victim);
            String key = withVictim.get(0);
            writer.append(key, 9_000_000L).get(90, TimeUnit.SECONDS);
            List<Long> expected = new ArrayList<>(found.get(key));
            expected.add(9_000_000L);
            int reads = 0;
            try (SynodClient near = SynodClient.builder().zookeeper(zk.getConnectString()).cluster("quorum-lease")
                    .timeout(Duration.ofSeconds(60)).readFrom(victim).tls(cluster.clientTls()).build()) {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (cluster.node(victim).readsByPath()[2] == 0 && reads < 5_000 && System.nanoTime() < until) {
                    ListResult r = near.readList(key).get(90, TimeUnit.SECONDS);
                    reads++;
                    assertEquals(expected, toList(r.elements()), "read " + reads + " after the restart (" + r.servedBy() + ")");
                    Thread.sleep(10);
                }
            }
            System.out.println("quorum lease test: the restarted follower served its first lease read after " + reads
                    + " reads");
            assertTrue(cluster.node(victim).readsByPath()[2] > 0, "the restarted follower serves lease reads again");
        }
    }

    static List<Long> toList(long[] elements) {
        List<Long> out = new ArrayList<>(elements.length);
        for (long e : elements) {
            out.add(e);
        }
        return out;
    }

    /**
     * Megastore leases ({@code lease=megastore}: every replica holds every key, writes wait for all):
     * a follower serves reads of every key locally, and a reader alternating with a writer on one key
     * always sees the writes acknowledged before it asked (a strict check per read, plus the checker).
     */
    @Test
    void megastoreFollowersServeEveryKeyAndSeeEveryAcknowledgedWrite() throws Exception {
        start("megastore-lease", Map.of("zookeeper.session.timeout.ms", "3000", "lease", "megastore", "lease.delta.ms",
                "2000", "lease.guard.ms", "800", "lease.renew.ms", "400", "lease.grace.ms", "800"));
        int leader = cluster.leaderOf(0);
        int reader = (leader + 1) % 3;
        SharedHistory history = new SharedHistory();
        int leaseReads = 0;
        long before;
        try (SynodClient writer = SynodClient.builder().zookeeper(zk.getConnectString()).cluster("megastore-lease")
                .timeout(Duration.ofSeconds(60)).tls(cluster.clientTls()).build();
                SynodClient local = SynodClient.builder().zookeeper(zk.getConnectString()).cluster("megastore-lease")
                        .timeout(Duration.ofSeconds(60)).readFrom(reader).tls(cluster.clientTls()).build()) {
            // The follower holds its leases once promises came back from the others (t_guard at most); until then it
            // refuses. Wait for that (bounded) so the check below is about reads that follow writes, not start-up.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (cluster.node(reader).readsByPath()[2] == 0 && System.nanoTime() < until) {
                int rop = history.invokeRead(1, "m0");
                ListResult r = local.readList("m0").get(90, TimeUnit.SECONDS);
                history.okRead(rop, r.elements());
                assertEquals(0, r.elements().length, "nothing written yet (" + r.servedBy() + ")");
                Thread.sleep(20);
            }
            assertTrue(cluster.node(reader).readsByPath()[2] > 0, "the follower took its leases within 60 s");
            before = cluster.node(reader).readsByPath()[2];
            List<Long> written = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                String key = "m" + (i % 4);
                int op = history.invokeAppend(0, key, i);
                writer.append(key, i).get(90, TimeUnit.SECONDS);
                history.okAppend(op);
                if (key.equals("m0")) {
                    written.add((long) i);
                }
                for (int j = 0; j < 3; j++) {
                    int rop = history.invokeRead(1, "m0");
                    ListResult r = local.readList("m0").get(90, TimeUnit.SECONDS);
                    history.okRead(rop, r.elements());
                    List<Long> seen = new ArrayList<>();
                    for (long e : r.elements()) {
                        seen.add(e);
                    }
                    assertEquals(written, seen, "a read after write " + i + " (" + r.servedBy() + ")");
                    if (r.servedBy() == ServedBy.LEASE) {
                        leaseReads++;
                    }
                }
            }
        }
        long followerReads = cluster.node(reader).readsByPath()[2] - before;
        CheckResult result = new LinearizabilityChecker().check(history.history());
        System.out.println("megastore test: leader " + leader + ", reader " + reader + ", lease reads " + leaseReads
                + " of 180, the follower served " + followerReads + " after its leases began; verdict " + result.verdict());
        assertTrue(result.isLinearizable(), result.explanation());
        // A read of m0 right after a write to it finds that write accepted but not yet known committed at the
        // follower (rule 4d); the follower waits for the commit point instead of refusing (HolderReadWait), so
        // such reads stay local. Before that wait, the follower served about 30 of the 180 and under load none.
        assertTrue(followerReads > 0, "the follower served reads that follow writes under its lease (" + leaseReads
                + " lease reads in all)");
    }
}
