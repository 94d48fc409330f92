package io.synod.recipes.lock;

import java.time.Duration;
import java.util.Optional;

/**
 * What the blocking locks share: the {@link SyncLock} entry points. Each lock supplies only its
 * algorithm, {@link #acquireUntil}.
 */
abstract class SyncLockBase extends LockBase implements SyncLock {

    SyncLockBase(LockBackend backend, String lockPath, LockOptions options) {
        super(backend, lockPath, options);
    }

    /**
     * Runs one acquisition on the calling thread.
     *
     * @param timed         whether {@code deadlineNanos} applies
     * @param deadlineNanos give up at this {@link System#nanoTime()} reading (empty result)
     */
    abstract Optional<LockHandle> acquireUntil(boolean timed, long deadlineNanos) throws LockException;

    @Override
    public final LockHandle acquire() throws Exception {
        return acquireUntil(false, 0).orElseThrow(() -> new IllegalStateException("untimed acquisition returned no hold"));
    }

    @Override
    public final Optional<LockHandle> acquire(Duration timeout) throws Exception {
        return acquireUntil(true, System.nanoTime() + timeout.toNanos());
    }

    @Override
    public final void release() throws Exception {
        releaseAndAwaitDelete();
    }
}
