package io.synod.recipes.lock;

/**
 * The acquisition was given up before it was granted: the waiting thread was interrupted (its interrupt flag is
 * set again), the acquisition was cancelled, or the lock was closed. Any node it created is being removed.
 */
public final class LockCancelledException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockCancelledException(String lockPath, String message, Throwable cause) {
        super(lockPath, message, cause);
    }
}
