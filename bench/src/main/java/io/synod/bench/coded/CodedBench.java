package io.synod.bench.coded;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.synod.bench.netdelay.DelayProxy;
import io.synod.bench.netdelay.DelaySpec;
import io.synod.bench.netdelay.JitterDistribution;
import io.synod.bench.report.Charts;
import io.synod.bench.report.CsvTable;
import io.synod.core.paxos.Role;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.server.client.NodeClient;
import io.synod.server.config.ServerConfig;
import io.synod.server.node.LocalCluster;
import io.synod.server.node.SynodNode;
import io.synod.server.node.TcpRelay;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;

/**
 * The RS-Paxos throughput experiment on real Synod servers (Mu et al. 2014, section 5, Fig. 5/6):
 * five servers in this JVM on 127.0.0.1 with one replication group, every peer link (one TCP
 * connection per direction) passing through a {@link DelayProxy} that adds half the RTT (with
 * jitter) and serializes at a bandwidth cap; clients write values of each size for a fixed time,
 * first with full copies ({@code coding=off}: majorities, every follower gets the whole value),
 * then with {@code coding=5,1,3} (a value is coded into 3 data shards of 5, each follower gets
 * one). Measured per run: acknowledged writes per second and the bytes that crossed the peer links
 * per acknowledged write (counted by the proxies, after the followers caught up). Clients talk to
 * the servers directly; only peer links are capped.
 */
public final class CodedBench {
    public static final int NODES = 5;
    static final int SESSION_TIMEOUT_MS = 3000;

    /** What to run. */
    public record Config(List<Integer> sizesBytes, long bandwidthBitsPerSecond, Duration rtt, Duration jitter,
            int clients, Duration warmup, Duration measure, int thresholdBytes, int heartbeatMillis, int failoverBytes,
            Path out) {}

    /** One run: one mode, one value size. */
    public record Row(String mode, int sizeBytes, long writes, double seconds, double writesPerSecond,
            double valueMegabytesPerSecond, double wireBytesPerWrite, double p50Millis, double p99Millis, long failed,
            RunCosts.Summary costs) {}

    /** One fail-over: a leader killed (its ZooKeeper link cut, like kill -9) while clients write. */
    public record Failover(String mode, int sizeBytes, double seconds, int oldLeader, int newLeader) {}

    private final Config config;
    private final PrintWriter out;
    private final List<Failover> failovers = new ArrayList<>();

    public CodedBench(Config config, PrintWriter out) {
        this.config = config;
        this.out = out;
    }

    /** Runs full copies, then coded, at every size; writes CSV and PNG files; returns the rows. */
    public List<Row> run() throws Exception {
        List<Row> rows = new ArrayList<>();
        for (String mode : List.of("full", "coded")) {
            Path dir = Files.createTempDirectory("synod-bench-coded-" + mode + "-");
            try (Cluster cluster = new Cluster(mode, dir)) {
                long t0 = System.nanoTime();
                cluster.start();
                out.printf("%s: 5 servers up, leader node %d (%.1f s); peer links %d Mbit/s, RTT %d ± %.1f ms%n", mode,
                        cluster.leader(), (System.nanoTime() - t0) / 1e9, config.bandwidthBitsPerSecond() / 1_000_000,
                        config.rtt().toMillis(), config.jitter().toMillis() / 2.0);
                out.flush();
                for (int size : config.sizesBytes()) {
                    Row row = cluster.measure(size);
                    rows.add(row);
                    out.printf("  %-5s %8s: %5d writes in %5.1f s = %7.2f writes/s (%6.2f MB/s of values), "
                            + "peer wire %s/write, p50 %.0f ms, p99 %.0f ms%s%n", mode, sizeLabel(size), row.writes(),
                            row.seconds(), row.writesPerSecond(), row.valueMegabytesPerSecond(),
                            bytesLabel(row.wireBytesPerWrite()), row.p50Millis(), row.p99Millis(),
                            row.failed() > 0 ? ", " + row.failed() + " failed" : "");
                    out.printf("  %-5s %8s: %s%n", mode, sizeLabel(size), row.costs().line());
                    out.flush();
                }
                if (config.failoverBytes() > 0) {
                    Failover f = cluster.failover(config.failoverBytes());
                    failovers.add(f);
                    out.printf("  %-5s fail-over: leader node %d killed while writing %s values; node %d committed the "
                            + "first write %.2f s later (ZooKeeper session timeout %d ms)%n", mode, f.oldLeader(),
                            sizeLabel(f.sizeBytes()), f.newLeader(), f.seconds(), SESSION_TIMEOUT_MS);
                    out.flush();
                }
            } finally {
                deleteTree(dir);
            }
        }
        report(rows);
        return rows;
    }

