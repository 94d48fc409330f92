package io.synod.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Giving up an acquisition (cancel, timeout, interrupt, close) leaves neither a node nor a hold behind. */
class CancellationTest {

    private static ZkTestSupport zk;
    private static CuratorFramework holderClient;
    private static CuratorFramework waiterClient;

    @BeforeAll
    static void start() throws Exception {
        zk = new ZkTestSupport();
        holderClient = zk.newClient();
        waiterClient = zk.newClient();
    }

    @AfterAll
    static void stop() throws Exception {
        zk.close();
    }

    @ParameterizedTest
    @EnumSource(value = LockKind.class, names = {"ASYNC_QUEUE", "ASYNC_TAS"})
    void cancellingAQueuedAsyncAcquisitionRemovesItsNode(LockKind kind) throws Exception {
        String path = "/cancel/" + kind;
        try (Locks.Any holder = Locks.create(kind, holderClient, path); AsyncLock waiter = asyncLock(kind, waiterClient, path)) {
            LockHandle held = holder.acquire();
            CompletableFuture<LockHandle> pending = waiter.acquireAsync().toCompletableFuture();
            if (kind == LockKind.ASYNC_QUEUE) {
                ZkTestSupport.eventually("waiter queued", () -> childCount(path) == 2);
            }
            assertTrue(pending.cancel(false));
            ZkTestSupport.eventually("only the holder's node left", () -> childCount(path) == 1);
            assertFalse(waiter.isAcquiredInThisProcess());

            holder.release();
            assertFalse(held.isValid());
            ZkTestSupport.eventually("lock free: nobody was granted after the cancel", () -> childCount(path) == 0);
            assertFalse(waiter.isAcquiredInThisProcess());
            // The lock object is usable again after a cancelled acquisition.
            LockHandle later = Locks.await(waiter.acquireAsync().toCompletableFuture());
            assertTrue(later.fencingToken() > held.fencingToken());
            Locks.await(waiter.releaseAsync().toCompletableFuture());
        }
    }

