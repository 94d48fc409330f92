package io.synod.recipes.lock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;

/** A real ZooKeeper server on 127.0.0.1 and the clients the tests connect to it. */
final class ZkTestSupport implements AutoCloseable {

    static final String HOST = "127.0.0.1";
    /** Short enough that expiry tests finish quickly, long enough that a loaded 2-core machine keeps sessions. */
    static final int SESSION_TIMEOUT_MILLIS = 6_000;
    static final int CONNECTION_TIMEOUT_MILLIS = 3_000;
    /** The bound of every wait in the tests: generous, since only behaviour is asserted, never speed. */
    static final Duration WAIT = Duration.ofSeconds(30);

    final TestingServer server;
    private final Path baseDir;
    private final List<CuratorFramework> clients = new ArrayList<>();

    ZkTestSupport() throws Exception {
        // ZooKeeper's embedded server writes a zookeeper.configuration*.properties file next to its data directory on
        // every start; with Curator's default data directory that is the system temp directory, where the files would
        // pile up. Our own base directory keeps them, and is deleted on close.
        baseDir = Files.createTempDirectory("synod-recipes-zk");
        InstanceSpec spec = new InstanceSpec(baseDir.resolve("data").toFile(), -1, -1, -1, true, -1, -1, -1,
                Map.of("clientPortAddress", HOST), HOST);
        server = new TestingServer(spec, true);
    }

    /** Deletes a directory tree; what cannot be deleted is left (the test's temp directory). */
    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    String connectString() {
        return server.getConnectString();
    }

    /** A new started client with its own session. */
    CuratorFramework newClient() throws InterruptedException {
        return newClient(connectString(), new RetryNTimes(10, 200));
    }

    CuratorFramework newClient(String connectString, org.apache.curator.RetryPolicy retryPolicy) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(SESSION_TIMEOUT_MILLIS)
                .connectionTimeoutMs(CONNECTION_TIMEOUT_MILLIS)
                .retryPolicy(retryPolicy)
                .build();
        synchronized (clients) {
            clients.add(client);
        }
        client.start();
        if (!client.blockUntilConnected((int) WAIT.toSeconds(), TimeUnit.SECONDS)) {
            throw new IllegalStateException("client did not connect to " + connectString);
        }
        return client;
    }

    /** {@code count} new started clients, each with its own session. */
    List<CuratorFramework> newClients(int count) throws InterruptedException {
        List<CuratorFramework> started = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            started.add(newClient());
        }
        return started;
    }

    /** The number of children of {@code path}, or -1 when it cannot be read (for use in {@link #eventually}). */
    static int childCount(CuratorFramework client, String path) {
        try {
            return client.getChildren().forPath(path).size();
        } catch (Exception e) {
            return -1;
        }
    }

    /**
     * Expires the client's session on the server, as a real expiry does: a second connection with the same
     * session id and password closes the session, so the server deletes its ephemeral nodes, and the client
     * learns of the expiry when it next talks to the server.
     */
    void expireSession(CuratorFramework client) throws Exception {
        ZooKeeper handle = client.getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(connectString(), SESSION_TIMEOUT_MILLIS, event -> {
            if (event.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, handle.getSessionId(), handle.getSessionPasswd());
        try {
            if (!connected.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("twin connection did not connect");
            }
        } finally {
            twin.close();
        }
    }

    /** Waits, bounded by {@link #WAIT}, until the condition holds; fails the test otherwise. */
    static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + WAIT + ": " + what);
            }
            Thread.sleep(20);
        }
    }

    /**
     * Closes every client made so far, keeping the server: what a test that shares the server with the rest of
     * its class does after itself. Close clients before cutting their links (a proxy): a client without a link
     * waits for a reconnect attempt to fail before its close returns.
     */
    void closeClients() {
        synchronized (clients) {
            for (CuratorFramework client : clients) {
                client.close();
            }
            clients.clear();
        }
    }

    @Override
    public void close() throws Exception {
        closeClients();
        try {
            server.close();
        } finally {
            deleteTree(baseDir);
        }
    }
}
