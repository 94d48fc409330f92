package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.check.CheckResult;
import io.synod.core.check.LinearizabilityChecker;
import io.synod.core.history.HistoryRecorder;
import io.synod.server.node.LocalCluster;
import io.synod.server.node.SynodNode;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * LeaseGuard leader leases on a real 3-node cluster (127.0.0.1, one group, ZooKeeper from Curator's
 * TestingServer), through the SDK: reads served under the lease stay linearizable across a leader
 * kill (the history of appends and reads goes through the built-in checker), and a new leader
 * answers nothing, lease read or log, before its deferred-commit wait is over (LeaseGuard §3.2).
 * No assertion bounds how long anything takes; the only time comparison is a lower bound the
 * protocol guarantees (a slow machine only makes answers later).
 */
@Timeout(300)
class LeaseReadClusterTest {
    Path dir;
    TestingServer zk;
    LocalCluster cluster;

    private void start(String name, Map<String, String> extra) throws Exception {
        dir = Files.createTempDirectory("synod-lease-reads");
        zk = new TestingServer(true);
        cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, 1, name, extra);
        cluster.startAll();
        assertTrue(cluster.awaitLeaders(60_000), "the group gets a leader");
    }

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        if (zk != null) {
            zk.close();
        }
        if (dir != null) {
            try (var paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Every event under one lock with its time taken inside it, so event order is real-time order. */
    private static final class SharedHistory {
        private final HistoryRecorder recorder = new HistoryRecorder();
        private final long origin = System.nanoTime();

        synchronized int invokeAppend(int process, String key, long value) {
            return recorder.invokeAppend(process, key, value, System.nanoTime() - origin);
        }

        synchronized int invokeRead(int process, String key) {
            return recorder.invokeRead(process, key, System.nanoTime() - origin);
        }

        synchronized void okAppend(int op) {
            recorder.okAppend(op, System.nanoTime() - origin);
        }

        synchronized void okRead(int op, long[] elements) {
            List<Long> list = new ArrayList<>(elements.length);
            for (long e : elements) {
                list.add(e);
            }
            recorder.okRead(op, list, System.nanoTime() - origin);
        }

        synchronized void fail(int op) {
            recorder.fail(op, System.nanoTime() - origin);
        }

        synchronized void info(int op) {
            recorder.info(op, System.nanoTime() - origin);
        }

        synchronized io.synod.core.history.History history() {
            return recorder.history();
        }
    }

    /**
     * Four client threads append to and read three keys (reads LINEARIZABLE: under the lease when the
     * leader holds it) while the leader is killed (ZooKeeper link cut, process halted) halfway. The
     * whole history must be linearizable; lease reads must have been served both by the old leader
     * before the kill and by the new one after it.
     */
    @Test
    void leaseReadsStayLinearizableAcrossALeaderKill() throws Exception {
        start("lease-kill", Map.of("zookeeper.session.timeout.ms", "3000", "lease", "leader", "lease.delta.ms", "500",
                "lease.clock.bound.us", "1000"));
        int threads = 4;
        int opsPerThread = 150;
        SharedHistory history = new SharedHistory();
        AtomicInteger done = new AtomicInteger();
        AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
        AtomicInteger leaseBefore = new AtomicInteger();
        AtomicInteger leaseAfter = new AtomicInteger();
        AtomicInteger logReads = new AtomicInteger();
        AtomicInteger okOps = new AtomicInteger();
        try (SynodClient client = SynodClient.builder().zookeeper(zk.getConnectString()).cluster("lease-kill")
                .timeout(Duration.ofSeconds(30)).build()) {
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int process = t;
                Thread w = new Thread(() -> {
                    for (int i = 0; i < opsPerThread; i++) {
                        String key = "k" + ((process + i) % 3);
                        if (i % 3 == 0) {
                            long value = process * 1_000_000L + i;
                            int op = history.invokeAppend(process, key, value);
                            try {
                                client.append(key, value).get(60, TimeUnit.SECONDS);
                                history.okAppend(op);
                                okOps.incrementAndGet();
                            } catch (Exception e) {
                                history.info(op); // It may or may not have been applied.
                            }
                        } else {
                            int op = history.invokeRead(process, key);
                            long sent = System.nanoTime();
                            try {
                                ListResult r = client.readList(key).get(60, TimeUnit.SECONDS);
                                history.okRead(op, r.elements());
                                okOps.incrementAndGet();
                                if (r.servedBy() == ServedBy.LEASE) {
                                    (sent > killedAt.get() ? leaseAfter : leaseBefore).incrementAndGet();
                                } else {
                                    logReads.incrementAndGet();
                                }
                            } catch (Exception e) {
                                history.fail(op); // A read changes nothing.
                            }
                        }
                        done.incrementAndGet();
                    }
                }, "lease-client-" + t);
                workers.add(w);
                w.start();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (done.get() < threads * opsPerThread / 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            int leader = cluster.leaderOf(0);
            assertTrue(leader >= 0, "a leader to kill");
            killedAt.set(System.nanoTime());
            cluster.crash(leader);
            for (Thread w : workers) {
                w.join(TimeUnit.SECONDS.toMillis(200));
            }
            CheckResult result = new LinearizabilityChecker().check(history.history());
            String counts = "ok " + okOps.get() + ", lease reads before the kill " + leaseBefore.get() + ", after "
                    + leaseAfter.get() + ", log reads " + logReads.get();
            System.out.println("lease kill test: " + counts + "; verdict " + result.verdict());
            assertTrue(result.isLinearizable(), counts + ": " + result.explanation());
            assertEquals(threads * opsPerThread, done.get(), "every operation finished");
            assertTrue(leaseBefore.get() > 0, "the first leader served reads under its lease: " + counts);
            assertTrue(leaseAfter.get() > 0, "the new leader served reads under its lease: " + counts);
            long servedLease = 0;
            for (int i = 0; i < 3; i++) {
                SynodNode n = cluster.node(i);
                if (n != null) {
                    servedLease += n.readsByPath()[0];
                }
            }
            assertTrue(servedLease > 0, "the surviving nodes' synod.reads{path=lease} counters saw the lease reads");
        }
    }

    /**
     * A new leader defers its commit point until every entry of the old leader is older than Δ
     * (timer-only leases, §4: Δ(1+ε) of local time after it starts leading; no inherited reads), and a
     * lease read needs a committed entry of its own: so nothing it answers, under the lease or through
     * the log, arrives before Δ after the last write to the old leader was sent. The test also sees the
     * new leader leading before that moment, so the wait was really there to be respected.
     */
    @Test
    void aNewLeaderServesNoLeaseReadBeforeItsDeferredCommitWaitIsOver() throws Exception {
        long deltaMillis = 3000;
        start("lease-defer", Map.of("zookeeper.session.timeout.ms", "3000", "lease", "leader-timer", "lease.delta.ms",
                Long.toString(deltaMillis), "lease.drift.ppm", "10000"));
        try (SynodClient client = SynodClient.builder().zookeeper(zk.getConnectString()).cluster("lease-defer")
                .timeout(Duration.ofSeconds(60)).build()) {
            client.append("x", 1).get(60, TimeUnit.SECONDS);
            boolean leased = false;
            for (int i = 0; i < 200 && !leased; i++) {
                leased = client.readList("x").get(60, TimeUnit.SECONDS).servedBy() == ServedBy.LEASE;
            }
            assertTrue(leased, "the first leader serves lease reads");
            int old = cluster.leaderOf(0);
            long lastWriteSent = System.nanoTime();
            client.append("x", 2).get(60, TimeUnit.SECONDS);
            cluster.stop(old); // A clean stop: the election hands over at once, only the lease wait remains.

            long notBefore = lastWriteSent + TimeUnit.MILLISECONDS.toNanos(deltaMillis);
            long newLeaderSeenAt = -1;
            long firstAnswerAt = -1;
            int leaseReadsAfter = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (leaseReadsAfter < 20 && System.nanoTime() < deadline) {
                CompletableFuture<ListResult> read = client.readList("x");
                while (!read.isDone()) {
                    if (newLeaderSeenAt < 0 && cluster.leaderOf(0) >= 0) {
                        newLeaderSeenAt = System.nanoTime();
                    }
                    Thread.sleep(1);
                }
                long answeredAt = System.nanoTime();
                ListResult r;
                try {
                    r = read.get();
                } catch (ExecutionException e) {
                    continue; // Timed out before the new leader answered: ask again.
                }
                assertTrue(answeredAt >= notBefore, "an answer (" + r.servedBy() + ") came "
                        + (notBefore - answeredAt) / 1_000_000 + " ms before the old leader's last entry was Δ old");
                assertEquals(List.of(1L, 2L), toList(r.elements()), "the acknowledged appends");
                if (firstAnswerAt < 0) {
                    firstAnswerAt = answeredAt;
                }
                if (r.servedBy() == ServedBy.LEASE) {
                    leaseReadsAfter++;
                }
            }
            assertTrue(newLeaderSeenAt >= 0, "a new leader was seen");
            assertTrue(newLeaderSeenAt < notBefore, "the new leader led "
                    + (newLeaderSeenAt - notBefore) / 1_000_000 + " ms after the wait ended: nothing was tested");
            assertTrue(firstAnswerAt > newLeaderSeenAt, "the first answer came after the new leader was seen");
            assertTrue(leaseReadsAfter > 0, "the new leader serves lease reads once its wait is over");
        }
    }

    private static List<Long> toList(long[] a) {
        List<Long> out = new ArrayList<>();
        for (long v : a) {
            out.add(v);
        }
        return out;
    }
}
