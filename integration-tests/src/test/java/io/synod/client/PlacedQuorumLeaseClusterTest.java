package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.check.CheckResult;
import io.synod.core.check.LinearizabilityChecker;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import io.synod.server.node.LocalCluster;
import io.synod.server.node.SynodNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Quorum-lease groups placed on fewer nodes than the cluster has (docs/membership.md, "Placement"; rules QL1, QL2 and
 * QL5): 4 nodes, 4 groups of 3 replicas, so each node is a voter of three groups and a spare of one. Through SDK clients
 * that each prefer one node ({@code readFrom}), the voters that hold a key's lease answer its LINEARIZABLE reads locally
 * (counted by their {@code synod.reads{path=lease,role=follower}} counter per group), a spare never does (its counters
 * stay 0, and a read sent to it directly is refused), every read of the run is linearizable while a writer appends,
 * writes go on after a node is crashed (§3.8: once the leases it held run out), and no acknowledged append is lost.
 * No assertion bounds how long anything takes.
 */
@Timeout(600)
class PlacedQuorumLeaseClusterTest {
    private static final int NODES = 4;
    private static final int GROUPS = 4;
    private final QuorumLeaseClusterTest harness = new QuorumLeaseClusterTest();

    @AfterEach
    void stop() throws Exception {
        harness.stop();
    }

    /** This node's reads of {@code group} answered OK under its lease, as a follower or as the leader. */
    static double leaseReads(SynodNode node, int group, String role) {
        return node.registry().get("synod.reads").tag("group", Integer.toString(group)).tag("path", "lease")
                .tag("role", role).counter().count();
    }

    static boolean votes(SynodNode node, int group) {
        return node.registry().get("synod.group.voter").tag("group", Integer.toString(group)).gauge().value() == 1.0;
    }

