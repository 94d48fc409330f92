package io.synod.client;

import io.synod.protocol.KeyChange;
import io.synod.protocol.KeyChangeBatch;
import io.synod.protocol.WatchCodec;
import java.util.concurrent.Future;

/**
 * A watch on a key or a prefix of the session group, from a position (slot, index) on: the client long-polls the
 * group's leader, which answers with the next events (at most {@link #BATCH} at a time) as soon as there are any;
 * the next poll starts where the answer ended, so events reach the listener in slot order, each once, across
 * reconnects and leader changes. One poll is outstanding per watch (bounded). {@link #close()} stops it.
 */
public final class SynodWatch implements AutoCloseable {
    /** Most events one poll returns. */
    static final int BATCH = 256;
    /** How long the server holds a poll with nothing to report. */
    static final int WAIT_MILLIS = 2_000;

    private final SynodClient client;
    private final String key;
    private final boolean prefix;
    private final WatchListener listener;
    private volatile long nextSlot;
    private volatile int nextIndex;
    private volatile boolean closed;
    private volatile Future<?> retry;
    private int failures;

    SynodWatch(SynodClient client, String key, boolean prefix, long fromSlot, int fromIndex, WatchListener listener) {
        this.client = client;
        this.key = key;
        this.prefix = prefix;
        this.nextSlot = fromSlot;
        this.nextIndex = fromIndex;
        this.listener = listener;
    }

    /** The position the next event will be read from (what to resume from with a new watch). */
    public long nextSlot() {
        return nextSlot;
    }

    public int nextIndex() {
        return nextIndex;
    }

    void poll() {
        if (closed) {
            return;
        }
        if (client.engine().isClosed()) {
            closed = true;
            listener.onError(new UnavailableException("the client is closed"));
            return;
        }
        WatchCodec.Query query = new WatchCodec.Query(key, prefix, nextSlot, nextIndex, BATCH, WAIT_MILLIS);
        client.engine().submitWatch("watch of " + (prefix ? "prefix '" : "key '") + key + "'", WatchCodec.encode(query),
                (WAIT_MILLIS + 10_000) * 1_000_000L).whenComplete((reply, error) -> {
                    if (closed) {
                        return;
                    }
                    if (error != null) {
                        // Lost connection, timeout, leader change: poll again from the same position after a pause.
                        long pause = Math.min(1_000, 10L << Math.min(failures++, 7)) * 1_000_000L;
                        retry = client.engine().schedule(this::poll, pause);
                        if (retry == null && !closed) {
                            closed = true;
                            listener.onError(new UnavailableException("the client is closed"));
                        }
                        return;
                    }
                    failures = 0;
                    KeyChangeBatch batch;
                    try {
                        batch = WatchCodec.decodeBatch(reply.result());
                    } catch (IllegalArgumentException e) {
                        closed = true;
                        listener.onError(new SynodException("server " + reply.node() + " sent a bad watch answer: "
                                + e.getMessage()));
                        return;
                    }
                    if (batch.compacted()) {
                        closed = true;
                        listener.onError(new WatchCompactedException("the events of " + (prefix ? "prefix '" : "key '") + key
                                + "' from slot " + nextSlot + " (index " + nextIndex + ") are no longer kept by the servers;"
                                + " read the current state and watch again from the slot after that read"));
                        return;
                    }
                    for (KeyChange e : batch.events()) {
                        if (closed) {
                            return;
                        }
                        nextSlot = e.slot();
                        nextIndex = e.index() + 1;
                        listener.onEvent(new WatchEvent(e.slot(), e.index(), e.key(),
                                e.type() == KeyChange.Type.PUT ? WatchEvent.Type.PUT : WatchEvent.Type.DELETE));
                    }
                    nextSlot = batch.nextSlot();
                    nextIndex = batch.nextIndex();
                    poll();
                });
    }

    @Override
    public void close() {
        closed = true;
        Future<?> f = retry;
        if (f != null) {
            f.cancel(false);
        }
    }
}
