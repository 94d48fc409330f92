package io.synod.recipes.lock;

/**
 * The ZooKeeper session that owned this acquisition's node ended (expired, LOST, or replaced) before the lock
 * was granted, or the node disappeared while queued, and the waiter did not join the queue again: it was told to
 * fail fast ({@code LockOptions.Builder#requeueOnSessionLoss(false)}) or had re-queued
 * {@link LockOptions#MAX_REQUEUES} times already. Nothing is held; acquiring again starts afresh.
 */
public final class LockSessionLostException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockSessionLostException(String lockPath, String message) {
        super(lockPath, message, null);
    }
}
