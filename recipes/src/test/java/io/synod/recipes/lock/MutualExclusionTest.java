package io.synod.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Eight clients, each with its own session, contend for one lock; a fenced resource checks that no two are ever
 * inside at once and that tokens strictly increase in the order holders enter.
 */
class MutualExclusionTest {

    private static final int CLIENTS = 8;
    private static final int ROUNDS_PER_CLIENT = 6;

    private static ZkTestSupport zk;
    private static final List<CuratorFramework> clients = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        zk = new ZkTestSupport();
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(zk.newClient());
        }
    }

    @AfterAll
    static void stop() throws Exception {
        zk.close();
    }

    @ParameterizedTest
    @EnumSource(value = Variant.class, names = {"SYNC_QUEUE", "SYNC_TAS", "SYNC_TAS_RETRY", "SYNC_QUEUE_RETRY"})
    void syncLocksExcludeEightBlockingClients(Variant kind) throws Exception {
        String path = "/mutex/" + kind;
        FencedResource resource = new FencedResource();
        ExecutorService threads = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (CuratorFramework client : clients) {
                runs.add(threads.submit(() -> {
                    // The untimed, blocking acquire(): bounded from outside by the get() below and shutdownNow()'s interrupt.
                    try (SyncLock lock = kind.syncLock(client, path)) {
                        for (int round = 0; round < ROUNDS_PER_CLIENT; round++) {
                            LockHandle hold = lock.acquire();
                            resource.enter(hold.fencingToken());
                            Thread.sleep(ThreadLocalRandom.current().nextInt(3));
                            assertTrue(hold.isValid(), "hold stays valid while nothing fails");
                            resource.exit();
                            lock.release();
                        }
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
        assertAllGrantedOnceEach(path, resource);
    }

    @ParameterizedTest
    @EnumSource(value = Variant.class, names = {"ASYNC_QUEUE", "ASYNC_TAS", "ASYNC_TAS_POLL", "ASYNC_QUEUE_POLL"})
    void asyncLocksExcludeEightClientsDrivenWithoutBlockedThreads(Variant kind) throws Exception {
        String path = "/mutex/" + kind;
        FencedResource resource = new FencedResource();
        List<AsyncLock> locks = new ArrayList<>();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        try {
            // All eight acquisition chains are started from this one thread, which then only waits for their end.
            for (CuratorFramework client : clients) {
                AsyncLock lock = kind.asyncLock(client, path);
                locks.add(lock);
                runs.add(rounds(lock, resource, ROUNDS_PER_CLIENT));
            }
            CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
        } finally {
            locks.forEach(AsyncLock::close);
        }
        assertAllGrantedOnceEach(path, resource);
    }

    @Test
    void asyncWaitersHoldNoThreads() throws Exception {
        // Many queued acquisitions in one process: with a thread per waiter this would show up as live threads.
        String path = "/mutex/no-thread-per-waiter";
        CuratorFramework client = clients.get(0);
        AsyncLock holder = ZkLocks.asyncQueueLock(client, path);
        Locks.await(holder.acquireAsync().toCompletableFuture());
        int threadsBefore = Thread.activeCount();
        List<AsyncLock> waiters = new ArrayList<>();
        List<CompletableFuture<LockHandle>> pending = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            AsyncLock waiter = ZkLocks.asyncQueueLock(client, path);
            waiters.add(waiter);
            pending.add(waiter.acquireAsync().toCompletableFuture());
        }
        ZkTestSupport.eventually("all 201 nodes queued", () -> childCount(path) == 201);
        assertTrue(Thread.activeCount() < threadsBefore + 20, "queued acquisitions must not each hold a thread");
        assertTrue(pending.stream().noneMatch(CompletableFuture::isDone), "nobody but the holder is granted");
        waiters.forEach(AsyncLock::close);
        holder.close();
        ZkTestSupport.eventually("queue emptied by close", () -> childCount(path) == 0);
    }

    private static int childCount(String path) {
        try {
            return clients.get(0).getChildren().forPath(path).size();
        } catch (Exception e) {
            return -1;
        }
    }

    private static CompletableFuture<Void> rounds(AsyncLock lock, FencedResource resource, int remaining) {
        if (remaining == 0) {
            return CompletableFuture.completedFuture(null);
        }
        return lock.acquireAsync().toCompletableFuture()
                .thenCompose(hold -> {
                    resource.enter(hold.fencingToken());
                    // Stay inside a little, on the timer, so that overlapping holders would be seen.
                    return CompletableFuture.runAsync(() -> { },
                                    CompletableFuture.delayedExecutor(ThreadLocalRandom.current().nextInt(3), TimeUnit.MILLISECONDS))
                            .thenCompose(ignored -> {
                                assertTrue(hold.isValid(), "hold stays valid while nothing fails");
                                resource.exit();
                                return lock.releaseAsync();
                            });
                })
                .thenCompose(ignored -> rounds(lock, resource, remaining - 1));
    }

    private static void assertAllGrantedOnceEach(String path, FencedResource resource) throws Exception {
        assertEquals(List.of(), resource.violations());
        assertEquals(CLIENTS * ROUNDS_PER_CLIENT, resource.entryTokens().size());
        // Polling strategies may still have requests in flight when the last release returns; they must not leave
        // a node behind once they land.
        ZkTestSupport.eventually("no node left behind", () -> childCount(path) == 0);
    }
}
