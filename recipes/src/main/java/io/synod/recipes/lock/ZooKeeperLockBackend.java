package io.synod.recipes.lock;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.curator.RetryPolicy;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.PathUtils;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * {@link LockBackend} on ZooKeeper through Curator. Single requests go out on the session's raw handle
 * ({@link RawOps}); retrying requests are Curator operations (its retry policy, parents created as containers);
 * deletes are pinned to the owning session's handle ({@link NodeReaper}). The token is the czxid, the owner the
 * ephemeralOwner. Stateless apart from the client: every lock may make its own.
 */
public final class ZooKeeperLockBackend implements LockBackend {

    private final CuratorFramework client;

    public ZooKeeperLockBackend(CuratorFramework client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /** The Curator client this backend uses. */
    public CuratorFramework client() {
        return client;
    }

    // --- session

    @Override
    public long sessionId() {
        return Sessions.currentSessionId(client);
    }

    @Override
    public long sessionTimeoutMillis() {
        return Sessions.sessionTimeoutMillis(client);
    }

    @Override
    public Registration onSessionEvent(Consumer<SessionEvent> listener) {
        ConnectionStateListener adapter = (ignored, state) -> {
            switch (state) {
                case SUSPENDED, READ_ONLY -> listener.accept(SessionEvent.SUSPENDED);
                case CONNECTED, RECONNECTED -> listener.accept(SessionEvent.CONNECTED);
                case LOST -> listener.accept(SessionEvent.LOST);
                default -> { }
            }
        };
        client.getConnectionStateListenable().addListener(adapter);
        return () -> client.getConnectionStateListenable().removeListener(adapter);
    }

    @Override
    public long connectionLossPauseNanos(int count, long elapsedMillis) {
        RetryPolicy policy = client.getZookeeperClient().getRetryPolicy();
        long[] sleepNanos = {0};
        boolean allowed = client.getState() != CuratorFrameworkState.STOPPED
                && policy.allowRetry(count, elapsedMillis, (time, unit) -> sleepNanos[0] = unit.toNanos(time));
        return allowed ? sleepNanos[0] : -1;
    }

    @Override
    public Object connectionIdentity() {
        return client;
    }

    // --- single requests

    private ZooKeeper handleOrNull() {
        try {
            return Sessions.currentHandle(client);
        } catch (Exception e) {
            return null;
        }
    }

    /** A single request on the current handle; no handle right now reads as connection loss that never went out. */
    private CompletableFuture<Reply> single(Function<ZooKeeper, CompletableFuture<RawOps.Reply>> request,
            String key) {
        ZooKeeper handle = handleOrNull();
        if (handle == null) {
            return CompletableFuture.completedFuture(Reply.of(Code.CONNECTIONLOSS, 0));
        }
        return request.apply(handle).thenApply(raw -> new Reply(raw.code(), raw.sessionId(), createdKey(key, raw.name()),
                entry(raw.stat()), raw.data(), raw.children()));
    }

    @Override
    public CompletableFuture<Reply> create(String key, byte[] data, boolean sequential) {
        CreateMode mode = sequential ? CreateMode.EPHEMERAL_SEQUENTIAL : CreateMode.EPHEMERAL;
        return single(handle -> RawOps.create(handle, RawOps.serverPath(client, key), data, mode), key);
    }

    @Override
    public CompletableFuture<Reply> read(String key) {
        return single(handle -> RawOps.getData(handle, RawOps.serverPath(client, key)), null);
    }

    @Override
    public CompletableFuture<Reply> exists(String key) {
        return single(handle -> RawOps.exists(handle, RawOps.serverPath(client, key)), null);
    }

    @Override
    public CompletableFuture<Reply> list(String parent) {
        return single(handle -> RawOps.getChildren(handle, RawOps.serverPath(client, parent)), null);
    }

    /** The created key in the client's namespace: the requested key's parent and the name the server gave it. */
    private static String createdKey(String requestedKey, String serverName) {
        if (requestedKey == null || serverName == null) {
            return null;
        }
        return ZKPaths.makePath(ZKPaths.getPathAndNode(requestedKey).getPath(), ZKPaths.getNodeFromPath(serverName));
    }

    private static Entry entry(Stat stat) {
        return stat == null ? null : new Entry(stat.getCzxid(), stat.getEphemeralOwner());
    }

    // --- retrying requests (Curator)

    @Override
    public CompletableFuture<Reply> createRetrying(String key, byte[] data, boolean sequential) {
        Stat stat = new Stat();
        CreateMode mode = sequential ? CreateMode.EPHEMERAL_SEQUENTIAL : CreateMode.EPHEMERAL;
        return Background.run(callback -> {
            var create = client.create().storingStatIn(stat).creatingParentContainersIfNeeded().withMode(mode).inBackground(callback);
            if (data == null) {
                create.forPath(key);
            } else {
                create.forPath(key, data);
            }
        }).thenApply(event -> {
            Code code = Background.code(event);
            return new Reply(code, 0, code == Code.OK ? event.getName() : null, code == Code.OK ? entry(stat) : null, null, List.of());
        });
    }

    @Override
    public Reply createRetryingBlocking(String key, byte[] data, boolean sequential) throws Exception {
        Stat stat = new Stat();
        CreateMode mode = sequential ? CreateMode.EPHEMERAL_SEQUENTIAL : CreateMode.EPHEMERAL;
        try {
            var create = client.create().storingStatIn(stat).creatingParentContainersIfNeeded().withMode(mode);
            String created = data == null ? create.forPath(key) : create.forPath(key, data);
            return new Reply(Code.OK, 0, created, entry(stat), null, List.of());
        } catch (KeeperException e) {
            return Reply.of(e.code(), 0);
        }
    }

    @Override
    public CompletableFuture<Reply> ensureParent(String key) {
        return Background.run(callback -> client.create().creatingParentContainersIfNeeded().withMode(CreateMode.CONTAINER)
                .inBackground(callback).forPath(key)).thenApply(event -> Reply.of(Background.code(event), 0));
    }

    @Override
    public CompletableFuture<Reply> readAndWatch(String key, Consumer<WatchEvent> watch) {
        return Background.run(callback -> client.getData().usingWatcher(watcher(watch)).inBackground(callback).forPath(key))
                .thenApply(event -> new Reply(Background.code(event), 0, null, entry(event.getStat()), event.getData(), List.of()));
    }

    @Override
    public Reply readAndWatchBlocking(String key, Consumer<WatchEvent> watch) throws Exception {
        Stat stat = new Stat();
        try {
            byte[] data = client.getData().storingStatIn(stat).usingWatcher(watcher(watch)).forPath(key);
            return new Reply(Code.OK, 0, null, entry(stat), data, List.of());
        } catch (KeeperException e) {
            return Reply.of(e.code(), 0);
        }
    }

    @Override
    public CompletableFuture<Reply> existsAndWatch(String key, Consumer<WatchEvent> watch) {
        return Background.run(callback -> client.checkExists().usingWatcher(watcher(watch)).inBackground(callback).forPath(key))
                .thenApply(ZooKeeperLockBackend::existsReply);
    }

    private static Reply existsReply(CuratorEvent event) {
        Code code = Background.code(event);
        if (code == Code.OK && event.getStat() == null) {
            code = Code.NONODE;
        }
        return new Reply(code, 0, null, entry(event.getStat()), null, List.of());
    }

    @Override
    public Reply existsAndWatchBlocking(String key, Consumer<WatchEvent> watch) throws Exception {
        try {
            Stat stat = client.checkExists().usingWatcher(watcher(watch)).forPath(key);
            return new Reply(stat == null ? Code.NONODE : Code.OK, 0, null, entry(stat), null, List.of());
        } catch (KeeperException e) {
            return Reply.of(e.code(), 0);
        }
    }

    @Override
    public CompletableFuture<Reply> listRetrying(String parent) {
        return Background.run(callback -> client.getChildren().inBackground(callback).forPath(parent))
                .thenApply(event -> new Reply(Background.code(event), 0, null, null, null,
                        event.getChildren() == null ? List.of() : List.copyOf(event.getChildren())));
    }

    @Override
    public Reply listRetryingBlocking(String parent) throws Exception {
        try {
            return new Reply(Code.OK, 0, null, null, null, List.copyOf(client.getChildren().forPath(parent)));
        } catch (KeeperException e) {
            return Reply.of(e.code(), 0);
        }
    }

    /**
     * A ZooKeeper watcher reporting to {@code watch}: deletion, creation or data change, and the end of the session.
     * Disconnected and SyncConnected are not reported: ZooKeeper keeps and re-registers the watch within the session.
     */
    private static Watcher watcher(Consumer<WatchEvent> watch) {
        return (WatchedEvent event) -> {
            if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                watch.accept(WatchEvent.DELETED);
            } else if (event.getType() != Watcher.Event.EventType.None) {
                watch.accept(WatchEvent.CHANGED);
            } else if (event.getState() == Watcher.Event.KeeperState.Expired || event.getState() == Watcher.Event.KeeperState.Closed) {
                watch.accept(WatchEvent.SESSION_ENDED);
            }
        };
    }

    // --- deletes pinned to the owning session

    @Override
    public CompletableFuture<Void> deleteOwned(String lockPath, String key, long sessionId, long token) {
        return NodeReaper.deleteOwnedNode(client, lockPath, key, sessionId, token);
    }

    @Override
    public CompletableFuture<Void> deleteOwnedChildren(String lockPath, String namePrefix) {
        return NodeReaper.reapChildren(client, lockPath, namePrefix);
    }

    @Override
    public CompletableFuture<Void> deleteOwnedIfData(String lockPath, String key, byte[] data) {
        return NodeReaper.reapTasAttempt(client, lockPath, key, data);
    }

    // --- key names

    @Override
    public String child(String parent, String name) {
        return ZKPaths.makePath(parent, name);
    }

    @Override
    public String nameOf(String key) {
        return ZKPaths.getNodeFromPath(key);
    }

    @Override
    public String validate(String lockPath) {
        return PathUtils.validatePath(lockPath);
    }
}
