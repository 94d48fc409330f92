package io.synod.recipes.lock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;

/**
 * What the asynchronous locks share: the {@link AsyncLock} entry points and the lifecycle of one
 * acquisition ({@link AsyncAttempt}). Each lock supplies only its algorithm, as an attempt's
 * {@link AsyncAttempt#start()} and {@link AsyncAttempt#cleanUp()}.
 */
abstract class AsyncLockBase extends LockBase implements AsyncLock {

    /** The strategy of the next acquisition; an {@link AdaptiveLock} changes it between acquisitions. */
    private volatile LockStrategy strategy;

    AsyncLockBase(LockBackend backend, String lockPath, LockOptions options) {
        super(backend, lockPath, options);
        this.strategy = options.strategy();
    }

    /** The strategy new acquisitions use. */
    final LockStrategy strategy() {
        return strategy;
    }

    /** Takes effect from the next acquisition on; one in progress keeps the strategy it started with. */
    final void useStrategy(LockStrategy next) {
        this.strategy = Objects.requireNonNull(next, "strategy");
    }

    /** A fresh attempt of this lock's algorithm. */
    abstract AsyncAttempt newAttempt();

    @Override
    public final CompletionStage<LockHandle> acquireAsync() {
        return start();
    }

    @Override
    public final CompletionStage<Optional<LockHandle>> acquireAsync(Duration timeout) {
        return AsyncSupport.withTimeout(this, start(), timeout);
    }

    @Override
    public final CompletionStage<Void> releaseAsync() {
        return releaseWithoutBlocking();
    }

