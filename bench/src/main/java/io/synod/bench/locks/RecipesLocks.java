package io.synod.bench.locks;

import io.synod.recipes.lock.AsyncLock;
import io.synod.recipes.lock.LockHandle;
import io.synod.recipes.lock.LockOptions;

import io.synod.recipes.lock.SyncLock;
import io.synod.recipes.lock.ZkLocks;
import org.apache.curator.framework.CuratorFramework;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The ZooKeeper lock recipes of {@code synod-recipes} ({@link ZkLocks}), each with its strategy, as locks under test. */
public final class RecipesLocks implements LockUnderTest.Factory {

    @Override
    public LockUnderTest create(LockPrimitive primitive, CuratorFramework client, String lockPath) {
        if (primitive == LockPrimitive.ADAPTIVE) {
            return new Async(primitive, ZkLocks.adaptiveLock(client, lockPath));
        }
        LockOptions options = LockOptions.builder().strategy(primitive.strategy()).build();
        return switch (primitive.kind()) {
            case SYNC_QUEUE -> new Sync(primitive, ZkLocks.queueLock(client, lockPath, options));
            case SYNC_TAS -> new Sync(primitive, ZkLocks.tasLock(client, lockPath, options));
            case ASYNC_QUEUE -> new Async(primitive, ZkLocks.asyncQueueLock(client, lockPath, options));
            case ASYNC_TAS -> new Async(primitive, ZkLocks.asyncTasLock(client, lockPath, options));
        };
    }

    /** A blocking lock of any backend as a lock under test. */
    record Sync(LockPrimitive primitive, SyncLock lock) implements LockUnderTest {
        @Override
        public Optional<Long> acquireBlocking(Duration timeout) throws Exception {
            return lock.acquire(timeout).map(LockHandle::fencingToken);
        }

        @Override
        public void releaseBlocking() throws Exception {
            lock.release();
        }

        @Override
        public CompletionStage<Optional<Long>> acquireAsync(Duration timeout) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException(primitive + " is a blocking lock"));
        }

        @Override
        public CompletionStage<Void> releaseAsync() {
            return CompletableFuture.failedFuture(new UnsupportedOperationException(primitive + " is a blocking lock"));
        }

        @Override
        public void close() {
            lock.close();
        }
    }

    /** An asynchronous lock of any backend as a lock under test. */
    record Async(LockPrimitive primitive, AsyncLock lock) implements LockUnderTest {
        @Override
        public Optional<Long> acquireBlocking(Duration timeout) {
            throw new UnsupportedOperationException(primitive + " is driven asynchronously");
        }

        @Override
        public void releaseBlocking() {
            throw new UnsupportedOperationException(primitive + " is driven asynchronously");
        }

        @Override
        public CompletionStage<Optional<Long>> acquireAsync(Duration timeout) {
            return lock.acquireAsync(timeout).thenApply(handle -> handle.map(LockHandle::fencingToken));
        }

        @Override
        public CompletionStage<Void> releaseAsync() {
            return lock.releaseAsync();
        }

        @Override
        public void close() {
            lock.close();
        }
    }
}
