package io.synod.recipes.lock;

import java.io.Closeable;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A non-blocking lock: no thread waits while an acquisition is queued; each step is a Curator background
 * operation or a watch notification.
 *
 * <p><b>Cancellation.</b> Cancelling the future of {@link #acquireAsync()} ({@code
 * toCompletableFuture().cancel(..)}) gives up the acquisition: the lock deletes the node it created (or will
 * create, if the create is still in flight). If the lock was granted concurrently with the cancel, the grant
 * is released, so a cancelled acquisition never leaves a hold behind.
 *
 * <p><b>Threads.</b> One lock object stands for one logical client: at most one acquisition is in progress or
 * held at a time (a second one fails with {@link LockStateException}). Any thread may call any method.
 * Returned stages complete on ZooKeeper's event thread or the library's timer thread: dependent actions must
 * not block (use the {@code *Async} variants of {@code CompletionStage} for blocking work).
 *
 * <p><b>Errors.</b> Stages fail with the same {@link LockException} subclasses as {@link SyncLock} does.
 */
public interface AsyncLock extends Closeable {

    /** Completes with the hold once granted. Cancel the returned future to give up. */
    CompletionStage<LockHandle> acquireAsync();

    /** Completes with the hold once granted, or with empty when the timeout elapses first. */
    CompletionStage<Optional<LockHandle>> acquireAsync(Duration timeout);

    /**
     * Releases the current hold; completes when the node is deleted. Idempotent like {@link SyncLock#release()};
     * fails with {@link LockStateException} only if this lock object has never acquired the lock.
     */
    CompletionStage<Void> releaseAsync();

    /** {@code true} while this lock object has a valid hold. */
    boolean isAcquiredInThisProcess();

    /** Cancels an acquisition in progress, releases a hold (without waiting), stops watching. Idempotent. */
    @Override
    void close();
}
