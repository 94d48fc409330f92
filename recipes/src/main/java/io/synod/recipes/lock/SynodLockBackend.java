package io.synod.recipes.lock;

import static io.synod.recipes.lock.SynodReplies.await;
import static io.synod.recipes.lock.SynodReplies.failure;
import static io.synod.recipes.lock.SynodReplies.unwrap;

import io.synod.client.BadRequestException;
import io.synod.client.KeyEntry;
import io.synod.client.KeyListing;
import io.synod.client.SessionExpiredException;
import io.synod.client.SynodClient;
import io.synod.client.SynodSession;
import io.synod.client.UnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.zookeeper.KeeperException.Code;

/**
 * {@link LockBackend} on Synod through the SDK: the lock's keys are keys of the session group, created with
 * {@link SynodClient#create} as ephemeral (and sequential) keys of this backend's {@link SynodSession}; the token is
 * the create's slot, the owner the session id; one-shot watches are SDK watches from the read's slot + 1, closed at
 * their first event; deletes are {@link SynodClient#deleteIf} checked by token. Parents need no creating: keys are
 * flat, and a parent's children are the keys under {@code parent + "/"} with no further '/'.
 *
 * <p><b>Session.</b> The backend grants one session (TTL {@link #DEFAULT_TTL} unless told) and keeps a new one
 * granted after a loss. It reports SUSPENDED when no keep-alive has been acknowledged for half the TTL (the locks then
 * end a hold a third of the TTL later, before the session can have expired), CONNECTED when one is again (or a new
 * session was granted), LOST when the session ended or a whole TTL passed without an acknowledged keep-alive.
 *
 * <p><b>Order.</b> Single requests are sent one after another (the next when the previous one is answered), so they
 * execute and are answered in the order issued. Callbacks and session events run on the backend's one event
 * thread. Close the backend to revoke its session.
 */
public final class SynodLockBackend implements LockBackend, AutoCloseable {
    /** Session TTL unless told otherwise. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(10);
    /** Most children a list returns (the server's listing bound). */
    static final int MAX_CHILDREN = 4096;
    private static final int MAX_RETRIES = 29;
    private static final long MAX_RETRY_MILLIS = 60_000;

    private final SynodClient client;
    private final long ttlMillis;
    private final ExecutorService events;
    private final ScheduledExecutorService timer;
    private final List<Consumer<SessionEvent>> listeners = new CopyOnWriteArrayList<>();
    private final Set<OneShotWatch> watches = ConcurrentHashMap.newKeySet();
    private volatile SynodSession session;
    private volatile boolean sessionLive;
    private volatile boolean suspended;
    private volatile boolean closed;
    private CompletableFuture<?> singleTail = CompletableFuture.completedFuture(null);
    private final ScheduledFuture<?> monitor;

    /** A backend with a session of {@link #DEFAULT_TTL} on {@code client} (granted now; fails if the cluster is unreachable). */
    public SynodLockBackend(SynodClient client) {
        this(client, DEFAULT_TTL);
    }

