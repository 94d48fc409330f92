package io.synod.recipes.lock;

/** One blocking acquisition: the identity the lock tracks, and how to wake its thread. */
final class SyncAttempt {

    private volatile WakeSignal signal = new WakeSignal();

    /** A fresh signal for the next wait; wake-ups from now on go to it. */
    WakeSignal newSignal() {
        WakeSignal fresh = new WakeSignal();
        signal = fresh;
        return fresh;
    }

    /** Close and session events alike: the blocked thread re-checks, and finds out which it was. */
    void wake(boolean lockClosed) {
        signal.wake();
    }

    void checkNotAbandoned(LockBase lock) throws LockCancelledException {
        if (!lock.isCurrent(this)) {
            throw abandoned(lock);
        }
    }

    LockCancelledException abandoned(LockBase lock) {
        return new LockCancelledException(lock.lockPath, "lock closed while acquiring", null);
    }
}
