package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.sun.management.UnixOperatingSystemMXBean;
import io.synod.client.SynodClient;
import io.synod.server.client.ConnectionLimiter;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The client port's limits against real nodes (docs/security.md, "Limits"), as an attacker on the network
 * would try them: thousands of connections to the leader's client port, and stalled huge frames. The node
 * keeps serving the clients it serves, its group keeps its leader, and the memory a stalled frame held is
 * given back when the frame timeout closes it.
 */
class ConnectionFloodClusterTest {
    /** Connections the acceptance asks for. */
    private static final int FLOOD = 5_000;
    /** Descriptors the rest of this JVM may need meanwhile (RocksDB, ZooKeeper, peers, jars). */
    private static final long OTHER_DESCRIPTORS = 1_000;

    @TempDir
    Path dir;

    @Test
    @Timeout(240)
    void fiveThousandConnectionsLeaveAServedClientServedAndTheLeaderUnchanged() throws Exception {
        int cap = 4096; // client.max.connections' default: the limit this flood runs into.
        // All test connections come from 127.0.0.1: the per-address cap (default 1024) is raised so that the
        // node-wide cap is the one that binds and the node really holds its maximum while the flood lasts.
        Map<String, String> extra = Map.of("zookeeper.session.timeout.ms", "5000", "client.max.connections.per.address", "8192");
        int flood = floodSize(cap);
        ListAppender<ILoggingEvent> refusals = capture(ConnectionLimiter.class);
        try (TestingServer zk = new TestingServer(true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, 1, "flood", extra)) {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "the group gets a leader");
            try (SynodClient client = SynodClient.builder().connect(cluster.clientAddressList()).tls(cluster.clientTls())
                    .timeout(Duration.ofSeconds(20)).build()) {
                client.put("flood/k", bytes("before")).join();
                int leader = cluster.leaderOf(0);
                long epoch = cluster.status(leader, 0).promisedEpoch();
                SynodNode target = cluster.node(leader);
                double openBefore = gauge(target, "synod.client.connections");
                assertTrue(openBefore >= 1, "the client holds a connection to the leader");

                List<Socket> sockets = new ArrayList<>(flood);
                long started = System.nanoTime();
                try {
                    for (int i = 0; i < flood; i++) {
                        Socket s = new Socket();
                        sockets.add(s);
                        s.connect(target.clientAddress(), 10_000);
                    }
                    long expectedRefusals = flood - (cap - (long) openBefore);
                    await(() -> counter(target, "synod.client.connections.refused") >= expectedRefusals,
                            expectedRefusals + " connections over the cap of " + cap + " refused");
                    assertTrue(gauge(target, "synod.client.connections") <= cap, "the cap holds");

                    for (int i = 0; i < 20; i++) {
                        client.put("flood/k", bytes("during-" + i)).join();
                        assertArrayEquals(bytes("during-" + i), client.get("flood/k").join().value(),
                                "the client connected before the flood is still served");
                    }
                    assertEquals(leader, cluster.leaderOf(0), "the leader is unchanged");
                    assertEquals(epoch, cluster.status(leader, 0).promisedEpoch(), "no election happened");
                } finally {
                    for (Socket s : sockets) {
                        s.close();
                    }
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                long refused = (long) counter(target, "synod.client.connections.refused");
                long lines = refusals.list.stream().filter(e -> e.getLevel() == Level.WARN).count();
                assertTrue(lines >= 1, "refusals are logged");
                assertTrue(refusals.list.get(0).getFormattedMessage().contains("client.max.connections"),
                        "the line names the limit: " + refusals.list.get(0).getFormattedMessage());
                // RateLimitedLog: at most one line a second (the first at once), however many are refused.
                assertTrue(lines <= seconds + 2, lines + " refusal lines in " + seconds + " s for " + refused + " refusals");

                await(() -> gauge(target, "synod.client.connections") <= openBefore, "the flood's connections are gone");
                client.put("flood/k", bytes("after")).join();
                assertArrayEquals(bytes("after"), client.get("flood/k").join().value());
                assertEquals(leader, cluster.leaderOf(0), "the leader is still unchanged");
            }
        } finally {
            release(ConnectionLimiter.class, refusals);
        }
    }

