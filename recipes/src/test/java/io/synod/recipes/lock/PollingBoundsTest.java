package io.synod.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The load a waiter puts on ZooKeeper is bounded by its strategy. Counted on the server (the {@code mntr} command's
 * packets-received counter) while one client holds the lock and one waits: a POLL(interval, k) waiter sends at most
 * one request per interval (plus its first k), a RETRY(backoff) waiter at most one per back-off. Only upper bounds
 * are asserted, computed from the measured duration: a slow machine can only send fewer.
 */
class PollingBoundsTest {

    private static final long HOLD_MILLIS = 600;
    /** Requests that are not the waiter's polls: heartbeats, the holder's release, the waiter's own grant steps. */
    private static final long SLACK = 12;

    private ZkTestSupport zk;

    @BeforeEach
    void start() throws Exception {
        zk = new ZkTestSupport();
    }

    @AfterEach
    void stop() throws Exception {
        zk.close();
    }

    @Test
    void pollingTasSendsAtMostOneCreatePerInterval() throws Exception {
        assertBounded(Variant.ASYNC_TAS, LockStrategy.poll(Duration.ofMillis(20), 4));
    }

    @Test
    void pollingQueueListsAtMostOncePerInterval() throws Exception {
        assertBounded(Variant.ASYNC_QUEUE, LockStrategy.poll(Duration.ofMillis(20), 4));
    }

    @Test
    void retryWithBackOffSendsAtMostOneRequestPerBackOff() throws Exception {
        assertBounded(Variant.ASYNC_TAS, LockStrategy.retry(Duration.ofMillis(20)));
    }

    @Test
    void watchingWaiterSendsNothingWhileItWaits() throws Exception {
        String path = "/bounds/watch";
        CuratorFramework holderClient = zk.newClient();
        CuratorFramework waiterClient = zk.newClient();
        try (Locks.Any holder = Locks.create(LockKind.ASYNC_TAS, holderClient, path, LockOptions.defaults());
                Locks.Any waiter = Locks.create(LockKind.ASYNC_TAS, waiterClient, path, LockOptions.defaults())) {
            holder.acquire();
            long watchesBefore = mntr("zk_watch_count");
            CompletableFuture<LockHandle> waiting = Locks.acquireInBackground(waiter, "waiter").result();
            // The waiter's requests are done once its watch is set (a fixed sleep was not enough on a loaded machine).
            ZkTestSupport.eventually("the waiter sets its watch", () -> {
                try {
                    return mntr("zk_watch_count") > watchesBefore;
                } catch (IOException e) {
                    return false;
                }
            });
            long before = packetsReceived();
            Thread.sleep(HOLD_MILLIS);
            long during = packetsReceived() - before;
            assertFalse(waiting.isDone());
            holder.release();
            waiting.get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(during <= 4, "a watching waiter sent " + during + " requests while waiting (heartbeats only expected)");
            waiter.release();
        }
    }

    private void assertBounded(Variant kind, LockStrategy strategy) throws Exception {
        String path = "/bounds/" + strategy.kind() + "-" + kind;
        CuratorFramework holderClient = zk.newClient();
        CuratorFramework waiterClient = zk.newClient();
        LockOptions options = LockOptions.builder().strategy(strategy).build();
        try (Locks.Any holder = Locks.create(kind.kind, holderClient, path, LockOptions.defaults());
                Locks.Any waiter = Locks.create(kind.kind, waiterClient, path, options)) {
            holder.acquire();
            long before = packetsReceived();
            long start = System.nanoTime();
            CompletableFuture<LockHandle> waiting = Locks.acquireInBackground(waiter, "waiter").result();
            Thread.sleep(HOLD_MILLIS);
            long pollsDeadline = System.nanoTime() + ZkTestSupport.WAIT.toNanos();
            while (packetsReceived() - before < 2 && System.nanoTime() < pollsDeadline) {
                Thread.sleep(20); // A starved waiter may not have polled yet: the bound below uses the real duration.
            }
            assertFalse(waiting.isDone(), "the holder still holds");
            long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            long sent = packetsReceived() - before;
            holder.release();
            LockHandle hold = waiting.get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(hold.isValid());
            long bound = elapsedMillis / strategy.interval().toMillis() + strategy.maxInFlight() + SLACK;
            assertTrue(sent <= bound, strategy + ": " + sent + " requests in " + elapsedMillis + " ms, bound " + bound);
            assertTrue(sent >= 2, "the waiter did poll: " + sent);
            waiter.release();
            ZkTestSupport.eventually("no node left", () -> ZkTestSupport.childCount(holderClient, path) == 0);
        }
    }

    /** The server's count of packets received, from the {@code mntr} four-letter command. */
    private long packetsReceived() throws IOException {
        return mntr("zk_packets_received");
    }

    /** One counter of the {@code mntr} four-letter command's reply. */
    private long mntr(String name) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(ZkTestSupport.HOST, zk.server.getPort()), 5_000);
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write("mntr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String reply = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            for (String line : reply.split("\n")) {
                String[] cells = line.trim().split("\\s+");
                if (cells.length == 2 && cells[0].equals(name)) {
                    return Long.parseLong(cells[1]);
                }
            }
            throw new IllegalStateException("mntr reply without " + name + ": " + reply);
        }
    }
}