    @ParameterizedTest
    @ValueSource(strings = {"quorum", "quorum-auto", "megastore"})
    void votersHoldingALeaseReadLocallyAndSparesNever(String lease) throws Exception {
        String name = "placed-" + lease;
        Map<String, String> settings = new HashMap<>(Map.of("zookeeper.session.timeout.ms", "3000", "lease", lease,
                "lease.delta.ms", "2000", "lease.drift.ppm", "10000", "lease.guard.ms", "800", "lease.renew.ms", "400",
                "lease.grace.ms", "800", "replicas", "3"));
        if (lease.equals("quorum-auto")) {
            settings.put("lease.auto.period.ms", "500");
        }
        RealCluster real = RealCluster.start(name, NODES, GROUPS, settings);
        harness.adopt(real);
        LocalCluster cluster = real.cluster;
        // Each group's spare: the one node whose replica is no voter (the placement puts 3 of 4 in every group).
        int[] spare = new int[GROUPS];
        for (int g = 0; g < GROUPS; g++) {
            List<Integer> spares = new ArrayList<>();
            for (int n = 0; n < NODES; n++) {
                if (!votes(cluster.node(n), g)) {
                    spares.add(n);
                }
            }
            assertEquals(1, spares.size(), "group " + g + " has one spare: " + spares);
            spare[g] = spares.get(0);
        }
        // Ten keys of each group (the shard map routes by the first byte: spread it over the printable range).
        List<List<String>> keysOf = new ArrayList<>();
        for (int g = 0; g < GROUPS; g++) {
            keysOf.add(new ArrayList<>());
        }
        for (int i = 0; keysOf.stream().anyMatch(k -> k.size() < 10) && i < 10_000; i++) {
            String key = (char) ('!' + i % 94) + "p" + i;
            List<String> of = keysOf.get(cluster.node(0).shardMap().groupFor(key.getBytes(StandardCharsets.UTF_8)));
            if (of.size() < 10) {
                of.add(key);
            }
        }
        List<String> keys = new ArrayList<>();
        keysOf.forEach(keys::addAll);
        assertEquals(10 * GROUPS, keys.size(), "ten keys of every group");
        // A spare asked directly (no placement flag, as an older client) refuses: it is in no membership and holds
        // no key of the group (QL1), so it never answers from its own (empty) state.
        for (int g = 0; g < GROUPS; g++) {
            assertNotEquals(ClientReply.Status.OK.ordinal(), harness.rawCommand(spare[g],
                    new KvCommand.Get(keysOf.get(g).get(0)).encode()).status(), "group " + g + "'s spare answered a read");
        }

        SharedHistory history = new SharedHistory();
        Map<String, Set<Long>> acknowledged = new ConcurrentHashMap<>();
        List<SynodClient> readers = new ArrayList<>();
        try (SynodClient writer = client(real, name, -1)) {
            for (int n = 0; n < NODES; n++) {
                readers.add(client(real, name, n));
            }
            // Every group's followers take their leases once promises came back (t_guard at most); on a loaded
            // machine that can take a while. Read through every node until some voter of each group served a read
            // locally as a follower (bounded).
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            for (int round = 0; !everyGroupReadLocally(cluster, spare) && System.nanoTime() < until; round++) {
                for (int n = 0; n < NODES; n++) {
                    String key = keys.get(round % keys.size());
                    int op = history.invokeRead(1 + n, key);
                    history.okRead(op, readers.get(n).readList(key).get(90, TimeUnit.SECONDS).elements());
                }
                Thread.sleep(5);
            }
            assertTrue(everyGroupReadLocally(cluster, spare), "a voter of every group served a read under its lease");

            int writes = 160;
            int readsPerNode = 160;
            AtomicLong crashedAt = new AtomicLong(Long.MAX_VALUE);
            AtomicInteger writesDone = new AtomicInteger();
            AtomicInteger writesAfterCrash = new AtomicInteger();
            List<Thread> workers = new ArrayList<>();
            workers.add(new Thread(() -> {
                for (int i = 0; i < writes; i++) {
                    String key = keys.get(i % keys.size());
                    long value = 1_000_000L + i;
                    long sent = System.nanoTime();
                    if (history.append(0, writer, key, value)) {
                        acknowledged.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(value);
                        if (sent > crashedAt.get()) {
                            writesAfterCrash.incrementAndGet();
                        }
                    }
                    writesDone.incrementAndGet();
                }
            }, "placed-ql-writer"));
            for (int n = 0; n < NODES; n++) {
                int process = 1 + n;
                SynodClient local = readers.get(n);
                workers.add(new Thread(() -> {
                    // At least readsPerNode reads, then on while the writer runs (so some follow the crash), bounded.
                    for (int i = 0; i < 5 * readsPerNode && (i < readsPerNode || writesDone.get() < writes); i++) {
                        String key = keys.get((process * 7 + i) % keys.size());
                        int op = history.invokeRead(process, key);
                        try {
                            history.okRead(op, local.readList(key).get(90, TimeUnit.SECONDS).elements());
                        } catch (Exception e) {
                            history.fail(op); // a read changes nothing
                        }
                    }
                }, "placed-ql-reader-" + n));
            }
            workers.forEach(Thread::start);
            for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                    writesDone.get() < writes / 2 && System.nanoTime() < deadline; ) {
                Thread.sleep(5);
            }
            // Crash the spare of group 0: a voter of the three other groups, which each keep two of three voters.
            int victim = spare[0];
            double[][] spareReads = spareLeaseReads(cluster, spare, -1);
            cluster.crash(victim);
            crashedAt.set(System.nanoTime());
            for (Thread t : workers) {
                t.join(TimeUnit.SECONDS.toMillis(300));
            }
            for (Thread t : workers) {
                assertTrue(!t.isAlive(), t.getName() + " finished");
            }
            double[][] spareReadsAfter = spareLeaseReads(cluster, spare, victim);
            CheckResult result = new LinearizabilityChecker().check(history.history());
            StringBuilder counts = new StringBuilder(lease + ": spares " + Arrays.toString(spare)
                    + ", crashed node " + victim + ", writes acknowledged after the crash " + writesAfterCrash.get()
                    + "; follower lease reads per node and group:");
            for (int n = 0; n < NODES; n++) {
                SynodNode node = cluster.node(n);
                for (int g = 0; node != null && g < GROUPS; g++) {
                    counts.append(' ').append(n).append('/').append(g).append('=')
                            .append((long) leaseReads(node, g, "follower"));
                }
            }
            System.out.println("placed quorum lease test: " + counts + "; verdict " + result.verdict());
            assertTrue(result.isLinearizable(), counts + ": " + result.explanation());
            assertTrue(writesAfterCrash.get() > 0, "writes went on after the crash: " + counts);
            for (int g = 0; g < GROUPS; g++) {
                assertEquals(0.0, spareReads[g][0] + spareReads[g][1] + spareReadsAfter[g][0] + spareReadsAfter[g][1],
                        "group " + g + "'s spare, node " + spare[g] + ", answered no read under a lease: " + counts);
            }
            // Nothing acknowledged was lost: a read through the log of every key holds every acknowledged append.
            for (String key : keys) {
                ListResult r = writer.readList(key, Consistency.LOG).get(90, TimeUnit.SECONDS);
                Set<Long> missing = new TreeSet<>(acknowledged.getOrDefault(key, Set.of()));
                missing.removeAll(QuorumLeaseClusterTest.toList(r.elements()));
                assertTrue(missing.isEmpty(), "acknowledged appends to " + key + " lost: " + missing);
            }
        } finally {
            for (SynodClient c : readers) {
                c.close();
            }
        }
    }

    private static SynodClient client(RealCluster real, String name, int readFrom) {
        SynodClient.Builder b = SynodClient.builder().zookeeper(real.zk.getConnectString()).cluster(name)
                .timeout(Duration.ofSeconds(60)).tls(real.cluster.clientTls());
        return (readFrom < 0 ? b : b.readFrom(readFrom)).build();
    }

    /** Whether, for every group, some voter answered a read locally as a follower under its lease. */
    private static boolean everyGroupReadLocally(LocalCluster cluster, int[] spare) {
        for (int g = 0; g < GROUPS; g++) {
            double reads = 0;
            for (int n = 0; n < NODES; n++) {
                reads += n == spare[g] ? 0 : leaseReads(cluster.node(n), g, "follower");
            }
            if (reads == 0) {
                return false;
            }
        }
        return true;
    }

    /** Per group, its spare's lease reads {as follower, as leader} (zero for a crashed spare {@code gone}). */
    private static double[][] spareLeaseReads(LocalCluster cluster, int[] spare, int gone) {
        double[][] out = new double[GROUPS][2];
        for (int g = 0; g < GROUPS; g++) {
            if (spare[g] != gone) {
                out[g][0] = leaseReads(cluster.node(spare[g]), g, "follower");
                out[g][1] = leaseReads(cluster.node(spare[g]), g, "leader");
            }
        }
        return out;
    }
}