    @Test
    @Timeout(120)
    void stalledSixteenMiBFramesAreClosedAfterTheFrameTimeoutAndDirectMemoryReturns() throws Exception {
        int stalled = 4;
        int frame = 16 << 20;
        int sent = 15 << 20; // As in the attack that exhausted direct memory: 15 MiB of each 16 MiB frame, then nothing.
        Map<String, String> extra = Map.of("insecure", "true", "frame.timeout.ms", "3000");
        try (TestingServer zk = new TestingServer(true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 1, 1, "stall", extra)) {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "the group gets a leader");
            SynodNode node = cluster.node(0);
            double baseline = gauge(node, "synod.netty.direct.memory");
            assertTrue(baseline >= 0, "the gauge reads Netty's allocator");
            List<Socket> sockets = new ArrayList<>();
            try {
                long started = System.nanoTime();
                for (int i = 0; i < stalled; i++) {
                    Socket s = new Socket();
                    sockets.add(s);
                    s.connect(node.peerAddress(), 10_000);
                    s.setSoTimeout(30_000);
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    out.writeInt(frame);
                    out.write(new byte[sent]);
                    out.flush();
                }
                await(() -> gauge(node, "synod.frames.partial") == (double) stalled * frame, "every stalled frame is reserved");
                await(() -> gauge(node, "synod.netty.direct.memory") - baseline >= (double) stalled * sent,
                        "the stalled frames' bytes occupy direct memory");
                for (Socket s : sockets) {
                    assertTrue(closedByServer(s), "closed by the node");
                }
                long millis = (System.nanoTime() - started) / 1_000_000;
                assertTrue(millis >= 2_500, "closed by the frame timeout, not at once: " + millis + " ms");
                await(() -> gauge(node, "synod.frames.partial") == 0, "the frame budget is released");
                await(() -> gauge(node, "synod.netty.direct.memory") <= baseline + POOL_SLACK,
                        "direct memory returns to the baseline " + (long) baseline + " (+ the pool's slack)");
            } finally {
                for (Socket s : sockets) {
                    s.close();
                }
            }
        }
    }

    /** {@link #FLOOD}, or fewer when this process may not open enough descriptors (both ends of each connection live here). */
    private static int floodSize(int cap) {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (!(os instanceof UnixOperatingSystemMXBean unix)) {
            return FLOOD;
        }
        long room = unix.getMaxFileDescriptorCount() - unix.getOpenFileDescriptorCount() - OTHER_DESCRIPTORS;
        // Each flood connection costs one descriptor here; the node holds at most `cap` of their other ends.
        long fits = room - cap;
        if (fits >= FLOOD) {
            return FLOOD;
        }
        assertTrue(fits > cap, "ulimit -n " + unix.getMaxFileDescriptorCount() + " is too low to exceed the cap of " + cap);
        LoggerFactory.getLogger(ConnectionFloodClusterTest.class).warn("ulimit -n is {}: flooding with {} connections, not {}",
                unix.getMaxFileDescriptorCount(), fits, FLOOD);
        return (int) fits;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static double gauge(SynodNode node, String name) {
        return node.registry().get(name).gauge().value();
    }

    static double counter(SynodNode node, String name) {
        return node.registry().get(name).functionCounter().count();
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting: " + what);
            Thread.sleep(10);
        }
    }

    static ListAppender<ILoggingEvent> capture(Class<?> type) {
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(type)).addAppender(appender);
        return appender;
    }

    static void release(Class<?> type, ListAppender<ILoggingEvent> appender) {
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(type)).detachAppender(appender);
    }

    /**
     * What Netty's pooled allocator may keep after the stalled frames are freed: their buffers grew past a pool
     * chunk (4 MiB) and were freed outright, but the smaller steps of their growth came from chunks the pool
     * keeps for reuse (a few chunks per event-loop arena).
     */
    static final double POOL_SLACK = 16 << 20;

    /** True when the node closed {@code s} (end of stream or reset) within its read timeout. */
    static boolean closedByServer(Socket s) {
        try {
            return s.getInputStream().read() == -1;
        } catch (IOException reset) {
            return !(reset instanceof SocketTimeoutException);
        }
    }
}
