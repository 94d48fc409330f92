package io.synod.bench.netdelay;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Behaviour of the delaying proxy on 127.0.0.1. Only lower bounds on time are asserted (a proxy must
 * never deliver early); how late it is on this machine is printed and reported in the docs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DelayProxyTest {

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void roundTripTakesAtLeastTheInjectedDelays() throws Exception {
        EchoServer echo = track(new EchoServer());
        long oneWayNanos = TimeUnit.MILLISECONDS.toNanos(15);
        DelayProxy proxy = track(DelayProxy.builder(echo.address())
                .delays(new DelaySpec(oneWayNanos, 0, JitterDistribution.NONE, 0),
                        new DelaySpec(oneWayNanos, 0, JitterDistribution.NONE, 0))
                .start());
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] ping = new byte[32];
            byte[] pong = new byte[32];
            int rounds = 20;
            long totalExtraNanos = 0;
            long maxExtraNanos = 0;
            for (int round = 0; round < rounds; round++) {
                Arrays.fill(ping, (byte) round);
                long start = System.nanoTime();
                out.write(ping);
                out.flush();
                in.readFully(pong);
                long rttNanos = System.nanoTime() - start;
                assertArrayEquals(ping, pong);
                assertTrue(rttNanos >= 2 * oneWayNanos,
                        "round trip " + rttNanos + "ns is shorter than the injected " + 2 * oneWayNanos + "ns");
                long extra = rttNanos - 2 * oneWayNanos;
                totalExtraNanos += extra;
                maxExtraNanos = Math.max(maxExtraNanos, extra);
            }
            System.out.printf("DelayProxy accuracy: injected RTT 30ms, extra over injected: mean %.3fms, max %.3fms (%d rounds)%n",
                    totalExtraNanos / 1e6 / rounds, maxExtraNanos / 1e6, rounds);
        }
    }

    @Test
    void jitterAndDelayChangesNeverReorderOrCorruptBytes() throws Exception {
        EchoServer echo = track(new EchoServer());
        DelaySpec jittery = new DelaySpec(TimeUnit.MILLISECONDS.toNanos(3), TimeUnit.MILLISECONDS.toNanos(3),
                JitterDistribution.UNIFORM, 0);
        DelayProxy proxy = track(DelayProxy.builder(echo.address())
                .delays(jittery, jittery.withJitter(TimeUnit.MILLISECONDS.toNanos(2), JitterDistribution.EXPONENTIAL))
                .seed(42)
                .start());
        byte[] payload = new byte[4 * 1024 * 1024];
        new Random(7).nextBytes(payload);
        byte[] received = new byte[payload.length];
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            AtomicReference<Throwable> writerFailure = new AtomicReference<>();
            Thread writer = new Thread(() -> {
                Random chunks = new Random(11);
                try {
                    OutputStream out = socket.getOutputStream();
                    int offset = 0;
                    int chunkIndex = 0;
                    while (offset < payload.length) {
                        int length = Math.min(payload.length - offset, 1 + chunks.nextInt(20_000));
                        out.write(payload, offset, length);
                        offset += length;
                        if (++chunkIndex % 50 == 0) {
                            // Change delays mid-stream: a shorter delay must not overtake queued bytes.
                            DelaySpec next = chunkIndex % 100 == 0 ? DelaySpec.NONE
                                    : DelaySpec.fixed(Duration.ofMillis(8)).withJitter(TimeUnit.MILLISECONDS.toNanos(4),
                                            JitterDistribution.NORMAL);
                            proxy.setDelays(next, next);
                        }
                    }
                    out.flush();
                } catch (Throwable t) {
                    writerFailure.set(t);
                }
            }, "payload-writer");
            writer.start();
            new DataInputStream(socket.getInputStream()).readFully(received);
            writer.join();
            if (writerFailure.get() != null) {
                throw new AssertionError("writer failed", writerFailure.get());
            }
        }
        assertArrayEquals(payload, received, "bytes arrived reordered or corrupted");
        assertEquals(2L * payload.length, proxy.bytesForwarded());
    }

    @Test
    void fullQueueStopsReadingAndEverythingArrivesOnceTheReaderResumes() throws Exception {
        CountDownLatch startReading = new CountDownLatch(1);
        byte[] payload = new byte[24 * 1024 * 1024];
        new Random(3).nextBytes(payload);
        SlowSink sink = track(new SlowSink(payload.length, startReading));
        int bound = 64 * 1024;
        DelayProxy proxy = track(DelayProxy.builder(sink.address())
                .delays(DelaySpec.fixed(Duration.ofMillis(1)), DelaySpec.NONE)
                .maxQueuedBytesPerDirection(bound)
                .start());
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            Thread writer = new Thread(() -> {
                try {
                    socket.getOutputStream().write(payload);
                    socket.getOutputStream().flush();
                } catch (IOException ignored) {
                    // The assertion on the sink's bytes reports any failure.
                }
            }, "payload-writer");
            writer.start();
            long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (proxy.readPauses() == 0 && System.nanoTime() < waitUntil) {
                Thread.sleep(20);
            }
            assertTrue(proxy.readPauses() > 0, "the proxy never applied backpressure to a stalled reader");
            // One read may land after the bound is hit (Netty reads at most 64 KiB at a time).
            assertTrue(proxy.maxQueuedBytesSeen() <= bound + 64 * 1024,
                    "queue grew to " + proxy.maxQueuedBytesSeen() + " bytes, bound " + bound);
            startReading.countDown();
            writer.join(TimeUnit.SECONDS.toMillis(30));
            byte[] received = sink.awaitBytes(30, TimeUnit.SECONDS);
            assertArrayEquals(payload, received);
        }
    }

    @Test
    void bandwidthCapSlowsATransferToAtMostTheCappedRate() throws Exception {
        EchoServer echo = track(new EchoServer());
        long bytesPerSecond = 4L * 1024 * 1024;
        DelayProxy proxy = track(DelayProxy.builder(echo.address())
                .delays(DelaySpec.NONE.withBandwidth(bytesPerSecond), DelaySpec.NONE)
                .start());
        byte[] payload = new byte[1024 * 1024];
        new Random(5).nextBytes(payload);
        byte[] received = new byte[payload.length];
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            long start = System.nanoTime();
            Thread writer = new Thread(() -> {
                try {
                    socket.getOutputStream().write(payload);
                } catch (IOException ignored) {
                    // Reported by the byte comparison below.
                }
            });
            writer.start();
            new DataInputStream(socket.getInputStream()).readFully(received);
            long elapsedNanos = System.nanoTime() - start;
            writer.join();
            long minimumNanos = payload.length * 1_000_000_000L / bytesPerSecond;
            assertTrue(elapsedNanos >= minimumNanos * 0.95,
                    "1 MiB at 4 MiB/s took only " + elapsedNanos / 1e6 + "ms");
            System.out.printf("DelayProxy bandwidth: 1 MiB at a 4 MiB/s cap took %.1fms (ideal %.1fms)%n",
                    elapsedNanos / 1e6, minimumNanos / 1e6);
        }
        assertArrayEquals(payload, received);
    }

    @Test
    void closingTheClientClosesTheTargetConnectionAfterQueuedBytesAreDelivered() throws Exception {
        byte[] payload = "last words before close".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        SlowSink sink = track(new SlowSink(payload.length, new CountDownLatch(0)));
        DelayProxy proxy = track(DelayProxy.builder(sink.address())
                .delays(DelaySpec.fixed(Duration.ofMillis(30)), DelaySpec.NONE)
                .start());
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            socket.getOutputStream().write(payload);
        }
        assertArrayEquals(payload, sink.awaitBytes(10, TimeUnit.SECONDS));
        assertTrue(sink.awaitEndOfStream(10, TimeUnit.SECONDS), "target connection was not closed");
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    /** Echoes every byte back, one thread per connection. */
    static final class EchoServer implements AutoCloseable {
        private final ServerSocket serverSocket;
        private final Thread acceptor;

        EchoServer() throws IOException {
            serverSocket = new ServerSocket();
            serverSocket.bind(new InetSocketAddress("127.0.0.1", 0));
            acceptor = new Thread(() -> {
                while (!serverSocket.isClosed()) {
                    try {
                        Socket connection = serverSocket.accept();
                        Thread pump = new Thread(() -> {
                            try (connection) {
                                connection.setTcpNoDelay(true);
                                InputStream in = connection.getInputStream();
                                OutputStream out = connection.getOutputStream();
                                byte[] buffer = new byte[16 * 1024];
                                int n;
                                while ((n = in.read(buffer)) >= 0) {
                                    out.write(buffer, 0, n);
                                    out.flush();
                                }
                            } catch (IOException ignored) {
                                // Connection torn down by the test.
                            }
                        }, "echo-pump");
                        pump.setDaemon(true);
                        pump.start();
                    } catch (IOException closed) {
                        return;
                    }
                }
            }, "echo-acceptor");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        InetSocketAddress address() {
            return new InetSocketAddress("127.0.0.1", serverSocket.getLocalPort());
        }

        @Override
        public void close() throws IOException {
            serverSocket.close();
        }
    }

    /** Accepts one connection, reads nothing until told to, then collects the expected bytes. */
    static final class SlowSink implements AutoCloseable {
        private final ServerSocket serverSocket;
        private final byte[] received;
        private final CountDownLatch done = new CountDownLatch(1);
        private final CountDownLatch endOfStream = new CountDownLatch(1);

        SlowSink(int expectedBytes, CountDownLatch startReading) throws IOException {
            serverSocket = new ServerSocket();
            serverSocket.bind(new InetSocketAddress("127.0.0.1", 0));
            received = new byte[expectedBytes];
            Thread reader = new Thread(() -> {
                try (Socket connection = serverSocket.accept()) {
                    startReading.await();
                    DataInputStream in = new DataInputStream(connection.getInputStream());
                    in.readFully(received);
                    done.countDown();
                    if (in.read() < 0) {
                        endOfStream.countDown();
                    }
                } catch (IOException | InterruptedException ignored) {
                    // The test's assertions report a missing transfer.
                }
            }, "slow-sink");
            reader.setDaemon(true);
            reader.start();
        }

        InetSocketAddress address() {
            return new InetSocketAddress("127.0.0.1", serverSocket.getLocalPort());
        }

        byte[] awaitBytes(long timeout, TimeUnit unit) throws InterruptedException {
            assertTrue(done.await(timeout, unit), "sink did not receive all bytes");
            return received;
        }

        boolean awaitEndOfStream(long timeout, TimeUnit unit) throws InterruptedException {
            return endOfStream.await(timeout, unit);
        }

        @Override
        public void close() throws IOException {
            serverSocket.close();
        }
    }
}
