package io.synod.recipes.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/** Lets one test body drive all four kinds; every wait is bounded by {@link ZkTestSupport#WAIT}. */
final class Locks {

    private Locks() {}

    interface Any extends AutoCloseable {
        LockHandle acquire() throws Exception;

        Optional<LockHandle> acquire(Duration timeout) throws Exception;

        void release() throws Exception;

        boolean isAcquiredInThisProcess();

        InterProcessLock asInterProcessLock();

        @Override
        void close();
    }

    static Any create(LockKind kind, CuratorFramework client, String path) {
        return create(kind, client, path, LockOptions.defaults());
    }

    static Any create(Variant variant, CuratorFramework client, String path) {
        return create(variant.kind, client, path, variant.options());
    }

    static Any create(Variant variant, CuratorFramework client, String path, LockOptions options) {
        return create(variant.kind, client, path, variant.options(options));
    }

    static Any create(LockKind kind, CuratorFramework client, String path, LockOptions options) {
        return switch (kind) {
            case SYNC_QUEUE -> sync(ZkLocks.queueLock(client, path, options));
            case SYNC_TAS -> sync(ZkLocks.tasLock(client, path, options));
            case ASYNC_QUEUE -> async(ZkLocks.asyncQueueLock(client, path, options));
            case ASYNC_TAS -> async(ZkLocks.asyncTasLock(client, path, options));
        };
    }

    /** The same lock kinds on Synod, through {@link SynodLocks} on one backend (one session). */
    static Any create(Variant variant, SynodLockBackend backend, String path) {
        LockOptions options = variant.options();
        return switch (variant.kind) {
            case SYNC_QUEUE -> sync(SynodLocks.queueLock(backend, path, options));
            case SYNC_TAS -> sync(SynodLocks.tasLock(backend, path, options));
            case ASYNC_QUEUE -> async(SynodLocks.asyncQueueLock(backend, path, options));
            case ASYNC_TAS -> async(SynodLocks.asyncTasLock(backend, path, options));
        };
    }

    private static Any sync(SyncLock lock) {
        return new Any() {
            @Override
            public LockHandle acquire() throws Exception {
                // Bounded, like every wait in the tests; the untimed SyncLock.acquire() is exercised where a test can
                // bound it from outside (MutualExclusionTest, CancellationTest).
                return lock.acquire(ZkTestSupport.WAIT).orElseThrow(() -> new AssertionError("not acquired within " + ZkTestSupport.WAIT));
            }

            @Override
            public Optional<LockHandle> acquire(Duration timeout) throws Exception {
                return lock.acquire(timeout);
            }

            @Override
            public void release() throws Exception {
                lock.release();
            }

            @Override
            public boolean isAcquiredInThisProcess() {
                return lock.isAcquiredInThisProcess();
            }

            @Override
            public InterProcessLock asInterProcessLock() {
                return ZkLocks.asInterProcessLock(lock);
            }

            @Override
            public void close() {
                lock.close();
            }
        };
    }

    private static Any async(AsyncLock lock) {
        return new Any() {
            @Override
            public LockHandle acquire() throws Exception {
                return await(lock.acquireAsync().toCompletableFuture());
            }

            @Override
            public Optional<LockHandle> acquire(Duration timeout) throws Exception {
                return await(lock.acquireAsync(timeout).toCompletableFuture());
            }

            @Override
            public void release() throws Exception {
                await(lock.releaseAsync().toCompletableFuture());
            }

            @Override
            public boolean isAcquiredInThisProcess() {
                return lock.isAcquiredInThisProcess();
            }

            @Override
            public InterProcessLock asInterProcessLock() {
                return ZkLocks.asInterProcessLock(lock);
            }

            @Override
            public void close() {
                lock.close();
            }
        };
    }

    /** {@code rounds} acquisitions of {@code lock} in a row, each inside {@code resource} for about a millisecond. */
    static void fencedRounds(AdaptiveLock lock, FencedResource resource, int rounds) throws Exception {
        for (int round = 0; round < rounds; round++) {
            LockHandle hold = await(lock.acquireAsync().toCompletableFuture());
            resource.enter(hold.fencingToken());
            Thread.sleep(1);
            resource.exit();
            await(lock.releaseAsync().toCompletableFuture());
        }
    }

    /** Bounded wait that surfaces the lock's own exception, as the sync locks throw it. */
    static <T> T await(java.util.concurrent.CompletableFuture<T> future) throws Exception {
        try {
            return future.get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            throw e;
        }
    }

    /** An acquisition running on a thread of its own, so that a test can act while it waits. */
    record InBackground(Thread thread, java.util.concurrent.CompletableFuture<LockHandle> result) {
        boolean isWaiting() {
            return thread.getState() == Thread.State.WAITING || thread.getState() == Thread.State.TIMED_WAITING;
        }
    }

    /** Starts {@code lock.acquire()} (bounded by {@link ZkTestSupport#WAIT}) on a daemon thread. */
    static InBackground acquireInBackground(Any lock, String name) {
        java.util.concurrent.CompletableFuture<LockHandle> result = new java.util.concurrent.CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                result.complete(lock.acquire());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
        return new InBackground(thread, result);
    }
}
