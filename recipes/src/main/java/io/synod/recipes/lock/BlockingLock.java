package io.synod.recipes.lock;

import java.time.Duration;
import java.util.Optional;

/**
 * The blocking API over an asynchronous lock: how {@link SyncLock}s of the RETRY and POLL strategies run. The
 * protocol is the asynchronous lock's; the calling thread waits for it. An interrupt cancels the acquisition (its
 * node is removed) and throws {@link LockCancelledException}.
 */
final class BlockingLock implements SyncLock {

    private final AsyncLockBase lock;

    BlockingLock(AsyncLockBase lock) {
        this.lock = lock;
    }

    @Override
    public LockHandle acquire() throws Exception {
        return ZkLocks.await(lock, lock.acquireAsync().toCompletableFuture());
    }

    @Override
    public Optional<LockHandle> acquire(Duration timeout) throws Exception {
        return ZkLocks.await(lock, lock.acquireAsync(timeout).toCompletableFuture());
    }

    @Override
    public void release() throws Exception {
        lock.releaseAndAwaitDelete();
    }

    @Override
    public boolean isAcquiredInThisProcess() {
        return lock.isAcquiredInThisProcess();
    }

    @Override
    public void close() {
        lock.close();
    }

    @Override
    public String toString() {
        return "BlockingLock{" + lock.lockPath + ", " + lock.strategy() + "}";
    }
}
