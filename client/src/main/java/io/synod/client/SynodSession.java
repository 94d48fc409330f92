package io.synod.client;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * A session with a TTL (like an etcd lease or a ZooKeeper session), granted by {@link SynodClient#grantSession}: its
 * id is the slot of the grant. The client keeps it alive (a keep-alive every TTL/3); the leader of the session group
 * expires it through the log when no keep-alive reached it for a TTL, and then deletes every key the session created
 * as ephemeral. {@link #close()} revokes it (the same deletion, at once).
 *
 * <p><b>Lost.</b> {@link #lost()} completes (and {@link #onLost} listeners run) when the session is known to have
 * ended: a keep-alive was answered "no such session", or no keep-alive was acknowledged for a whole TTL counted from
 * when the newest acknowledged one was <em>sent</em> — the leader cannot have expired the session before that moment
 * (its deadline starts when it applies the keep-alive, which is later), so {@link #isAlive()} is a local check a lock
 * holder may rely on, up to clock rate drift (keep a margin). Thread-safe.
 */
public final class SynodSession implements AutoCloseable {
    private final SynodClient client;
    private final long id;
    private final long ttlMillis;
    private final CompletableFuture<String> lost = new CompletableFuture<>();
    private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
    /** System.nanoTime() when the newest acknowledged keep-alive (or the grant) was sent. */
    private volatile long lastAckSentNanos;
    private volatile boolean closed;
    private volatile Future<?> next;
    private boolean keepAliveInFlight;

    SynodSession(SynodClient client, long id, long ttlMillis, long grantSentNanos) {
        this.client = client;
        this.id = id;
        this.ttlMillis = ttlMillis;
        this.lastAckSentNanos = grantSentNanos;
        lost.thenAccept(reason -> listeners.forEach(l -> l.accept(reason)));
    }

    /** The session id (the slot of its grant); what keys it owns report as their owner. */
    public long id() {
        return id;
    }

    public long ttlMillis() {
        return ttlMillis;
    }

    /** Completes with the reason once the session has ended or is given up on (never for {@link #close()}). */
    public CompletableFuture<String> lost() {
        return lost.copy();
    }

    /** Runs {@code listener} with the reason when the session is lost (at once if it already is). */
    public void onLost(Consumer<String> listener) {
        listeners.add(listener);
        if (lost.isDone()) {
            lost.thenAccept(listener);
        }
    }

    /**
     * Whether the session is certainly still alive on the servers: not lost, and less than a TTL has passed since the
     * newest acknowledged keep-alive was sent (a local check, no request).
     */
    public boolean isAlive() {
        return !closed && !lost.isDone() && System.nanoTime() - lastAckSentNanos < ttlMillis * 1_000_000L;
    }

    /** Nanoseconds the session is certainly alive for from now (0 if it may have ended). */
    public long remainingNanos() {
        return isAlive() ? Math.max(0, lastAckSentNanos + ttlMillis * 1_000_000L - System.nanoTime()) : 0;
    }

    void start() {
        schedule(intervalNanos());
    }

    private long intervalNanos() {
        return Math.max(1_000_000L, ttlMillis * 1_000_000L / 3);
    }

    private void schedule(long delayNanos) {
        if (!closed && !lost.isDone()) {
            next = client.engine().schedule(this::tick, delayNanos);
        }
    }

    /** On the client's event loop: check the deadline, send a keep-alive unless one is out, schedule the next tick. */
    private void tick() {
        if (closed || lost.isDone()) {
            return;
        }
        if (System.nanoTime() - lastAckSentNanos >= ttlMillis * 1_000_000L) {
            markLost("no keep-alive of session " + id + " was acknowledged within its TTL of " + ttlMillis + " ms");
            return;
        }
        if (!keepAliveInFlight) {
            keepAliveInFlight = true;
            long sent = System.nanoTime();
            client.keepAlive(id, intervalNanos()).whenComplete((alive, error) -> {
                client.engine().schedule(() -> keepAliveInFlight = false, 0);
                if (error == null && alive) {
                    lastAckSentNanos = Math.max(lastAckSentNanos, sent);
                } else if (error == null) {
                    markLost("session " + id + " has ended on the servers (expired or revoked)");
                }
            });
        }
        schedule(Math.max(1_000_000L, intervalNanos() / 2));
    }

    private void markLost(String reason) {
        lost.complete(reason);
    }

    /** Stops the keep-alives and revokes the session (its ephemeral keys are deleted); waits for the answer. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Future<?> f = next;
        if (f != null) {
            f.cancel(false);
        }
        if (!lost.isDone() && !client.engine().isClosed()) {
            try {
                client.revoke(id).join();
            } catch (RuntimeException e) {
                // The session ends at its TTL anyway.
            }
        }
    }

    @Override
    public String toString() {
        return "SynodSession{" + id + ", ttl " + ttlMillis + " ms" + (lost.isDone() ? ", lost" : "") + "}";
    }
}