    @ParameterizedTest
    @EnumSource(value = LockKind.class, names = {"ASYNC_QUEUE", "ASYNC_TAS"})
    void cancelRacingWithTheGrantNeverLeavesAHoldBehind(LockKind kind) throws Exception {
        String path = "/cancel-race/" + kind;
        try (AsyncLock holder = asyncLock(kind, holderClient, path); AsyncLock waiter = asyncLock(kind, waiterClient, path)) {
            for (int round = 0; round < 25; round++) {
                Locks.await(holder.acquireAsync().toCompletableFuture());
                CompletableFuture<LockHandle> pending = waiter.acquireAsync().toCompletableFuture();
                CompletableFuture<Void> released = holder.releaseAsync().toCompletableFuture();
                // Cancel at a different moment each round, from before the release lands to after the grant.
                if (round % 5 != 0) {
                    Thread.sleep(round % 5);
                }
                boolean cancelled = pending.cancel(false);
                Locks.await(released);
                if (cancelled) {
                    ZkTestSupport.eventually("no node left after a cancelled acquisition", () -> childCount(path) == 0);
                    assertFalse(waiter.isAcquiredInThisProcess(), "a cancelled acquisition holds nothing");
                } else {
                    assertTrue(pending.join().isValid());
                    Locks.await(waiter.releaseAsync().toCompletableFuture());
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void timedAcquisitionReturnsEmptyAndLeavesNothing(LockKind kind) throws Exception {
        String path = "/timeout/" + kind;
        try (Locks.Any holder = Locks.create(kind, holderClient, path); Locks.Any waiter = Locks.create(kind, waiterClient, path)) {
            LockHandle held = holder.acquire();
            Optional<LockHandle> timedOut = waiter.acquire(Duration.ofMillis(300));
            assertEquals(Optional.empty(), timedOut);
            assertFalse(waiter.isAcquiredInThisProcess());
            ZkTestSupport.eventually("only the holder's node left", () -> childCount(path) == 1);
            assertTrue(held.isValid());
            holder.release();
            Optional<LockHandle> acquired = waiter.acquire(ZkTestSupport.WAIT);
            assertTrue(acquired.isPresent(), "the waiter's lock object works after a timeout");
            waiter.release();
        }
    }

    @ParameterizedTest
    @EnumSource(value = LockKind.class, names = {"SYNC_QUEUE", "SYNC_TAS"})
    void interruptingABlockedAcquireThrowsCancelledAndRemovesTheNode(LockKind kind) throws Exception {
        String path = "/interrupt/" + kind;
        try (Locks.Any holder = Locks.create(kind, holderClient, path); SyncLock waiter = syncLock(kind, waiterClient, path)) {
            holder.acquire();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicReference<Boolean> interruptFlag = new AtomicReference<>();
            Thread blocked = new Thread(() -> {
                try {
                    waiter.acquire();
                } catch (Throwable t) {
                    thrown.set(t);
                    interruptFlag.set(Thread.currentThread().isInterrupted());
                }
            });
            blocked.start();
            if (kind == LockKind.SYNC_QUEUE) {
                ZkTestSupport.eventually("waiter queued", () -> childCount(path) == 2);
            }
            blocked.interrupt();
            blocked.join(ZkTestSupport.WAIT.toMillis());
            assertFalse(blocked.isAlive());
            assertTrue(thrown.get() instanceof LockCancelledException, "thrown: " + thrown.get());
            assertEquals(Boolean.TRUE, interruptFlag.get(), "interrupt flag restored");
            ZkTestSupport.eventually("only the holder's node left", () -> childCount(path) == 1);
            holder.release();
        }
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void closingTheLockAbandonsItsAcquisition(LockKind kind) throws Exception {
        String path = "/close/" + kind;
        try (Locks.Any holder = Locks.create(kind, holderClient, path)) {
            holder.acquire();
            Locks.Any waiter = Locks.create(kind, waiterClient, path);
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread acquiring = new Thread(() -> {
                try {
                    waiter.acquire();
                } catch (Throwable t) {
                    thrown.set(t);
                }
            });
            acquiring.start();
            // Blocked (in the lock's wait, or on the async future) means the acquisition has begun.
            ZkTestSupport.eventually("acquisition under way", () -> acquiring.getState() == Thread.State.WAITING
                    || acquiring.getState() == Thread.State.TIMED_WAITING);
            if (kind == LockKind.SYNC_QUEUE || kind == LockKind.ASYNC_QUEUE) {
                ZkTestSupport.eventually("waiter queued", () -> childCount(path) == 2);
            }
            waiter.close();
            acquiring.join(ZkTestSupport.WAIT.toMillis());
            assertFalse(acquiring.isAlive());
            assertTrue(thrown.get() instanceof LockCancelledException, "thrown: " + thrown.get());
            ZkTestSupport.eventually("only the holder's node left", () -> childCount(path) == 1);
            assertThrows(LockStateException.class, waiter::acquire, "closed lock refuses to acquire");
            holder.release();
        }
    }

    @Test
    void asyncLockRefusesASecondConcurrentAcquisition() throws Exception {
        String path = "/cancel/second-acquire";
        try (AsyncLock holder = ZkLocks.asyncQueueLock(holderClient, path); AsyncLock waiter = ZkLocks.asyncQueueLock(waiterClient, path)) {
            Locks.await(holder.acquireAsync().toCompletableFuture());
            CompletableFuture<LockHandle> first = waiter.acquireAsync().toCompletableFuture();
            ExecutionException second = assertThrows(ExecutionException.class,
                    () -> waiter.acquireAsync().toCompletableFuture().get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS));
            assertTrue(second.getCause() instanceof LockStateException);
            first.cancel(false);
            assertThrows(CancellationException.class, first::join);
            Locks.await(holder.releaseAsync().toCompletableFuture());
        }
    }

    private static AsyncLock asyncLock(LockKind kind, CuratorFramework client, String path) {
        return kind == LockKind.ASYNC_QUEUE ? ZkLocks.asyncQueueLock(client, path) : ZkLocks.asyncTasLock(client, path);
    }

    private static SyncLock syncLock(LockKind kind, CuratorFramework client, String path) {
        return kind == LockKind.SYNC_QUEUE ? ZkLocks.queueLock(client, path) : ZkLocks.tasLock(client, path);
    }

    private static int childCount(String path) {
        try {
            return holderClient.getChildren().forPath(path).size();
        } catch (Exception e) {
            return -1;
        }
    }
}
