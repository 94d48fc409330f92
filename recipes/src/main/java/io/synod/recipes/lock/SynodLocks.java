package io.synod.recipes.lock;

import io.synod.client.SynodClient;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * Factory of the lock recipes on Synod: the same locks, strategies and adapters as {@link ZkLocks} (the algorithms
 * are written once over {@link LockBackend}), on a {@link SynodLockBackend}. The methods taking a
 * {@link SynodClient} share one backend (one Synod session, TTL {@link SynodLockBackend#DEFAULT_TTL}) per client, as
 * Curator's locks share the client's ZooKeeper session; contenders that must exclude each other across process
 * failures use separate clients, or separate backends ({@link #backend(SynodClient, java.time.Duration)}) passed to
 * the overloads taking a backend. Do not mix lock kinds on one lock path.
 */
public final class SynodLocks {

    private static final Map<SynodClient, SynodLockBackend> SHARED = new WeakHashMap<>();

    private SynodLocks() {}

    /** The backend (and session) the factory methods taking {@code client} share; granted at the first call. */
    public static synchronized SynodLockBackend backendOf(SynodClient client) {
        Objects.requireNonNull(client, "client");
        SynodLockBackend backend = SHARED.get(client);
        if (backend == null || backend.sessionId() == 0 && backend.isClosed()) {
            backend = new SynodLockBackend(client);
            SHARED.put(client, backend);
        }
        return backend;
    }

    /** A backend with a session of its own on {@code client}, with {@code ttl}; close it to revoke the session. */
    public static SynodLockBackend backend(SynodClient client, Duration ttl) {
        return new SynodLockBackend(client, ttl);
    }

    /** A {@link QueueLock} on {@code path} with {@link LockOptions#defaults()}. */
    public static SyncLock queueLock(SynodClient client, String path) {
        return queueLock(client, path, LockOptions.defaults());
    }

    /** A blocking FIFO queue lock (see {@link ZkLocks#queueLock(org.apache.curator.framework.CuratorFramework, String, LockOptions)}). */
    public static SyncLock queueLock(SynodClient client, String path, LockOptions options) {
        return queueLock(backendOf(client), path, options);
    }

    public static SyncLock queueLock(SynodLockBackend backend, String path, LockOptions options) {
        if (options.strategy().kind() == LockStrategy.Kind.WATCH) {
            return new QueueLock(backend, path, options);
        }
        return new BlockingLock(new AsyncQueueLock(backend, path, options));
    }

    /** An {@link AsyncQueueLock} on {@code path} with {@link LockOptions#defaults()}. */
    public static AsyncLock asyncQueueLock(SynodClient client, String path) {
        return asyncQueueLock(client, path, LockOptions.defaults());
    }

    /** An {@link AsyncQueueLock}: the queue lock with no thread blocked per waiter, waiting by {@code options.strategy()}. */
    public static AsyncLock asyncQueueLock(SynodClient client, String path, LockOptions options) {
        return asyncQueueLock(backendOf(client), path, options);
    }

    public static AsyncLock asyncQueueLock(SynodLockBackend backend, String path, LockOptions options) {
        return new AsyncQueueLock(backend, path, options);
    }

    /** A {@link TasLock} on {@code path} with {@link LockOptions#defaults()}. */
    public static SyncLock tasLock(SynodClient client, String path) {
        return tasLock(client, path, LockOptions.defaults());
    }

    /** A blocking test-and-set lock on {@code <path>/holder}; unfair (see {@link ZkLocks#tasLock(org.apache.curator.framework.CuratorFramework, String, LockOptions)}). */
    public static SyncLock tasLock(SynodClient client, String path, LockOptions options) {
        return tasLock(backendOf(client), path, options);
    }

    public static SyncLock tasLock(SynodLockBackend backend, String path, LockOptions options) {
        if (options.strategy().kind() == LockStrategy.Kind.WATCH) {
            return new TasLock(backend, path, options);
        }
        return new BlockingLock(new AsyncTasLock(backend, path, options));
    }

    /** An {@link AsyncTasLock} on {@code path} with {@link LockOptions#defaults()}. */
    public static AsyncLock asyncTasLock(SynodClient client, String path) {
        return asyncTasLock(client, path, LockOptions.defaults());
    }

    /** An {@link AsyncTasLock}: the test-and-set lock with no thread blocked per waiter, waiting by {@code options.strategy()}. */
    public static AsyncLock asyncTasLock(SynodClient client, String path, LockOptions options) {
        return asyncTasLock(backendOf(client), path, options);
    }

    public static AsyncLock asyncTasLock(SynodLockBackend backend, String path, LockOptions options) {
        return new AsyncTasLock(backend, path, options);
    }

    /** An {@link AdaptiveLock} on {@code path} with {@link LockOptions#defaults()}. */
    public static AdaptiveLock adaptiveLock(SynodClient client, String path) {
        return adaptiveLock(client, path, LockOptions.defaults());
    }

    /** An {@link AdaptiveLock}: a test-and-set lock that picks its strategy between acquisitions; {@code options.strategy()} is ignored. */
    public static AdaptiveLock adaptiveLock(SynodClient client, String path, LockOptions options) {
        return adaptiveLock(backendOf(client), path, options);
    }

    public static AdaptiveLock adaptiveLock(SynodLockBackend backend, String path, LockOptions options) {
        return new AdaptiveLock(backend, path, options);
    }

    /** {@link ZkLocks#asInterProcessLock(SyncLock)}: the same adapter, for Synod locks. */
    public static InterProcessLock asInterProcessLock(SyncLock lock) {
        return ZkLocks.asInterProcessLock(lock);
    }

    /** {@link ZkLocks#asInterProcessLock(AsyncLock)}: the same adapter, for Synod locks. */
    public static InterProcessLock asInterProcessLock(AsyncLock lock) {
        return ZkLocks.asInterProcessLock(lock);
    }
}