    private void report(List<Row> rows) throws IOException {
        Files.createDirectories(config.out());
        CsvTable runs = new CsvTable("mode", "value_bytes", "writes", "seconds", "writes_per_s", "value_MB_per_s",
                "peer_wire_bytes_per_write", "p50_ms", "p99_ms", "failed", "process_cpu_cores", "leader_group_worker_cores",
                "leader_log_writer_cores", "followers_cpu_cores", "jit_gc_cpu_cores", "gc_s", "leader_link_use_min",
                "leader_link_use_max");
        for (Row r : rows) {
            RunCosts.Summary c = r.costs();
            runs.add(r.mode(), r.sizeBytes(), r.writes(), fmt(r.seconds()), fmt(r.writesPerSecond()),
                    fmt(r.valueMegabytesPerSecond()), fmt(r.wireBytesPerWrite()), fmt(r.p50Millis()), fmt(r.p99Millis()),
                    r.failed(), fmt(c.processCpu() / c.seconds()), fmt(c.leaderGroupsCpu() / c.seconds()),
                    fmt(c.leaderLogCpu() / c.seconds()), fmt(c.followersCpu() / c.seconds()),
                    fmt(c.jvmInternalCpu() / c.seconds()), fmt(c.gcSeconds()), fmt(c.leaderLinkMinUse()),
                    fmt(c.leaderLinkMaxUse()));
        }
        runs.write(config.out().resolve("coded-runs.csv"));
        CsvTable ratios = new CsvTable("value_bytes", "full_writes_per_s", "coded_writes_per_s", "throughput_ratio",
                "full_wire_bytes_per_write", "coded_wire_bytes_per_write", "byte_ratio");
        out.println();
        out.println("coded vs full copies (N=5, F=1, X=3 vs majorities), same run:");
        out.printf("%10s %12s %12s %10s %14s %14s %10s%n", "value", "full w/s", "coded w/s", "thr ratio", "full B/write",
                "coded B/write", "B ratio");
        List<String> labels = new ArrayList<>();
        double[][] throughput = new double[2][config.sizesBytes().size()];
        double[][] bytes = new double[2][config.sizesBytes().size()];
        int i = 0;
        for (int size : config.sizesBytes()) {
            Row full = find(rows, "full", size);
            Row coded = find(rows, "coded", size);
            double tr = coded.writesPerSecond() / full.writesPerSecond();
            double br = coded.wireBytesPerWrite() / full.wireBytesPerWrite();
            ratios.add(size, fmt(full.writesPerSecond()), fmt(coded.writesPerSecond()), fmt(tr),
                    fmt(full.wireBytesPerWrite()), fmt(coded.wireBytesPerWrite()), fmt(br));
            out.printf("%10s %12.2f %12.2f %9.2fx %14.0f %14.0f %9.3fx%n", sizeLabel(size), full.writesPerSecond(),
                    coded.writesPerSecond(), tr, full.wireBytesPerWrite(), coded.wireBytesPerWrite(), br);
            labels.add(sizeLabel(size));
            throughput[0][i] = full.writesPerSecond();
            throughput[1][i] = coded.writesPerSecond();
            bytes[0][i] = full.wireBytesPerWrite() / 1024.0;
            bytes[1][i] = coded.wireBytesPerWrite() / 1024.0;
            i++;
        }
        ratios.write(config.out().resolve("coded-ratios.csv"));
        if (failovers.size() == 2) {
            CsvTable f = new CsvTable("mode", "value_bytes", "failover_s", "old_leader", "new_leader");
            for (Failover x : failovers) {
                f.add(x.mode(), x.sizeBytes(), fmt(x.seconds()), x.oldLeader(), x.newLeader());
            }
            f.write(config.out().resolve("coded-failover.csv"));
            out.printf("%10s %12.2f %12.2f %9.2fx   (fail-over s: kill to first acknowledged write, one sample each)%n",
                    "fail-over", failovers.get(0).seconds(), failovers.get(1).seconds(),
                    failovers.get(1).seconds() / failovers.get(0).seconds());
        }
        LinkedHashMap<String, double[]> t = new LinkedHashMap<>();
        t.put("full copies", throughput[0]);
        t.put("RS-Paxos 5,1,3", throughput[1]);
        LinkedHashMap<String, double[]> b = new LinkedHashMap<>();
        b.put("full copies", bytes[0]);
        b.put("RS-Paxos 5,1,3", bytes[1]);
        String caps = config.bandwidthBitsPerSecond() / 1_000_000 + " Mbit/s links, RTT " + config.rtt().toMillis() + " ms";
        boolean drawn = Charts.savePngGrid(List.of(
                Charts.bars("writes/s by value size (" + caps + ")", "acknowledged writes/s", labels, t),
                Charts.bars("peer-link bytes per write", "KiB per write", labels, b)), 2, config.out().resolve("coded.png"));
        out.println();
        out.println("wrote " + config.out().resolve("coded-runs.csv") + ", " + config.out().resolve("coded-ratios.csv")
                + (drawn ? ", " + config.out().resolve("coded.png") : " (coded.png skipped: see the line above)"));
        out.flush();
    }

