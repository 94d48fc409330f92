package io.synod.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The adaptive lock's policy, its measurements, and exclusion when every TAS strategy contends on one path. */
class AdaptiveLockTest {

    private static final int CLIENTS = 8;
    private static final int ROUNDS_PER_CLIENT = 8;

    private static ZkTestSupport zk;
    private static final List<CuratorFramework> clients = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        zk = new ZkTestSupport();
        clients.addAll(zk.newClients(CLIENTS));
    }

    @AfterAll
    static void stop() throws Exception {
        zk.close();
    }

    @Test
    void policyWatchesUntilContendedAtALargeRttThenPollsAtAFractionOfTheRtt() {
        long ms = 1_000_000L;
        assertEquals(LockStrategy.watch(), AdaptivePolicy.choose(-1, 1.0), "nothing measured yet");
        assertEquals(LockStrategy.watch(), AdaptivePolicy.choose(100 * ms, 0.1), "uncontended");
        assertEquals(LockStrategy.watch(), AdaptivePolicy.choose(ms, 1.0), "contended, but a watch hand-over is cheap at 1 ms");
        assertEquals(LockStrategy.watch(), AdaptivePolicy.choose(19 * ms, 1.0), "still cheap below 20 ms");
        assertEquals(LockStrategy.poll(Duration.ofMillis(5), 8), AdaptivePolicy.choose(40 * ms, 0.5));
        assertEquals(LockStrategy.poll(Duration.ofMillis(3), 8), AdaptivePolicy.choose(20 * ms, 1.0), "spacing RTT/8");
        assertEquals(LockStrategy.poll(Duration.ofMillis(20), 8), AdaptivePolicy.choose(1000 * ms, 1.0), "spacing at most 20 ms");
    }

    @Test
    void strategiesValidateTheirBounds() {
        assertThrows(IllegalArgumentException.class, () -> LockStrategy.poll(Duration.ZERO, 1));
        assertThrows(IllegalArgumentException.class, () -> LockStrategy.poll(Duration.ofMillis(1), 0));
        assertThrows(IllegalArgumentException.class, () -> LockStrategy.poll(Duration.ofMillis(1), LockStrategy.MAX_IN_FLIGHT + 1));
        assertThrows(IllegalArgumentException.class, () -> LockStrategy.retry(Duration.ofMillis(-1)));
    }

    @Test
    void adaptiveAndEveryTasStrategyExcludeEachOtherOnOnePath() throws Exception {
        String path = "/adaptive/mixed";
        List<InterProcessLock> locks = new ArrayList<>();
        List<AdaptiveLock> adaptive = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            CuratorFramework client = clients.get(i);
            switch (i) {
                case 0, 1 -> {
                    AdaptiveLock lock = ZkLocks.adaptiveLock(client, path);
                    adaptive.add(lock);
                    locks.add(ZkLocks.asInterProcessLock(lock));
                }
                case 2 -> locks.add(ZkLocks.asInterProcessLock(Variant.SYNC_TAS.syncLock(client, path)));
                case 3 -> locks.add(ZkLocks.asInterProcessLock(Variant.ASYNC_TAS.asyncLock(client, path)));
                case 4 -> locks.add(ZkLocks.asInterProcessLock(Variant.SYNC_TAS_RETRY.syncLock(client, path)));
                case 5 -> locks.add(ZkLocks.asInterProcessLock(Variant.ASYNC_TAS_POLL.asyncLock(client, path)));
                case 6 -> locks.add(ZkLocks.asInterProcessLock(ZkLocks.tasLock(client, path,
                        LockOptions.builder().strategy(LockStrategy.poll(Duration.ofMillis(2), 2)).build())));
                default -> locks.add(ZkLocks.asInterProcessLock(ZkLocks.asyncTasLock(client, path,
                        LockOptions.builder().strategy(LockStrategy.retry(Duration.ofMillis(1))).build())));
            }
        }
        // The adapter hides the token: exclusion is checked by counting holders inside.
        java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger overlaps = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger grants = new java.util.concurrent.atomic.AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                InterProcessLock lock = locks.get(i);
                runs.add(threads.submit(() -> {
                    for (int round = 0; round < ROUNDS_PER_CLIENT; round++) {
                        assertTrue(lock.acquire(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS));
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        grants.incrementAndGet();
                        Thread.sleep(2);
                        inside.decrementAndGet();
                        lock.release();
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertEquals(0, overlaps.get(), "two holders inside at once");
        assertEquals(CLIENTS * ROUNDS_PER_CLIENT, grants.get());
        for (AdaptiveLock lock : adaptive) {
            assertTrue(lock.measuredRtt().isPresent(), "RTT measured from the releases");
            lock.close();
        }
        ZkTestSupport.eventually("no node left behind", () -> ZkTestSupport.childCount(clients.get(0), path) == 0);
    }

    @Test
    void contentionIsMeasuredAsAcquisitionsThatFoundTheLockTaken() throws Exception {
        String path = "/adaptive/measured";
        try (AdaptiveLock lock = ZkLocks.adaptiveLock(clients.get(0), path);
                Locks.Any other = Locks.create(LockKind.SYNC_TAS, clients.get(1), path, LockOptions.defaults())) {
            assertEquals(AdaptiveLock.INITIAL_CONTENDED_SHARE, lock.contendedShare());
            for (int i = 0; i < 6; i++) {
                Locks.await(lock.acquireAsync().toCompletableFuture());
                Locks.await(lock.releaseAsync().toCompletableFuture());
            }
            double uncontended = lock.contendedShare();
            assertTrue(uncontended < AdaptivePolicy.CONTENDED_SHARE, "six free acquisitions: share " + uncontended);
            assertEquals(LockStrategy.watch(), lock.nextStrategy(), "uncontended (and a local RTT): watch");

            other.acquire(); // now the adaptive lock's first create is refused for sure
            java.util.concurrent.CompletableFuture<LockHandle> waiting = lock.acquireAsync().toCompletableFuture();
            ZkTestSupport.eventually("the adaptive lock's create refused", lock::latestFoundTaken);
            other.release();
            Locks.await(waiting);
            assertTrue(lock.contendedShare() > uncontended, "a refused create counts as contended: " + lock.contendedShare());
            Locks.await(lock.releaseAsync().toCompletableFuture());
        }
    }

    @Test
    void adaptiveLockKeepsExclusionWithAFencedResourceUnderContention() throws Exception {
        String path = "/adaptive/fenced";
        FencedResource resource = new FencedResource();
        ExecutorService threads = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (CuratorFramework client : clients) {
                runs.add(threads.submit(() -> {
                    try (AdaptiveLock lock = ZkLocks.adaptiveLock(client, path)) {
                        Locks.fencedRounds(lock, resource, ROUNDS_PER_CLIENT);
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertEquals(List.of(), resource.violations());
        assertEquals(CLIENTS * ROUNDS_PER_CLIENT, resource.entryTokens().size());
    }
}