    private CompletableFuture<LockHandle> start() {
        AsyncAttempt attempt = newAttempt();
        try {
            beginAcquire(attempt, attempt::wake);
        } catch (LockStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        attempt.start();
        return attempt.result;
    }

    /**
     * One acquisition: its result, the watch it waits on, and how it ends. {@code result} completes
     * once, with the hold or with an error; an attempt that fails or is cancelled is abandoned, which
     * ends the acquisition and removes what it created ({@link #cleanUp()}).
     */
    abstract class AsyncAttempt {
        final CompletableFuture<LockHandle> result = new CompletableFuture<>();

        /** The watch this attempt waits on, or null while a step is in flight. Guarded by "this". */
        WaitTicket waiting;

        /** The hold this attempt was granted, or null. Guarded by "this". */
        Hold grantedHold;

        /** Issues the first step; completion of {@code result} with an error abandons the attempt. */
        abstract void start();

        /** Removes what this attempt created; must be safe to call more than once. */
        abstract void cleanUp();

        /** Close: give up. Session events: look at the world again if waiting (a step in flight checks by itself). */
        final void wake(boolean lockClosed) {
            if (lockClosed) {
                fail(new LockCancelledException(lockPath, "lock closed while acquiring", null));
                return;
            }
            WaitTicket ticket;
            synchronized (this) {
                ticket = waiting;
            }
            if (ticket != null) {
                ticket.fire();
            }
        }

        final void fail(LockException error) {
            result.completeExceptionally(error);
        }

        /**
         * Turns our node into the hold and completes the result with it. If the attempt was abandoned meanwhile (lock
         * closed), it fails instead and no grant is recorded, so that {@link #cleanUp()} removes the node; a hold granted
         * in the same instant as a cancel is released.
         */
        final void grantAndComplete(String nodePath, LockBackend.Entry node) {
            Hold hold;
            synchronized (this) {
                hold = grant(this, nodePath, node);
                grantedHold = hold;
            }
            if (hold == null) {
                fail(new LockCancelledException(lockPath, "lock closed while acquiring", null));
            } else if (!result.complete(hold)) {
                releaseOrphanedGrant(hold); // cancelled in the same instant
            }
        }

        final void stepFailed(Throwable bug) {
            fail(new LockCoordinationException(lockPath, "acquisition step failed: " + bug, Code.SYSTEMERROR, bug));
        }

        final void abandon() {
            endAcquire(this);
            cleanUp();
        }
    }

    /**
     * An attempt of the RETRY or POLL strategy: single requests ({@link LockBackend#create} and the like) on the
     * current session, paced by the strategy. RETRY sends the next request after a negative reply (plus back-off); POLL sends one every interval
     * while fewer than {@code maxInFlight} are outstanding. Connection loss is paced and bounded by the client's
     * client's retry policy ({@link LockBackend#connectionLossPauseNanos}: consecutive losses count as retries), so a
     * strategy never outlives what the user allowed the client to do; parents reaped as containers are created again, at most {@link #MAX_MISSING_PARENT} times in a
     * row.
     */
    abstract class ProbingAttempt extends AsyncAttempt {
        final LockStrategy strategy = strategy();
        // Guarded by "this".
        private ScheduledFuture<?> ticker;
        private long notBeforeNanos = System.nanoTime();
        private int connectionLosses;
        private long firstLossNanos;
        private int missingParents;

        /** Issues the first requests. */
        abstract void begin();

        /** POLL: one tick of the timer. */
        abstract void tick();

        @Override
        final void start() {
            result.whenComplete((hold, error) -> {
                stopTicker();
                if (error != null) {
                    abandon();
                }
            });
            begin();
            if (strategy.kind() == LockStrategy.Kind.POLL) {
                ScheduledFuture<?> started = LockScheduler.scheduleAtFixedRate(this::safeTick, strategy.interval().toNanos());
                synchronized (this) {
                    ticker = started;
                }
                if (result.isDone()) {
                    stopTicker();
                }
            }
        }

        private void safeTick() {
            try {
                if (result.isDone()) {
                    stopTicker();
                } else {
                    tick();
                }
            } catch (RuntimeException e) {
                stepFailed(e);
            }
        }

        private void stopTicker() {
            ScheduledFuture<?> running;
            synchronized (this) {
                running = ticker;
                ticker = null;
            }
            if (running != null) {
                running.cancel(false);
            }
        }

        /** Guarded by "this": whether connection-loss pacing lets a request go out now. */
        final boolean pacedOut() {
            return System.nanoTime() - notBeforeNanos < 0;
        }

        /** RETRY: the next request after the back-off (or the connection-loss pause, if longer). POLL: the ticks do it. */
        final void afterNegative(Runnable next) {
            if (strategy.kind() != LockStrategy.Kind.RETRY || result.isDone()) {
                return;
            }
            long delay;
            synchronized (this) {
                delay = Math.max(strategy.interval().toNanos(), notBeforeNanos - System.nanoTime());
            }
            if (delay <= 0) {
                next.run();
            } else {
                LockScheduler.schedule(() -> {
                    if (!result.isDone()) {
                        next.run();
                    }
                }, delay);
            }
        }

        /** A reply that proves the connection works. */
        final synchronized void connectionWorks() {
            connectionLosses = 0;
        }

        /**
         * A request failed with connection loss (or on a dead handle). Returns {@code false} when the retry policy is
         * exhausted (the attempt must fail); otherwise sets the pause before the next request.
         */
        final boolean connectionLossAllowsRetry() {
            int count;
            long elapsedMillis;
            synchronized (this) {
                if (connectionLosses == 0) {
                    firstLossNanos = System.nanoTime();
                }
                count = connectionLosses++;
                elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstLossNanos);
            }
            long pauseNanos = backend.connectionLossPauseNanos(count, elapsedMillis);
            synchronized (this) {
                // Never faster than one request per poll interval or 10 ms, whatever the policy says.
                notBeforeNanos = System.nanoTime() + Math.max(Math.max(pauseNanos, 0), Math.max(strategy.interval().toNanos(), 10_000_000L));
            }
            return pauseNanos >= 0;
        }

        /**
         * Fails the attempt with connection loss once the retry policy is exhausted; else RETRY calls {@code next}
         * after the pause (POLL leaves the next request to its ticks).
         */
        final void onConnectionLoss(String step, Runnable next) {
            if (connectionLossAllowsRetry()) {
                afterNegative(next);
            } else {
                fail(translate(step, Code.CONNECTIONLOSS, null));
            }
        }

        /** As {@link #onConnectionLoss}, but {@code next} runs after the pause whatever the strategy (a step ticks do not redo). */
        final void onConnectionLossRedo(String step, Runnable next) {
            if (!connectionLossAllowsRetry()) {
                fail(translate(step, Code.CONNECTIONLOSS, null));
                return;
            }
            long delay;
            synchronized (this) {
                delay = notBeforeNanos - System.nanoTime();
            }
            LockScheduler.schedule(() -> {
                if (!result.isDone()) {
                    next.run();
                }
            }, delay);
        }

        /**
         * The create found no parent: the lock path was never created, or it is a container that ZooKeeper reaped
         * between our creating it and our create (Curator's {@code InterProcessMutex} retries this case too). Creates
         * the path (as a container, parents too) and then calls {@code next}.
         */
        final void recreateParentThen(Runnable next) {
            int misses;
            synchronized (this) {
                misses = ++missingParents;
            }
            if (misses > MAX_MISSING_PARENT) {
                fail(translate("create lock node", Code.NONODE, null));
                return;
            }
            backend.ensureParent(lockPath)
                    .whenComplete((reply, error) -> {
                        if (!result.isDone()) {
                            next.run();
                        }
                    });
        }

        final synchronized void parentFound() {
            missingParents = 0;
        }

        /** Runs a reply handler, turning a bug in it into a failed attempt rather than a hang. */
        final <T> void handle(CompletableFuture<T> reply, Consumer<T> handler) {
            reply.whenComplete((value, error) -> {
                try {
                    if (error != null) {
                        stepFailed(error);
                    } else {
                        handler.accept(value);
                    }
                } catch (RuntimeException e) {
                    stepFailed(e);
                }
            });
        }
    }
}
