package io.synod.recipes.lock;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one timer thread of the library: acquisition timeouts, suspended-lost bounds and reaper back-off. Tasks
 * only start background operations or complete futures, so one thread serves any number of locks; it is a
 * daemon so that an application that forgets to close a lock can still exit.
 */
final class LockScheduler {

    private static final ScheduledThreadPoolExecutor TIMER = createTimer();

    private LockScheduler() {}

    private static ScheduledThreadPoolExecutor createTimer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "synod-lock-timer");
            thread.setDaemon(true);
            return thread;
        });
        // Cancelled timeouts are the common case (the lock usually comes first): drop them at once.
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    /** A periodic task (the POLL strategy's ticks); cancel it when done. */
    static ScheduledFuture<?> scheduleAtFixedRate(Runnable task, long periodNanos) {
        return TIMER.scheduleAtFixedRate(task, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }

    static ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        return TIMER.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }
}
