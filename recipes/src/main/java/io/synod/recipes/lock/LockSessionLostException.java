package io.synod.recipes.lock;

/**
 * The ZooKeeper session that owned this acquisition's node ended (expired, LOST, or replaced) before the lock
 * was granted, or the node disappeared while queued. Nothing is held; acquiring again starts afresh.
 */
public final class LockSessionLostException extends LockException {
  private static final long serialVersionUID = 1L;

  public LockSessionLostException(String lockPath, String message) {
    super(lockPath, message, null);
  }
}
