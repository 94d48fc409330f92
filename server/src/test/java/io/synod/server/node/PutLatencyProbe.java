package io.synod.server.node;

import io.micrometer.core.instrument.Timer;
import io.synod.client.SynodClient;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.apache.curator.test.TestingServer;

/**
 * A manual harness (not a test; issue 12): sequential puts through the SDK against 3 in-process nodes
 * (1 group) whose peer links carry {@code peer.delay.ms}, or against running servers; prints the put
 * latencies, their median, and per node the commit and fsync metrics and the Accepts re-sent.
 * <pre>
 *   ./mvnw -o -q -pl server -am test-compile -DskipTests
 *   java -cp server/target/test-classes:server/target/classes:... io.synod.server.node.PutLatencyProbe 50 30
 *   java -cp ... io.synod.server.node.PutLatencyProbe 127.0.0.1:P0,127.0.0.1:P1,127.0.0.1:P2 3 30
 * </pre>
 * Arguments: delay (ms, one way) and puts per round (2 rounds); or client addresses, rounds, puts.
 */
public final class PutLatencyProbe {
    static void rounds(SynodClient client, String label, int rounds, int n) {
        for (int round = 0; round < rounds; round++) {
            long[] lat = new long[n];
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                client.put("/k/" + i, new byte[64]).join();
                lat[i] = System.nanoTime() - t0;
            }
            long[] sorted = lat.clone();
            Arrays.sort(sorted);
            StringBuilder b = new StringBuilder();
            for (long l : lat) {
                b.append(l / 100_000 / 10.0).append(' ');
            }
            System.out.println("round " + round + " " + label + ": median " + sorted[n / 2] / 1e6
                    + " ms, min " + sorted[0] / 1e6 + ", max " + sorted[n - 1] / 1e6 + " | " + b);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].contains(":")) {
            try (SynodClient client = SynodClient.builder().servers(args[0]).timeout(Duration.ofSeconds(30)).build()) {
                client.put("/hello", new byte[] {1}).join();
                rounds(client, "ext", Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            }
            return;
        }
        int delay = Integer.parseInt(args.length > 0 ? args[0] : "50");
        int n = Integer.parseInt(args.length > 1 ? args[1] : "30");
        Path dir = Files.createTempDirectory("synod-probe");
        try (TestingServer zk = new TestingServer(true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, 1, "probe",
                        Map.of("zookeeper.session.timeout.ms", "4000", "metrics.port", "-1", "peer.delay.ms",
                                Integer.toString(delay)))) {
            cluster.startAll();
            if (!cluster.awaitLeaders(60_000)) {
                throw new IllegalStateException("no leader");
            }
            try (SynodClient client = SynodClient.builder().servers(cluster.clientAddresses().values().stream().toList())
                    .timeout(Duration.ofSeconds(30)).tls(cluster.clientTls()).build()) {
                client.put("/hello", new byte[] {1}).join();
                rounds(client, "delay " + delay, 2, n);
                int leader = cluster.leaderOf(0);
                for (int i = 0; i < cluster.size(); i++) {
                    var reg = cluster.node(i).registry();
                    Timer commit = reg.find("synod.commit.latency").timer();
                    Timer fsync = reg.find("synod.fsync.latency").timer();
                    System.out.printf("node %d accept retransmits %.0f%n", i,
                            reg.find("synod.accept.retransmits").functionCounter().count());
                    System.out.printf("node %d%s commit count %d mean %.1f ms max %.1f | fsync count %d mean %.2f ms max %.2f%n",
                            i, i == leader ? " (leader)" : "", commit.count(), commit.mean(java.util.concurrent.TimeUnit.MILLISECONDS),
                            commit.max(java.util.concurrent.TimeUnit.MILLISECONDS), fsync.count(),
                            fsync.mean(java.util.concurrent.TimeUnit.MILLISECONDS), fsync.max(java.util.concurrent.TimeUnit.MILLISECONDS));
                }
            }
        } finally {
            try (var paths = Files.walk(dir)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
