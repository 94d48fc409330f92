package io.synod.bench.locks;

import io.synod.bench.report.LatencySummary;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Latency of single ZooKeeper operations, issued synchronously (one at a time, the caller blocked) or
 * asynchronously (callbacks, up to {@code window} in flight). The seed paper's Fig. 7 compares the
 * two for create/set/get/exists/getChildren; Figs. 8 and 9 repeat create over an RTT grid.
 */
public final class ZkOpsBenchmark {

    /** The operations of the paper's Fig. 7. */
    public enum Op {
        CREATE("create"), SET("set"), GET("get"), EXISTS("exists"), GET_CHILDREN("getChildren");

        private final String label;

        Op(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** Latencies of {@code count} operations of one kind in one mode. */
    public record OpResult(Op op, boolean async, LatencySummary latency, double throughputPerSecond, int errors) {
    }

    private static final byte[] PAYLOAD = new byte[64];
    private static final long OP_TIMEOUT_SECONDS = 120;

    private ZkOpsBenchmark() {
    }

    /**
     * Runs {@code count} operations of {@code op} under {@code base}. CREATE makes {@code base/n-i};
     * SET, GET and EXISTS touch those nodes, so CREATE must run first; GET_CHILDREN lists {@code base}.
     */
    public static OpResult runSync(CuratorFramework client, Op op, String base, int count) throws Exception {
        long[] latencies = new long[count];
        int errors = 0;
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            String path = base + "/n-" + i;
            long opStart = System.nanoTime();
            try {
                switch (op) {
                    case CREATE -> client.create().withMode(CreateMode.PERSISTENT).forPath(path, PAYLOAD);
                    case SET -> client.setData().forPath(path, PAYLOAD);
                    case GET -> client.getData().forPath(path);
                    case EXISTS -> client.checkExists().forPath(path);
                    case GET_CHILDREN -> client.getChildren().forPath(base);
                }
            } catch (KeeperException e) {
                errors++;
            }
            latencies[i] = System.nanoTime() - opStart;
        }
        long elapsed = System.nanoTime() - start;
        return new OpResult(op, false, LatencySummary.ofNanos(latencies), count / (elapsed / 1e9), errors);
    }

    /** Same operations with callbacks, at most {@code window} outstanding (a bounded pipeline). */
    public static OpResult runAsync(CuratorFramework client, Op op, String base, int count, int window)
            throws Exception {
        long[] latencies = new long[count];
        AtomicInteger errors = new AtomicInteger();
        Semaphore inFlight = new Semaphore(window);
        CountDownLatch done = new CountDownLatch(count);
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            if (!inFlight.tryAcquire(OP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("async " + op.label() + ": no reply within " + OP_TIMEOUT_SECONDS + "s");
            }
            int index = i;
            long opStart = System.nanoTime();
            BackgroundCallback callback = (c, event) -> {
                latencies[index] = System.nanoTime() - opStart;
                if (event.getResultCode() != KeeperException.Code.OK.intValue()) {
                    errors.incrementAndGet();
                }
                inFlight.release();
                done.countDown();
            };
            String path = base + "/n-" + i;
            switch (op) {
                case CREATE -> client.create().withMode(CreateMode.PERSISTENT).inBackground(callback).forPath(path, PAYLOAD);
                case SET -> client.setData().inBackground(callback).forPath(path, PAYLOAD);
                case GET -> client.getData().inBackground(callback).forPath(path);
                case EXISTS -> client.checkExists().inBackground(callback).forPath(path);
                case GET_CHILDREN -> client.getChildren().inBackground(callback).forPath(base);
            }
        }
        if (!done.await(OP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("async " + op.label() + ": replies missing after " + OP_TIMEOUT_SECONDS + "s");
        }
        long elapsed = System.nanoTime() - start;
        return new OpResult(op, true, LatencySummary.ofNanos(latencies), count / (elapsed / 1e9), errors.get());
    }

    /** Makes {@code base} (and parents) exist and be empty. */
    public static void prepare(CuratorFramework client, String base) throws Exception {
        if (client.checkExists().forPath(base) != null) {
            client.delete().deletingChildrenIfNeeded().forPath(base);
        }
        client.create().creatingParentsIfNeeded().forPath(base);
    }
}