    private static Row find(List<Row> rows, String mode, int size) {
        return rows.stream().filter(r -> r.mode().equals(mode) && r.sizeBytes() == size).findFirst().orElseThrow();
    }

    static String sizeLabel(int bytes) {
        return bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : bytes % 1024 == 0 ? (bytes >> 10) + " KiB" : bytes + " B";
    }

    private static String bytesLabel(double bytes) {
        return bytes >= 1 << 20 ? String.format("%.2f MiB", bytes / (1 << 20)) : String.format("%.1f KiB", bytes / 1024);
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /** Five servers, ZooKeeper, and a capped proxy on each of the 20 directed peer links. */
    private final class Cluster implements AutoCloseable {
        private final String mode;
        private final Path dir;
        private final EventLoopGroup proxyLoops = new NioEventLoopGroup(2);
        private final List<DelayProxy> proxies = new ArrayList<>();
        private final DelayProxy[][] links = new DelayProxy[NODES][NODES];
        private final SynodNode[] nodes = new SynodNode[NODES];
        private final TcpRelay[] relays = new TcpRelay[NODES];
        private final List<SynodNode> crashed = new ArrayList<>();
        private TestingServer zk;
        private Map<Integer, InetSocketAddress> clientAddresses;
        private long nextClientId = 1;

        Cluster(String mode, Path dir) {
            this.mode = mode;
            this.dir = dir;
        }

        void start() throws Exception {
            zk = new TestingServer(true);
            int[] peer = new int[NODES];
            int[] client = new int[NODES];
            clientAddresses = new TreeMap<>();
            for (int i = 0; i < NODES; i++) {
                peer[i] = LocalCluster.freePort();
                client[i] = LocalCluster.freePort();
                clientAddresses.put(i, new InetSocketAddress("127.0.0.1", client[i]));
            }
            long bytesPerSecond = config.bandwidthBitsPerSecond() / 8;
            DelaySpec link = DelaySpec.halfOfRtt(config.rtt())
                    .withJitter(config.jitter().toNanos() / 2, JitterDistribution.UNIFORM).withBandwidth(bytesPerSecond);
            DelaySpec back = DelaySpec.halfOfRtt(config.rtt());
            int[][] via = new int[NODES][NODES];
            for (int from = 0; from < NODES; from++) {
                for (int to = 0; to < NODES; to++) {
                    if (from != to) {
                        DelayProxy p = DelayProxy.builder(new InetSocketAddress("127.0.0.1", peer[to]))
                                .delays(link, back).eventLoopGroup(proxyLoops).seed(from * 31L + to)
                                .name("link " + from + "->" + to).start();
                        proxies.add(p);
                        links[from][to] = p;
                        via[from][to] = p.port();
                    }
                }
            }
            for (int i = 0; i < NODES; i++) {
                StringBuilder spec = new StringBuilder();
                for (int j = 0; j < NODES; j++) {
                    spec.append(j == 0 ? "" : ",").append(j).append("@127.0.0.1:").append(i == j ? peer[j] : via[i][j])
                            .append(':').append(client[j]);
                }
                Properties p = new Properties();
                p.setProperty("cluster.name", "coded-bench");
                p.setProperty("node.id", Integer.toString(i));
                p.setProperty("nodes", spec.toString());
                // Each node reaches ZooKeeper through its own relay, so a killed leader's session expires
                // (as after kill -9) instead of being closed.
                relays[i] = new TcpRelay(new InetSocketAddress("127.0.0.1", zk.getPort()));
                p.setProperty("zookeeper.connect", "127.0.0.1:" + relays[i].port());
                p.setProperty("zookeeper.session.timeout.ms", Integer.toString(SESSION_TIMEOUT_MS));
                p.setProperty("data.dir", dir.resolve("node-" + i).toString());
                p.setProperty("groups", "1");
                // Retransmissions come every 2 heartbeats; below the queueing delay of a capped link they
                // would resend values still in the queue (see docs/erasure.md).
                p.setProperty("heartbeat.ms", Integer.toString(config.heartbeatMillis()));
                p.setProperty("metrics.port", "-1");
                p.setProperty("coding", mode.equals("coded") ? "5,1,3" : "off");
                p.setProperty("coding.threshold.bytes", Integer.toString(config.thresholdBytes()));
                // This bench measures coding on capped links in one JVM on 127.0.0.1; TLS would add its own cost.
                p.setProperty("insecure", "true");
                nodes[i] = new SynodNode(ServerConfig.from(p)).start();
            }
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (leader() < 0) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(mode + ": no leader within 60 s");
                }
                Thread.sleep(20);
            }
        }

