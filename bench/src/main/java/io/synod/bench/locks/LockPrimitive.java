package io.synod.bench.locks;

/** The four mutual-exclusion primitives of the seed paper, as the experiments name and plot them. */
public enum LockPrimitive {
    SYNC_QUEUE("sync queue", false, false),
    ASYNC_QUEUE("async queue", true, false),
    SYNC_TAS("sync TAS", false, true),
    ASYNC_TAS("async TAS", true, true);

    private final String label;
    private final boolean async;
    private final boolean testAndSet;

    LockPrimitive(String label, boolean async, boolean testAndSet) {
        this.label = label;
        this.async = async;
        this.testAndSet = testAndSet;
    }

    public String label() {
        return label;
    }

    public boolean isAsync() {
        return async;
    }

    public boolean isTestAndSet() {
        return testAndSet;
    }
}
