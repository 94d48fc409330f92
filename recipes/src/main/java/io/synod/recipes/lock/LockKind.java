package io.synod.recipes.lock;

/** The four lock recipes, as the experiments name them. */
public enum LockKind {
    /** {@link QueueLock}. */
    SYNC_QUEUE("sync queue", false),
    /** {@link AsyncQueueLock}. */
    ASYNC_QUEUE("async queue", true),
    /** {@link TasLock}. */
    SYNC_TAS("sync TAS", false),
    /** {@link AsyncTasLock}. */
    ASYNC_TAS("async TAS", true);

    private final String label;
    private final boolean async;

    LockKind(String label, boolean async) {
        this.label = label;
        this.async = async;
    }

    /** The name reports and plots use, e.g. "sync TAS" (the seed paper's terms). */
    public String label() {
        return label;
    }

    /** {@code true} for kinds whose factory returns an {@link AsyncLock}, {@code false} for a {@link SyncLock}. */
    public boolean isAsync() {
        return async;
    }
}
