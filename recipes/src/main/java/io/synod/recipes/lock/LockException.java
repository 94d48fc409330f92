package io.synod.recipes.lock;

/**
 * Base of every failure a lock reports. Subclasses say what happened:
 * <ul>
 *   <li>{@link LockSessionLostException}: the ZooKeeper session ended while queued, and the waiter fails fast;</li>
 *   <li>{@link LockCancelledException}: the acquisition was cancelled, interrupted, or its lock closed;</li>
 *   <li>{@link LockStateException}: the lock was used against its contract;</li>
 *   <li>{@link LockCoordinationException}: ZooKeeper refused or could not perform an operation.</li>
 * </ul>
 */
public abstract class LockException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String lockPath;

    protected LockException(String lockPath, String message, Throwable cause) {
        super(lockPath + ": " + message, cause);
        this.lockPath = lockPath;
    }

    /** The lock path the failure concerns. */
    public String lockPath() {
        return lockPath;
    }
}