        int leader() {
            for (SynodNode n : nodes) {
                if (n != null && n.statusReport(0).groups().get(0).role() == Role.LEADER.ordinal()) {
                    return n.nodeId();
                }
            }
            return -1;
        }

        /** Bytes forwarded so far on each directed peer link ({@code [from][to]}; 0 on the diagonal). */
        long[][] linkBytes() {
            long[][] bytes = new long[NODES][NODES];
            for (int from = 0; from < NODES; from++) {
                for (int to = 0; to < NODES; to++) {
                    bytes[from][to] = links[from][to] == null ? 0 : links[from][to].bytesForwarded();
                }
            }
            return bytes;
        }

        long wireBytes() {
            long sum = 0;
            for (DelayProxy p : proxies) {
                sum += p.bytesForwarded();
            }
            return sum;
        }

        /** Waits until every node applied the leader's commit point (followers' recovery reads included). */
        void quiesce() throws InterruptedException {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < deadline) {
                int leader = leader();
                if (leader >= 0) {
                    long commit = nodes[leader].statusReport(0).groups().get(0).commitSlot();
                    boolean all = true;
                    for (SynodNode n : nodes) {
                        if (n != null) {
                            ClientFrame.GroupStatus s = n.statusReport(0).groups().get(0);
                            all &= s.appliedSlot() >= commit;
                        }
                    }
                    if (all) {
                        return;
                    }
                }
                Thread.sleep(50);
            }
            throw new IllegalStateException(mode + ": followers did not catch up within 60 s");
        }

        Row measure(int size) throws Exception {
            quiesce();
            long bytesBefore = wireBytes();
            long start = System.nanoTime();
            long measureFrom = start + config.warmup().toNanos();
            long end = measureFrom + config.measure().toNanos();
            AtomicLong total = new AtomicLong();
            AtomicLong failed = new AtomicLong();
            List<long[]> latencies = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            long[] counted = new long[config.clients()];
            for (int c = 0; c < config.clients(); c++) {
                int index = c;
                long clientId = nextClientId++;
                long[] lat = new long[200_000];
                latencies.add(lat);
                Thread t = new Thread(() -> {
                    byte[] value = new byte[size];
                    new Random(clientId).nextBytes(value);
                    int n = 0;
                    try (NodeClient client = new NodeClient(clientAddresses, clientId, 30_000, 16 << 20)) {
                        for (long seq = 0; System.nanoTime() < end; seq++) {
                            value[0] = (byte) seq;
                            value[1] = (byte) (seq >> 8);
                            long t0 = System.nanoTime();
                            NodeClient.Result r = client.put("v" + size + "-" + clientId + "-" + seq, value, 60_000);
                            long t1 = System.nanoTime();
                            if (r.status() != ClientReply.Status.OK) {
                                failed.incrementAndGet();
                                continue;
                            }
                            total.incrementAndGet();
                            if (t0 >= measureFrom && t1 <= end && n < lat.length) {
                                lat[n++] = t1 - t0;
                            }
                        }
                    } catch (IOException e) {
                        failed.incrementAndGet();
                    }
                    counted[index] = n;
                }, "bench-coded-client-" + c);
                threads.add(t);
                t.start();
            }
            // The machine's costs over the measured window only (the clients keep writing meanwhile).
            Thread.sleep(Math.max(0, (measureFrom - System.nanoTime()) / 1_000_000));
            RunCosts costs = new RunCosts(linkBytes());
            Thread.sleep(Math.max(0, (end - System.nanoTime()) / 1_000_000));
            RunCosts.Summary summary = costs.finish(linkBytes(), leader(), config.bandwidthBitsPerSecond() / 8);
            for (Thread t : threads) {
                t.join();
            }
            quiesce();
            long wire = wireBytes() - bytesBefore;
            long[] all = new long[(int) Arrays.stream(counted).sum()];
            int k = 0;
            for (int c = 0; c < counted.length; c++) {
                System.arraycopy(latencies.get(c), 0, all, k, (int) counted[c]);
                k += (int) counted[c];
            }
            Arrays.sort(all);
            double seconds = config.measure().toNanos() / 1e9;
            double perSecond = all.length / seconds;
            return new Row(mode, size, all.length, seconds, perSecond, perSecond * size / 1e6,
                    total.get() == 0 ? Double.NaN : (double) wire / total.get(), percentile(all, 0.50),
                    percentile(all, 0.99), failed.get(), summary);
        }

        /**
         * Kills the leader while clients write values of {@code size} bytes and returns the time from the
         * kill to the first write acknowledged under the new leader (RS-Paxos Fig. 8: recovery time).
         */
        Failover failover(int size) throws Exception {
            quiesce();
            int old = leader();
            AtomicLong firstAck = new AtomicLong();
            long killAt = System.nanoTime() + 1_000_000_000L;
            List<Thread> writers = new ArrayList<>();
            for (int c = 0; c < Math.min(4, config.clients()); c++) {
                long clientId = nextClientId++;
                Thread t = new Thread(() -> {
                    byte[] value = new byte[size];
                    new Random(clientId).nextBytes(value);
                    try (NodeClient client = new NodeClient(clientAddresses, clientId, 30_000, 16 << 20)) {
                        for (long seq = 0; firstAck.get() == 0 && System.nanoTime() < killAt + 60_000_000_000L; seq++) {
                            long sent = System.nanoTime();
                            NodeClient.Result r = client.put("f" + size + "-" + clientId + "-" + seq, value, 60_000);
                            if (r.status() == ClientReply.Status.OK && sent > killAt && r.servedBy() != old) {
                                firstAck.compareAndSet(0, System.nanoTime());
                            }
                        }
                    } catch (IOException e) {
                        // The run reports no fail-over time if no write got through.
                    }
                }, "bench-coded-failover-" + c);
                writers.add(t);
                t.start();
            }
            Thread.sleep(Math.max(0, (killAt - System.nanoTime()) / 1_000_000));
            long killed = System.nanoTime();
            relays[old].cut();
            nodes[old].crash();
            crashed.add(nodes[old]);
            nodes[old] = null;
            for (Thread t : writers) {
                t.join();
            }
            if (firstAck.get() == 0) {
                throw new IllegalStateException(mode + ": no write acknowledged within 60 s after killing the leader");
            }
            return new Failover(mode, size, (firstAck.get() - killed) / 1e9, old, leader());
        }

        @Override
        public void close() throws Exception {
            for (SynodNode n : nodes) {
                if (n != null) {
                    n.close();
                }
            }
            for (SynodNode n : crashed) {
                n.close();
            }
            for (TcpRelay r : relays) {
                if (r != null) {
                    r.close();
                }
            }
            for (DelayProxy p : proxies) {
                p.close();
            }
            proxyLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            if (zk != null) {
                zk.close();
            }
        }
    }

    private static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.floor(q * sorted.length))] / 1e6;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
