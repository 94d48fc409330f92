package io.synod.recipes.lock;

import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;

/**
 * A lock kind (API style and algorithm family) with a waiting strategy: what the strategy-aware tests run. The
 * WATCH variants are the four original locks; the others are the seed paper's primitives (sync TAS = RETRY, async
 * TAS = POLL, async queue = POLL) and RETRY/POLL behind the blocking API. POLL is set aggressive (1 ms, several in
 * flight) so that extra in-flight requests after a win are exercised.
 */
enum Variant {
    SYNC_QUEUE(LockKind.SYNC_QUEUE, LockStrategy.watch()),
    ASYNC_QUEUE(LockKind.ASYNC_QUEUE, LockStrategy.watch()),
    SYNC_TAS(LockKind.SYNC_TAS, LockStrategy.watch()),
    ASYNC_TAS(LockKind.ASYNC_TAS, LockStrategy.watch()),
    SYNC_TAS_RETRY(LockKind.SYNC_TAS, LockStrategy.retry()),
    ASYNC_TAS_POLL(LockKind.ASYNC_TAS, LockStrategy.poll(Duration.ofMillis(1), 4)),
    ASYNC_QUEUE_POLL(LockKind.ASYNC_QUEUE, LockStrategy.poll(Duration.ofMillis(1), 3)),
    SYNC_QUEUE_RETRY(LockKind.SYNC_QUEUE, LockStrategy.retry(Duration.ofMillis(1)));

    final LockKind kind;
    final LockStrategy strategy;

    Variant(LockKind kind, LockStrategy strategy) {
        this.kind = kind;
        this.strategy = strategy;
    }

    boolean isQueue() {
        return kind == LockKind.SYNC_QUEUE || kind == LockKind.ASYNC_QUEUE;
    }

    boolean isAsync() {
        return kind.isAsync();
    }

    LockOptions options() {
        return LockOptions.builder().strategy(strategy).build();
    }

    LockOptions options(LockOptions base) {
        return base.withStrategy(strategy);
    }

    SyncLock syncLock(CuratorFramework client, String path) {
        return kind == LockKind.SYNC_QUEUE ? ZkLocks.queueLock(client, path, options()) : ZkLocks.tasLock(client, path, options());
    }

    AsyncLock asyncLock(CuratorFramework client, String path) {
        return kind == LockKind.ASYNC_QUEUE ? ZkLocks.asyncQueueLock(client, path, options()) : ZkLocks.asyncTasLock(client, path, options());
    }
}