    /** A backend with a session of {@code ttl} on {@code client} (granted now). */
    public SynodLockBackend(SynodClient client, Duration ttl) {
        this.client = Objects.requireNonNull(client, "client");
        this.ttlMillis = ttl.toMillis();
        if (ttlMillis < 10) {
            throw new IllegalArgumentException("session ttl must be >= 10 ms, got " + ttl);
        }
        this.events = Executors.newSingleThreadExecutor(r -> daemon(r, "synod-lock-events"));
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "synod-lock-timer"));
        try {
            adopt(client.grantSession(ttl).join());
        } catch (CompletionException e) {
            events.shutdown();
            timer.shutdown();
            if (unwrap(e) instanceof RuntimeException cause) {
                throw cause; // the SDK's own exception: unavailable, timeout, bad TTL
            }
            throw e;
        }
        long period = Math.max(1, ttlMillis / 10);
        this.monitor = timer.scheduleWithFixedDelay(this::checkSuspended, period, period, TimeUnit.MILLISECONDS);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Whether {@link #close()} was called (or the client closed under it). */
    public boolean isClosed() {
        return closed;
    }

    /** The SDK client this backend uses. */
    public SynodClient client() {
        return client;
    }

    /** The current session object, or null between a loss and the next grant. */
    public SynodSession session() {
        return sessionLive ? session : null;
    }

    // --- session

    private void adopt(SynodSession s) {
        session = s;
        sessionLive = true;
        suspended = false;
        s.onLost(reason -> events.execute(() -> sessionLost(s)));
    }

    private void sessionLost(SynodSession s) {
        if (session != s || !sessionLive) {
            return;
        }
        sessionLive = false;
        fire(SessionEvent.LOST);
        for (OneShotWatch w : new ArrayList<>(watches)) {
            w.sessionEnded();
        }
        regrant(0);
    }

    private void regrant(int attempt) {
        if (closed) {
            return;
        }
        client.grantSession(Duration.ofMillis(ttlMillis)).whenCompleteAsync((s, error) -> {
            if (closed) {
                if (s != null) {
                    s.close();
                }
                return;
            }
            if (error != null) {
                if (unwrap(error) instanceof UnavailableException u && String.valueOf(u.getMessage()).contains("closed")) {
                    close(); // the client is closed: no session will come again
                } else {
                    timer.schedule(() -> regrant(attempt + 1), Math.min(1_000, 10L << Math.min(attempt, 7)), TimeUnit.MILLISECONDS);
                }
                return;
            }
            adopt(s);
            fire(SessionEvent.CONNECTED);
        }, events);
    }

    /** SUSPENDED when half the TTL passed without an acknowledged keep-alive; CONNECTED when one comes again. */
    private void checkSuspended() {
        SynodSession s = session;
        if (!sessionLive || s == null) {
            return;
        }
        boolean late = s.remainingNanos() < ttlMillis * 500_000L;
        if (late != suspended) {
            suspended = late;
            events.execute(() -> {
                if (session == s && sessionLive) {
                    fire(late ? SessionEvent.SUSPENDED : SessionEvent.CONNECTED);
                }
            });
        }
    }

    private void fire(SessionEvent event) {
        for (Consumer<SessionEvent> l : listeners) {
            try {
                l.accept(event);
            } catch (RuntimeException e) {
                // A listener's failure must not stop the others.
            }
        }
    }

    @Override
    public long sessionId() {
        SynodSession s = session;
        return sessionLive && s != null && !closed ? s.id() : 0;
    }

    @Override
    public long sessionTimeoutMillis() {
        return ttlMillis;
    }

    @Override
    public Registration onSessionEvent(Consumer<SessionEvent> listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    @Override
    public long connectionLossPauseNanos(int count, long elapsedMillis) {
        if (closed || count > MAX_RETRIES || elapsedMillis > MAX_RETRY_MILLIS) {
            return -1;
        }
        return TimeUnit.MILLISECONDS.toNanos(Math.min(1_000, 10L << Math.min(count, 7)));
    }

    @Override
    public Object connectionIdentity() {
        return client;
    }

    // --- single requests

    /** Runs {@code request} after every earlier single request was answered; the reply completes on the event thread. */
    private synchronized CompletableFuture<Reply> single(Supplier<CompletableFuture<Reply>> request) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("the lock backend is closed"));
        }
        CompletableFuture<Reply> next = singleTail.handle((x, y) -> null).thenCompose(ignored -> request.get());
        singleTail = next;
        return next.thenApplyAsync(r -> r, events);
    }

    @Override
    public CompletableFuture<Reply> create(String key, byte[] data, boolean sequential) {
        return single(() -> createOnce(key, data, sequential));
    }

    private CompletableFuture<Reply> createOnce(String key, byte[] data, boolean sequential) {
        SynodSession s = session();
        if (s == null) {
            return CompletableFuture.completedFuture(Reply.of(Code.CONNECTIONLOSS, 0));
        }
        long sid = s.id();
        return client.create(key, data == null ? new byte[0] : data, s, sequential).handle((r, error) -> {
            if (error != null) {
                return failure(error, sid);
            }
            Entry entry = new Entry(r.token(), r.ownerSession());
            return new Reply(r.created() ? Code.OK : Code.NODEEXISTS, sid, r.key(), entry, null, List.of());
        });
    }

    @Override
    public CompletableFuture<Reply> read(String key) {
        return single(() -> readOnce(key, true));
    }

    @Override
    public CompletableFuture<Reply> exists(String key) {
        return single(() -> readOnce(key, false));
    }

    private CompletableFuture<Reply> readOnce(String key, boolean withData) {
        long sid = sessionId();
        return client.getEntry(key).handle((e, error) -> error != null ? failure(error, sid) : entryReply(e, withData, sid));
    }

    private static Reply entryReply(KeyEntry e, boolean withData, long sid) {
        if (!e.exists()) {
            return Reply.of(Code.NONODE, sid);
        }
        return new Reply(Code.OK, sid, null, new Entry(e.token(), e.ownerSession()), withData ? e.value() : null, List.of());
    }

    @Override
    public CompletableFuture<Reply> list(String parent) {
        return single(() -> listOnce(parent));
    }

    private CompletableFuture<Reply> listOnce(String parent) {
        long sid = sessionId();
        String prefix = parent.equals("/") ? "/" : parent + "/";
        return client.listKeys(prefix, MAX_CHILDREN).handle((l, error) -> {
            if (error != null) {
                return failure(error, sid);
            }
            if (l.more()) {
                return Reply.of(Code.SYSTEMERROR, sid); // more children than one listing holds: refused, not cut silently
            }
            List<String> children = new ArrayList<>();
            for (KeyListing.Listed k : l.keys()) {
                String name = k.key().substring(prefix.length());
                if (!name.isEmpty() && name.indexOf('/') < 0) {
                    children.add(name);
                }
            }
            return new Reply(Code.OK, sid, null, null, null, List.copyOf(children));
        });
    }

    // --- retrying requests

    /** Retries {@code attempt} on connection loss by {@link #connectionLossPauseNanos}; completes on the event thread. */
    private CompletableFuture<Reply> retrying(Supplier<CompletableFuture<Reply>> attempt) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("the lock backend is closed"));
        }
        CompletableFuture<Reply> out = new CompletableFuture<>();
        retry(attempt, out, 0, System.nanoTime());
        return out;
    }

    private void retry(Supplier<CompletableFuture<Reply>> attempt, CompletableFuture<Reply> out, int count, long startNanos) {
        attempt.get().whenCompleteAsync((reply, error) -> {
            if (error != null) {
                out.completeExceptionally(unwrap(error));
                return;
            }
            if (reply.code() != Code.CONNECTIONLOSS) {
                out.complete(new Reply(reply.code(), 0, reply.key(), reply.entry(), reply.data(), reply.children()));
                return;
            }
            long pause = connectionLossPauseNanos(count, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
            if (pause < 0) {
                out.complete(Reply.of(Code.CONNECTIONLOSS, 0));
                return;
            }
            timer.schedule(() -> retry(attempt, out, count + 1, startNanos), pause, TimeUnit.NANOSECONDS);
        }, events);
    }

    @Override
    public CompletableFuture<Reply> createRetrying(String key, byte[] data, boolean sequential) {
        return retrying(() -> createOnce(key, data, sequential));
    }

    @Override
    public Reply createRetryingBlocking(String key, byte[] data, boolean sequential) throws Exception {
        return await(createRetrying(key, data, sequential));
    }

    /** Keys are flat: a lock path needs no parent key. */
    @Override
    public CompletableFuture<Reply> ensureParent(String key) {
        validate(key);
        return CompletableFuture.completedFuture(Reply.of(Code.OK, 0));
    }

    @Override
    public CompletableFuture<Reply> readAndWatch(String key, Consumer<WatchEvent> watch) {
        return readAndWatch(key, watch, true, true);
    }

    @Override
    public Reply readAndWatchBlocking(String key, Consumer<WatchEvent> watch) throws Exception {
        return await(readAndWatch(key, watch));
    }

    @Override
    public CompletableFuture<Reply> existsAndWatch(String key, Consumer<WatchEvent> watch) {
        return readAndWatch(key, watch, false, false);
    }

    @Override
    public Reply existsAndWatchBlocking(String key, Consumer<WatchEvent> watch) throws Exception {
        return await(existsAndWatch(key, watch));
    }

    /**
     * Reads the key's entry and, from the slot after the read, watches it for one change ({@code onlyIfPresent}: only
     * if it exists, as ZooKeeper's getData).
     */
    private CompletableFuture<Reply> readAndWatch(String key, Consumer<LockBackend.WatchEvent> watch, boolean withData,
            boolean onlyIfPresent) {
        long sid = sessionId();
        return retrying(() -> client.getEntry(key).handle((e, error) -> {
            if (error != null) {
                return failure(error, sid);
            }
            if (e.exists() || !onlyIfPresent) {
                new OneShotWatch(client, watches, events, key, e.slot() + 1, watch);
            }
            return entryReply(e, withData, sid);
        }));
    }

    @Override
    public CompletableFuture<Reply> listRetrying(String parent) {
        return retrying(() -> listOnce(parent));
    }

    @Override
    public Reply listRetryingBlocking(String parent) throws Exception {
        return await(listRetrying(parent));
    }

    // --- deletes pinned to the owning session

    @Override
    public CompletableFuture<Void> deleteOwned(String lockPath, String key, long sessionId, long token) {
        if (sessionId == 0 || sessionId != sessionId()) {
            return CompletableFuture.completedFuture(null); // a key never outlives its session: nothing to do
        }
        return deleting(lockPath, key, () -> {
            if (sessionId != sessionId()) {
                return CompletableFuture.completedFuture(true);
            }
            if (token != ANY_TOKEN) {
                return client.deleteIf(key, token).thenApply(r -> true);
            }
            return client.getEntry(key).thenCompose(e -> !e.exists() || e.ownerSession() != sessionId
                    ? CompletableFuture.completedFuture(true) : client.deleteIf(key, e.token()).thenApply(r -> true));
        });
    }

    @Override
    public CompletableFuture<Void> deleteOwnedChildren(String lockPath, String namePrefix) {
        long sid = sessionId();
        if (sid == 0) {
            return CompletableFuture.completedFuture(null);
        }
        String prefix = child(lockPath, namePrefix);
        return deleting(lockPath, prefix + "*", () -> client.listKeys(prefix, MAX_CHILDREN).thenCompose(l -> {
            List<CompletableFuture<?>> deletes = new ArrayList<>();
            for (KeyListing.Listed k : l.keys()) {
                if (k.ownerSession() == sid && k.key().indexOf('/', lockPath.length() + 1) < 0) {
                    deletes.add(client.deleteIf(k.key(), k.token()));
                }
            }
            return CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new)).thenApply(v -> true);
        }));
    }

    @Override
    public CompletableFuture<Void> deleteOwnedIfData(String lockPath, String key, byte[] data) {
        long sid = sessionId();
        if (sid == 0) {
            return CompletableFuture.completedFuture(null);
        }
        return deleting(lockPath, key, () -> client.getEntry(key).thenCompose(e ->
                !e.exists() || e.ownerSession() != sid || !Arrays.equals(e.value(), data)
                        ? CompletableFuture.completedFuture(true) : client.deleteIf(key, e.token()).thenApply(r -> true)));
    }

    /**
     * Runs a delete, retried on unknown outcomes (each attempt re-checks what it deletes) until it is answered, the
     * session ends, or the retry budget runs out ({@link LockCoordinationException}).
     */
    private CompletableFuture<Void> deleting(String lockPath, String what, Supplier<CompletableFuture<Boolean>> attempt) {
        CompletableFuture<Void> out = new CompletableFuture<>();
        long sid = sessionId();
        deleteAttempt(lockPath, what, attempt, out, 0, System.nanoTime(), sid);
        return out;
    }

    private void deleteAttempt(String lockPath, String what, Supplier<CompletableFuture<Boolean>> attempt,
            CompletableFuture<Void> out, int count, long startNanos, long sid) {
        attempt.get().whenCompleteAsync((ok, error) -> {
            if (error == null || sessionId() != sid) {
                out.complete(null);
                return;
            }
            Throwable cause = unwrap(error);
            if (cause instanceof SessionExpiredException) {
                out.complete(null);
                return;
            }
            long pause = cause instanceof BadRequestException ? -1
                    : connectionLossPauseNanos(count, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
            if (pause < 0) {
                out.completeExceptionally(new LockCoordinationException(lockPath, "deleting " + what + " failed",
                        cause instanceof BadRequestException ? Code.BADARGUMENTS : Code.CONNECTIONLOSS, cause));
                return;
            }
            timer.schedule(() -> deleteAttempt(lockPath, what, attempt, out, count + 1, startNanos, sid), pause,
                    TimeUnit.NANOSECONDS);
        }, events);
    }

    // --- key names

    @Override
    public String child(String parent, String name) {
        return parent.equals("/") ? "/" + name : parent + "/" + name;
    }

    @Override
    public String nameOf(String key) {
        return key.substring(key.lastIndexOf('/') + 1);
    }

    /** '/'-separated, starting with '/', no empty, "." or ".." segment, no trailing '/', no control characters. */
    @Override
    public String validate(String lockPath) {
        if (lockPath == null || !lockPath.startsWith("/")) {
            throw new IllegalArgumentException("lock path must start with '/': " + lockPath);
        }
        if (lockPath.length() > 1 && lockPath.endsWith("/")) {
            throw new IllegalArgumentException("lock path must not end with '/': " + lockPath);
        }
        for (String segment : lockPath.substring(1).split("/", -1)) {
            if (lockPath.length() > 1 && (segment.isEmpty() || segment.equals(".") || segment.equals(".."))) {
                throw new IllegalArgumentException("lock path has an empty, '.' or '..' segment: " + lockPath);
            }
        }
        if (lockPath.chars().anyMatch(c -> c < 0x20 || c == 0x7F)) {
            throw new IllegalArgumentException("lock path has a control character: " + lockPath);
        }
        return lockPath;
    }

    /** Revokes the session (its keys are deleted) and stops the backend's threads. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        monitor.cancel(false);
        for (OneShotWatch w : new ArrayList<>(watches)) {
            w.sessionEnded();
        }
        SynodSession s = session;
        sessionLive = false;
        if (s != null) {
            s.close();
        }
        timer.shutdown();
        events.shutdown();
    }
}
