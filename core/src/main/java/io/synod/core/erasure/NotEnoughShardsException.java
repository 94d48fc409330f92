package io.synod.core.erasure;

/**
 * Thrown when fewer than D usable shards are available, so the data cannot be rebuilt: more shards
 * are missing (or corrupt) than there are parity shards. The replication layer can catch this
 * type to go and collect more shards instead of failing the request.
 */
public final class NotEnoughShardsException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final int availableShardCount;
    private final int requiredShardCount;

    /**
     * @param message what was missing, for the log
     * @param availableShardCount usable shards that were offered
     * @param requiredShardCount shards needed (the data shard count D)
     */
    public NotEnoughShardsException(String message, int availableShardCount, int requiredShardCount) {
        super(message);
        this.availableShardCount = availableShardCount;
        this.requiredShardCount = requiredShardCount;
    }

    /** Usable shards that were offered. */
    public int availableShardCount() {
        return availableShardCount;
    }

    /** Shards needed to rebuild (the data shard count). */
    public int requiredShardCount() {
        return requiredShardCount;
    }
}
