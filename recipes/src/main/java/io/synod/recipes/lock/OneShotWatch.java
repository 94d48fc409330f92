package io.synod.recipes.lock;

import io.synod.client.SynodClient;
import io.synod.client.SynodException;
import io.synod.client.SynodWatch;
import io.synod.client.UnavailableException;
import io.synod.client.WatchEvent;
import io.synod.client.WatchListener;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/** A one-shot watch: the first event on the key (or the session's end) is reported, then the watch is closed. */
final class OneShotWatch implements WatchListener {
    private final Set<OneShotWatch> watches;
    private final Executor events;
    private final Consumer<LockBackend.WatchEvent> target;
    private boolean fired;

    private SynodWatch watch;

    /** Registers itself in {@code watches} until it fires; {@code target} is called on {@code events}. */
    OneShotWatch(SynodClient client, Set<OneShotWatch> watches, Executor events, String key, long fromSlot,
            Consumer<LockBackend.WatchEvent> target) {
        this.watches = watches;
        this.events = events;
        this.target = target;
        watches.add(this);
        SynodWatch w = client.watch(key, fromSlot, this);
        boolean firedAlready;
        synchronized (this) {
            watch = w;
            firedAlready = fired;
        }
        if (firedAlready) {
            w.close(); // the first event came before the watch object was known here
        }
    }

    @Override
    public void onEvent(WatchEvent event) {
        fire(event.type(), false);
    }

    @Override
    public void onError(SynodException error) {
        // Events no longer kept: report a change, so the lock reads the key again; a closed client ends the session.
        fire(WatchEvent.Type.PUT, error instanceof UnavailableException);
    }

    /** Reports the session's end (once, like any event) and closes the watch. */
    void sessionEnded() {
        fire(WatchEvent.Type.DELETE, true);
    }

    private void fire(WatchEvent.Type type, boolean sessionEnded) {
        SynodWatch w;
        synchronized (this) {
            if (fired) {
                return;
            }
            fired = true;
            w = watch;
        }
        watches.remove(this);
        if (w != null) {
            w.close();
        }
        LockBackend.WatchEvent event = sessionEnded ? LockBackend.WatchEvent.SESSION_ENDED
                : type == WatchEvent.Type.DELETE ? LockBackend.WatchEvent.DELETED : LockBackend.WatchEvent.CHANGED;
        events.execute(() -> target.accept(event));
    }
}
