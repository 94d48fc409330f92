package io.synod.recipes.lock;

/** The four lock recipes, as the experiments name them. */
public enum LockKind {
  /** {@link QueueLock}. */
  SYNC_QUEUE(false),
  /** {@link AsyncQueueLock}. */
  ASYNC_QUEUE(true),
  /** {@link TasLock}. */
  SYNC_TAS(false),
  /** {@link AsyncTasLock}. */
  ASYNC_TAS(true);

  private final boolean async;

  LockKind(boolean async) {
    this.async = async;
  }

  /** {@code true} for kinds whose factory returns an {@link AsyncLock}, {@code false} for a {@link SyncLock}. */
  public boolean isAsync() {
    return async;
  }
}
