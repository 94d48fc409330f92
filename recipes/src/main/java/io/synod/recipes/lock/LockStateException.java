package io.synod.recipes.lock;

/**
 * The lock was used against its contract: acquiring while this lock object already holds the lock or is already
 * acquiring (locks are not reentrant), releasing a lock this object has never acquired, or any use after close.
 * Releasing twice, or releasing after the hold was lost, is <em>not</em> an error: release is idempotent.
 */
public final class LockStateException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockStateException(String lockPath, String message) {
        super(lockPath, message, null);
    }
}
