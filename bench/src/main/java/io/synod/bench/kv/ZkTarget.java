package io.synod.bench.kv;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * ZooKeeper as a key-value store: key i is the znode {@code /kvbench/k<i>}. A write is an async
 * {@code setData}; a linearizable read is {@code sync} followed by {@code getData} on the same
 * session (ZooKeeper's recipe for reading the latest committed value: a plain read may be served
 * stale by a lagging follower). Operations are spread round-robin over {@code sessions} client sessions,
 * each connected to one server of the ensemble (ZooKeeper pipelines requests on a session).
 */
final class ZkTarget implements BenchTarget {
    private final String name;
    private final List<ZooKeeper> sessions = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();
    private final String[] paths;

    ZkTarget(String name, String connectString, int sessionCount, int keys, int valueBytes) throws IOException, InterruptedException {
        this.name = name;
        this.paths = new String[keys];
        for (int i = 0; i < keys; i++) {
            paths[i] = "/kvbench/k" + i;
        }
        try {
            for (int s = 0; s < sessionCount; s++) {
                CountDownLatch connected = new CountDownLatch(1);
                ZooKeeper zk = new ZooKeeper(connectString, 30_000, e -> {
                    if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                        connected.countDown();
                    }
                });
                sessions.add(zk);
                if (!connected.await(60, TimeUnit.SECONDS)) {
                    throw new IOException("ZooKeeper session to " + connectString + " not connected within 60 s");
                }
            }
            ZooKeeper zk = sessions.get(0);
            create(zk, "/kvbench", new byte[0]);
            byte[] initial = new byte[valueBytes];
            for (String p : paths) {
                create(zk, p, initial);
            }
        } catch (KeeperException e) {
            close();
            throw new IOException("preparing znodes: " + e.getMessage(), e);
        }
    }

    private static void create(ZooKeeper zk, String path, byte[] data) throws KeeperException, InterruptedException {
        try {
            zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException ignored) {
            // From an earlier measurement on the same ensemble.
        }
    }

    @Override
    public String name() {
        return name;
    }

    private ZooKeeper session() {
        return sessions.get(Math.floorMod(next.getAndIncrement(), sessions.size()));
    }

    @Override
    public CompletableFuture<?> write(int key, byte[] value) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        session().setData(paths[key], value, -1, (rc, path, ctx, stat) -> complete(f, rc, path), null);
        return f;
    }

    @Override
    public CompletableFuture<?> read(int key) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        ZooKeeper zk = session();
        zk.sync(paths[key], (rc, path, ctx) -> {
            if (rc != KeeperException.Code.OK.intValue()) {
                complete(f, rc, path);
            }
        }, null);
        zk.getData(paths[key], false, (rc, path, ctx, data, stat) -> complete(f, rc, path), null);
        return f;
    }

    private static void complete(CompletableFuture<Object> f, int rc, String path) {
        if (rc == KeeperException.Code.OK.intValue()) {
            f.complete(Boolean.TRUE);
        } else {
            f.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
        }
    }

    @Override
    public void close() {
        for (ZooKeeper zk : sessions) {
            try {
                zk.close(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
