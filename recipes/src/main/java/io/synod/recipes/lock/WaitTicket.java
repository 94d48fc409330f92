package io.synod.recipes.lock;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One wait of an asynchronous acquisition: a one-shot watch whose first relevant notification runs the next step,
 * exactly once, however many sources fire (the watch itself, a session event, close, or the read that found the
 * node already gone). Every watch event counts (the backend does not report connection notices that leave the watch
 * in place).
 */
final class WaitTicket implements Consumer<LockBackend.WatchEvent> {

    private final AtomicBoolean fired = new AtomicBoolean();
    private final Runnable next;

    WaitTicket(Runnable next) {
        this.next = next;
    }

    @Override
    public void accept(LockBackend.WatchEvent event) {
        fire();
    }

    void fire() {
        if (fired.compareAndSet(false, true)) {
            next.run();
        }
    }
}
