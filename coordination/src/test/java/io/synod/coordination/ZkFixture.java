package io.synod.coordination;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * A real ZooKeeper server on 127.0.0.1 (ephemeral port, short tick so sessions can be short) and the
 * Synod nodes' coordination handles connected to it, each optionally through its own {@link TcpProxy}.
 */
final class ZkFixture implements AutoCloseable {
    /** 200 ms ticks let the server grant sessions of 0.4..4 s. */
    static final int TICK_MILLIS = 200;
    /** Long enough that a loaded 2-core machine keeps its sessions, short enough for expiry tests. */
    static final Duration SESSION = Duration.ofMillis(4000);
    /** The bound of every wait: generous, since behaviour is asserted, never speed. */
    static final Duration WAIT = Duration.ofSeconds(40);

    final TestingServer server;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    ZkFixture() throws Exception {
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MILLIS, -1,
                Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1");
        server = new TestingServer(spec, true);
    }

    static CoordinationOptions options() {
        return CoordinationOptions.defaults().withSessionTimeout(SESSION)
                .withProgressPublish(Duration.ofMillis(50));
    }

    CuratorCoordination connect(String cluster) {
        return connect(cluster, server.getConnectString(), options());
    }

    CuratorCoordination connect(String cluster, String connectString, CoordinationOptions options) {
        return connect(cluster, connectString, options, ZooKeeperAccess.open());
    }

    /** A node with this identity (and client properties) on the fixture's server. */
    CuratorCoordination connect(String cluster, ZooKeeperAccess access) {
        return connect(cluster, server.getConnectString(), options(), access);
    }

    CuratorCoordination connect(String cluster, String connectString, CoordinationOptions options, ZooKeeperAccess access) {
        CuratorCoordination c = CuratorCoordination.connect(connectString, cluster, options, access);
        synchronized (closeables) {
            closeables.add(c);
        }
        return c;
    }

    /** A proxy to the server that a test can cut (closed with the fixture). */
    TcpProxy proxy() throws Exception {
        TcpProxy p = new TcpProxy(server.getPort());
        synchronized (closeables) {
            closeables.add(p);
        }
        return p;
    }

    /**
     * Expires a session on the server as a real expiry does: a second connection with the same session
     * id and password closes it, so the server deletes the session's ephemeral znodes at once.
     */
    void expireSession(CuratorCoordination node) throws Exception {
        ZooKeeper handle = node.curator().getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(server.getConnectString(), (int) SESSION.toMillis(), event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, handle.getSessionId(), handle.getSessionPasswd());
        try {
            if (!connected.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("twin session did not connect");
            }
        } finally {
            twin.close();
        }
    }

    /** Waits (bounded by {@link #WAIT}) until the condition holds; fails the test otherwise. */
    static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + WAIT + ": " + what);
            }
            Thread.sleep(10);
        }
    }

    @Override
    public void close() throws IOException {
        synchronized (closeables) {
            for (int i = closeables.size() - 1; i >= 0; i--) {
                try {
                    closeables.get(i).close();
                } catch (Exception ignored) {
                    // keep closing
                }
            }
            closeables.clear();
        }
        server.close();
    }
}
