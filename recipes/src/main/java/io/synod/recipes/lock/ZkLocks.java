package io.synod.recipes.lock;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * Factory of the ZooKeeper lock recipes. Every lock object is for one logical client (see {@link SyncLock} and
 * {@link AsyncLock}); contenders use separate lock objects, and contenders that must exclude each other across
 * process failures use separate sessions (separate {@link CuratorFramework} instances).
 *
 * <p>The client must be started. A lock registers a connection-state listener on it until the lock is closed.
 * Do not mix lock kinds on one lock path: a queue lock ignores the test-and-set node and vice versa.
 */
public final class ZkLocks {

    private ZkLocks() {}

    /** A {@link QueueLock} on {@code path} with {@link LockOptions#defaults()}. */
    public static SyncLock queueLock(CuratorFramework client, String path) {
        return queueLock(client, path, LockOptions.defaults());
    }

    /**
     * A blocking FIFO queue lock. With the default {@link LockStrategy#watch()} strategy this is {@link QueueLock} (the
     * waiter watches only its predecessor); with RETRY or POLL the calling thread waits on the protocol of
     * {@link AsyncQueueLock} with that strategy.
     */
    public static SyncLock queueLock(CuratorFramework client, String path, LockOptions options) {
        if (options.strategy().kind() == LockStrategy.Kind.WATCH) {
            return new QueueLock(new ZooKeeperLockBackend(client), path, options);
        }
        return new BlockingLock(new AsyncQueueLock(new ZooKeeperLockBackend(client), path, options));
    }

    /** An {@link AsyncQueueLock} on {@code path} with {@link LockOptions#defaults()}. */
    public static AsyncLock asyncQueueLock(CuratorFramework client, String path) {
        return asyncQueueLock(client, path, LockOptions.defaults());
    }

    /** An {@link AsyncQueueLock}: the queue lock with no thread blocked per waiter, waiting by {@code options.strategy()}. */
    public static AsyncLock asyncQueueLock(CuratorFramework client, String path, LockOptions options) {
        return new AsyncQueueLock(new ZooKeeperLockBackend(client), path, options);
    }

    /** A {@link TasLock} on {@code path} with {@link LockOptions#defaults()}. */
    public static SyncLock tasLock(CuratorFramework client, String path) {
        return tasLock(client, path, LockOptions.defaults());
    }

    /**
     * A blocking test-and-set lock on {@code <path>/holder}; unfair. With the default {@link LockStrategy#watch()} this
     * is {@link TasLock} (waiters watch the holder node: herd on release); with RETRY (the seed paper's synchronous
     * TAS) or POLL the calling thread waits on the protocol of {@link AsyncTasLock} with that strategy.
     */
    public static SyncLock tasLock(CuratorFramework client, String path, LockOptions options) {
        if (options.strategy().kind() == LockStrategy.Kind.WATCH) {
            return new TasLock(new ZooKeeperLockBackend(client), path, options);
        }
        return new BlockingLock(new AsyncTasLock(new ZooKeeperLockBackend(client), path, options));
    }

    /** An {@link AsyncTasLock} on {@code path} with {@link LockOptions#defaults()}. */
    public static AsyncLock asyncTasLock(CuratorFramework client, String path) {
        return asyncTasLock(client, path, LockOptions.defaults());
    }

    /** An {@link AsyncTasLock}: the test-and-set lock with no thread blocked per waiter, waiting by {@code options.strategy()}. */
    public static AsyncLock asyncTasLock(CuratorFramework client, String path, LockOptions options) {
        return new AsyncTasLock(new ZooKeeperLockBackend(client), path, options);
    }

    /** An {@link AdaptiveLock} on {@code path} with {@link LockOptions#defaults()}. */
    public static AdaptiveLock adaptiveLock(CuratorFramework client, String path) {
        return adaptiveLock(client, path, LockOptions.defaults());
    }

    /**
     * An {@link AdaptiveLock}: a test-and-set lock that measures RTT and contention and picks its strategy between
     * acquisitions ({@link AdaptivePolicy}); {@code options.strategy()} is ignored.
     */
    public static AdaptiveLock adaptiveLock(CuratorFramework client, String path, LockOptions options) {
        return new AdaptiveLock(new ZooKeeperLockBackend(client), path, options);
    }

    /**
     * Lets a {@link SyncLock} be used where Curator's {@link InterProcessLock} is expected. <b>Not reentrant</b>,
     * unlike Curator's {@code InterProcessMutex}, and not bound to a thread: a second {@code acquire()} while held
     * fails with {@link LockStateException}; {@code release()} is idempotent and fails only if the lock was never
     * acquired ({@link LockStateException}).
     */
    public static InterProcessLock asInterProcessLock(SyncLock lock) {
        Objects.requireNonNull(lock, "lock");
        return new InterProcessLock() {
            @Override
            public void acquire() throws Exception {
                lock.acquire();
            }

            @Override
            public boolean acquire(long time, TimeUnit unit) throws Exception {
                return lock.acquire(Duration.ofNanos(unit.toNanos(time))).isPresent();
            }

            @Override
            public void release() throws Exception {
                lock.release();
            }

            @Override
            public boolean isAcquiredInThisProcess() {
                return lock.isAcquiredInThisProcess();
            }
        };
    }

    /**
     * Lets an {@link AsyncLock} be used where Curator's {@link InterProcessLock} is expected: each call blocks on the
     * asynchronous operation. An interrupt while acquiring cancels the acquisition (its node is removed) and throws
     * {@link LockCancelledException}.
     *
     * <p><b>Not reentrant</b>, unlike Curator's {@code InterProcessMutex}, and not bound to a thread: a second
     * {@code acquire()} while this lock object holds the lock (from the same thread or another) fails with
     * {@link LockStateException} instead of counting a re-entry, and any thread may {@code release()}.
     * {@code release()} is idempotent and fails only if the lock was never acquired. Use one lock object per
     * contender.
     */
    public static InterProcessLock asInterProcessLock(AsyncLock lock) {
        Objects.requireNonNull(lock, "lock");
        return new InterProcessLock() {
            @Override
            public void acquire() throws Exception {
                await(lock, lock.acquireAsync().toCompletableFuture());
            }

            @Override
            public boolean acquire(long time, TimeUnit unit) throws Exception {
                return await(lock, lock.acquireAsync(Duration.ofNanos(unit.toNanos(time))).toCompletableFuture()).isPresent();
            }

            @Override
            public void release() throws Exception {
                await(lock, lock.releaseAsync().toCompletableFuture());
            }

            @Override
            public boolean isAcquiredInThisProcess() {
                return lock.isAcquiredInThisProcess();
            }
        };
    }

    static <T> T await(AsyncLock lock, CompletableFuture<T> operation) throws Exception {
        try {
            return operation.get();
        } catch (InterruptedException e) {
            operation.cancel(false);
            Thread.currentThread().interrupt();
            String lockPath = lock instanceof LockBase base ? base.lockPath : String.valueOf(lock);
            throw new LockCancelledException(lockPath, "interrupted while waiting", e);
        } catch (ExecutionException e) {
            Throwable cause = LockBase.unwrap(e);
            if (cause instanceof Exception exception) {
                throw exception;
            }
            throw e;
        }
    }
}
