package io.synod.recipes.lock;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * What a blocked synchronous acquisition sleeps on: a one-shot watch ({@link LockBackend}) on the key it waits for,
 * and the lock's own wake-ups (session events, close). Every watch event wakes it (the backend does not report
 * connection notices that leave the watch in place).
 */
final class WakeSignal implements Consumer<LockBackend.WatchEvent> {

    private final ReentrantLock mutex = new ReentrantLock();
    private final Condition woken = mutex.newCondition();
    private boolean signalled;

    @Override
    public void accept(LockBackend.WatchEvent event) {
        wake();
    }

    void wake() {
        mutex.lock();
        try {
            signalled = true;
            woken.signalAll();
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Waits until woken, or when {@code timed} until {@code deadlineNanos} (a {@link System#nanoTime()} value).
     * Returns {@code false} on timeout.
     */
    boolean await(boolean timed, long deadlineNanos) throws InterruptedException {
        mutex.lock();
        try {
            while (!signalled) {
                if (!timed) {
                    woken.await();
                } else {
                    long remainingNanos = deadlineNanos - System.nanoTime();
                    if (remainingNanos <= 0) {
                        return false;
                    }
                    woken.awaitNanos(remainingNanos);
                }
            }
            return true;
        } finally {
            mutex.unlock();
        }
    }
}
