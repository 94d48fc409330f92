package io.synod.recipes.lock;

import java.io.Closeable;
import java.time.Duration;
import java.util.Optional;

/**
 * A blocking lock, shaped like Curator's {@code InterProcessLock} (see
 * {@link ZkLocks#asInterProcessLock(SyncLock)}), with fencing tokens and loss notification.
 *
 * <p><b>Threads.</b> A lock object stands for one logical client: at most one acquisition is in progress or
 * held at a time. It is not reentrant and not bound to a thread: any thread may release what another thread
 * acquired. All methods are safe to call from any thread; a second concurrent {@code acquire} fails with
 * {@link LockStateException} instead of waiting. To contend inside one process, use one lock object per
 * contender.
 *
 * <p><b>Errors.</b> {@link LockCancelledException} if the waiting thread is interrupted (the interrupt flag is
 * restored) or the lock is closed meanwhile; {@link LockSessionLostException} if a queued acquisition lost its
 * place and does not re-queue (see {@link LockOptions}); {@link LockCoordinationException} for any other
 * ZooKeeper failure (for example connection loss beyond Curator's retry policy); {@link LockStateException} for
 * misuse. In every failure case the lock has removed, or scheduled the removal of, any node it created.
 */
public interface SyncLock extends Closeable {

    /** Blocks until the lock is held. */
    LockHandle acquire() throws Exception;

    /** Blocks until the lock is held or the timeout elapses; empty on timeout. */
    Optional<LockHandle> acquire(Duration timeout) throws Exception;

    /**
     * Releases the current hold. Idempotent: releasing after a release, or after the hold was lost, does
     * nothing. Throws {@link LockStateException} only if this lock object has never acquired the lock.
     */
    void release() throws Exception;

    /** {@code true} while this lock object has a valid hold. */
    boolean isAcquiredInThisProcess();

    /**
     * Abandons an acquisition in progress (it throws {@link LockCancelledException}), releases a hold without
     * waiting for its node's deletion, and stops watching the session. Idempotent; the lock is unusable afterwards.
     */
    @Override
    void close();
}
