package io.synod.bench.locks;

import io.synod.recipes.lock.LockKind;
import io.synod.recipes.lock.LockStrategy;

import java.time.Duration;
import java.util.Locale;

/**
 * The locks the experiments measure. The first four are the seed paper's primitives as the paper defines them
 * ("The Cost of Consensus", §III–IV): sync TAS retries its create after each negative reply (RETRY), async TAS
 * polls creates on a timer with several in flight (POLL), sync queue waits on its predecessor (WATCH), async queue
 * creates in parallel with polling the children (POLL). The paper's findings F1–F4 are judged on these four. Then
 * this project's watch-based locks, and the adaptive lock.
 */
public enum LockPrimitive {
    SYNC_QUEUE("sync queue", LockKind.SYNC_QUEUE, LockStrategy.watch(), true),
    ASYNC_QUEUE("async queue", LockKind.ASYNC_QUEUE, Polling.QUEUE, true),
    SYNC_TAS("sync TAS", LockKind.SYNC_TAS, LockStrategy.retry(), true),
    ASYNC_TAS("async TAS", LockKind.ASYNC_TAS, Polling.TAS, true),
    ASYNC_QUEUE_WATCH("async queue/watch", LockKind.ASYNC_QUEUE, LockStrategy.watch(), false),
    SYNC_TAS_WATCH("sync TAS/watch", LockKind.SYNC_TAS, LockStrategy.watch(), false),
    ASYNC_TAS_WATCH("async TAS/watch", LockKind.ASYNC_TAS, LockStrategy.watch(), false),
    /** {@code ZkLocks.adaptiveLock}: a TAS lock that picks its strategy from measured RTT and contention. */
    ADAPTIVE("adaptive", LockKind.ASYNC_TAS, null, false);

    /** The polling parameters of the paper's asynchronous primitives (the paper gives no numbers; these are ours). */
    static final class Polling {
        /** The async TAS: a create every 5 ms, at most 8 outstanding. */
        static final LockStrategy TAS = LockStrategy.poll(Duration.ofMillis(5), 8);
        /** The async queue: a children listing every 5 ms, at most 8 outstanding. */
        static final LockStrategy QUEUE = LockStrategy.poll(Duration.ofMillis(5), 8);

        private Polling() {
        }
    }

    private final String label;
    private final LockKind kind;
    private final LockStrategy strategy;
    private final boolean paper;

    LockPrimitive(String label, LockKind kind, LockStrategy strategy, boolean paper) {
        this.label = label;
        this.kind = kind;
        this.strategy = strategy;
        this.paper = paper;
    }

    /** The name reports and plots use. */
    public String label() {
        return label;
    }

    /** The API style and algorithm family. */
    public LockKind kind() {
        return kind;
    }

    /** How waiters wait; {@code null} for the adaptive lock, which chooses per acquisition. */
    public LockStrategy strategy() {
        return strategy;
    }

    /** {@code true} for the seed paper's four primitives. */
    public boolean isPaper() {
        return paper;
    }

    /** Driven through the asynchronous API (no thread blocked per waiter). */
    public boolean isAsync() {
        return kind.isAsync();
    }

    /** The CLI name: SYNC_TAS_WATCH is sync-tas-watch. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** What the label means, for help texts and reports. */
    public String describe() {
        return label + " = " + (strategy == null ? "adaptive TAS" : kind.label() + " " + strategy);
    }
}
