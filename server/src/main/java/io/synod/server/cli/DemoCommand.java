package io.synod.server.cli;

import io.synod.coordination.ShardMap;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvResult;
import io.synod.server.client.NodeClient;
import io.synod.server.config.ZooKeeperSettings;
import io.synod.server.node.EmbeddedZooKeeper;
import io.synod.server.node.LocalCluster;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code synod demo}: one JVM, a real ZooKeeper server in-process, three Synod nodes on 127.0.0.1
 * with RocksDB in a temporary directory. Writes and reads keys, kills the leader of the busiest
 * group the way {@code kill -9} would (its ZooKeeper link is cut, its session left to expire),
 * measures each affected group's time from the kill to its first commit under a new leader, checks
 * that every acknowledged write is still readable, prints a summary, cleans up.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run ZooKeeper and a 3-node Synod cluster in this JVM, write, kill the leader, verify.")
public final class DemoCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--nodes", defaultValue = "3", description = "Synod nodes: 3 or 5 (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--groups", defaultValue = "4", description = "replication groups (default ${DEFAULT-VALUE})")
    int groups;

    @Option(names = "--keys", defaultValue = "200", description = "keys written before the kill (default ${DEFAULT-VALUE})")
    int keys;

    @Option(names = "--session-timeout-ms", defaultValue = "4000",
            description = "ZooKeeper session timeout: bounds failover (default ${DEFAULT-VALUE})")
    int sessionTimeoutMillis;

    @Option(names = "--keep-data", description = "keep the temporary data directory and print its path")
    boolean keepData;

    @Option(names = "--insecure", description = "no TLS and no authentication on the servers' ports (warned); by default the demo creates a "
            + "CA in its data directory and every node and client uses a certificate of it")
    boolean insecure;

    private PrintWriter out;

    @Override
    public Integer call() throws Exception {
        out = spec.commandLine().getOut();
        // The demo prints its own story; the servers' INFO lines would drown it.
        System.setProperty("synod.log.level", System.getProperty("synod.log.level", "ERROR"));
        System.setProperty("synod.zk.log.level", System.getProperty("synod.zk.log.level", "ERROR"));
        if (nodes != 3 && nodes != 5) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--nodes must be 3 or 5, got " + nodes);
        }
        if (groups < 1 || groups > 64) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--groups must be 1..64, got " + groups);
        }
        if (keys < 1 || keys > 100_000) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--keys must be 1..100000, got " + keys);
        }
        if (sessionTimeoutMillis < 1000 || sessionTimeoutMillis > 60_000) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--session-timeout-ms must be 1000..60000, got " + sessionTimeoutMillis);
        }
        long started = System.nanoTime();
        Path dir = Files.createTempDirectory("synod-demo-");
        // A short tick so the server notices an expired session promptly (expiry is checked per tick).
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zookeeper"), 200)) {
            out.printf("ZooKeeper 3.9.5 server running in this JVM at 127.0.0.1:%d%n", zk.address().getPort());
            out.printf("data directory: %s%n", dir);
            if (insecure) {
                spec.commandLine().getErr().println(ClusterCommand.INSECURE_WARNING);
            }
            try (LocalCluster cluster = new LocalCluster(zk.address(), dir, nodes, groups,
                    "demo", Map.of("zookeeper.session.timeout.ms", Integer.toString(sessionTimeoutMillis),
                            "log.segment.bytes", Integer.toString(4 << 20), "insecure", Boolean.toString(insecure)))) {
                out.printf("TLS: %s%n", insecure ? "off (--insecure)" : "on, certificates of a new CA in " + dir.resolve("certs"));
                out.printf("ZooKeeper ACLs: on, the cluster's znodes are writable only by the servers' identity (secret in %s)%n",
                        dir.resolve(ZooKeeperSettings.LOCAL_SECRET));
                return run(cluster, started);
            }
        } finally {
            if (keepData) {
                out.printf("kept data directory %s%n", dir);
            } else {
                deleteTree(dir);
            }
        }
    }

    private int run(LocalCluster cluster, long started) throws Exception {
        long t0 = System.nanoTime();
        cluster.startAll();
        if (!cluster.awaitLeaders(60_000)) {
            out.println("FAILED: not every group elected a leader within 60 s");
            return 1;
        }
        out.printf("%d Synod nodes up on 127.0.0.1 in %.1f s (peer and client ports, RocksDB per group)%n", nodes,
                seconds(System.nanoTime() - t0));
        printLeaders(cluster);

        ShardMap shards = cluster.node(0).shardMap();
        Map<Integer, String> prefixes = prefixesPerGroup(shards);
        for (int g = 0; g < groups; g++) {
            if (!prefixes.containsKey(g)) {
                out.printf("  note: no UTF-8 key maps to group %d under shard map %s%n", g, shards);
            }
        }
        List<Integer> usable = new ArrayList<>(prefixes.keySet());
        Map<String, byte[]> acknowledged = new LinkedHashMap<>();
        List<Long> latencies = new ArrayList<>();
        try (NodeClient client = cluster.client(1, 2_000)) {
            for (int i = 0; i < keys; i++) {
                int g = usable.get(i % usable.size());
                String key = prefixes.get(g) + "key-" + i;
                byte[] value = ("value-" + i).getBytes(StandardCharsets.UTF_8);
                long s = System.nanoTime();
                NodeClient.Result r = client.put(key, value, 20_000);
                latencies.add(System.nanoTime() - s);
                if (r.status() == ClientReply.Status.OK) {
                    acknowledged.put(key, value);
                }
            }
            latencies.sort(null);
            out.printf("wrote %d keys across %d groups: %d acknowledged, latency p50 %.1f ms, p99 %.1f ms%n", keys,
                    usable.size(), acknowledged.size(), millis(latencies.get(latencies.size() / 2)),
                    millis(latencies.get((int) Math.min(latencies.size() - 1, Math.ceil(latencies.size() * 0.99) - 1))));
            int ackBefore = acknowledged.size();
            int matched = verify(client, acknowledged);
            out.printf("read back %d/%d acknowledged keys%n", matched, acknowledged.size());

            int victim = cluster.leaderOf(usable.get(0));
            List<Integer> led = new ArrayList<>();
            Map<Integer, Long> oldEpoch = new TreeMap<>();
            for (int g = 0; g < groups; g++) {
                if (cluster.leaderOf(g) == victim) {
                    led.add(g);
                    oldEpoch.put(g, cluster.status(victim, g).promisedEpoch());
                }
            }
            out.printf("killing node %d (leader of group%s %s) like kill -9: ZooKeeper link cut, sockets closed, "
                    + "session left to expire (timeout %d ms)%n", victim, led.size() == 1 ? "" : "s", led,
                    sessionTimeoutMillis);
            long killed = System.nanoTime();
            cluster.crash(victim);

            // One prober per affected group, concurrently: time from the kill to the first acknowledged write.
            Map<Integer, Long> firstCommit = new TreeMap<>();
            List<Thread> probers = new ArrayList<>();
            Map<Integer, String> probeErrors = new TreeMap<>();
            Map<String, byte[]> probeWrites = new java.util.concurrent.ConcurrentHashMap<>();
            for (int g : led) {
                if (!prefixes.containsKey(g)) {
                    continue;
                }
                Thread t = new Thread(() -> {
                    try (NodeClient probe = cluster.client(100 + g, 1_000)) {
                        String key = prefixes.get(g) + "failover-probe";
                        byte[] value = "after-kill".getBytes(StandardCharsets.UTF_8);
                        NodeClient.Result r = probe.put(key, value, sessionTimeoutMillis + 30_000L);
                        if (r.status() == ClientReply.Status.OK) {
                            synchronized (firstCommit) {
                                firstCommit.put(g, System.nanoTime() - killed);
                            }
                            probeWrites.put(key, value);
                        } else {
                            probeErrors.put(g, r.status().toString());
                        }
                    } catch (Exception e) {
                        probeErrors.put(g, e.getMessage());
                    }
                });
                t.start();
                probers.add(t);
            }
            for (Thread t : probers) {
                t.join();
            }
            acknowledged.putAll(probeWrites);
            boolean failoverOk = probeErrors.isEmpty();
            long worstNanos = 0;
            for (int g : led) {
                if (!firstCommit.containsKey(g)) {
                    if (prefixes.containsKey(g)) {
                        out.printf("  group %d: no commit after the kill (%s)%n", g, probeErrors.get(g));
                    }
                    continue;
                }
                int leader = cluster.leaderOf(g);
                long epoch = leader >= 0 ? cluster.status(leader, g).promisedEpoch() : -1;
                worstNanos = Math.max(worstNanos, firstCommit.get(g));
                out.printf("  group %d: new leader node %d, epoch %d (was %d), first commit %.2f s after the kill%n", g,
                        leader, epoch, oldEpoch.get(g), seconds(firstCommit.get(g)));
            }
            double bound = sessionTimeoutMillis / 1000.0 + 1.0;
            out.printf("failover: slowest first commit %.2f s; bound ZooKeeper session timeout + 1 s = %.1f s: %s%n",
                    seconds(worstNanos), bound, seconds(worstNanos) <= bound ? "within" : "EXCEEDED");

            int more = Math.max(1, keys / 2);
            int ackAfter = 0;
            for (int i = 0; i < more; i++) {
                int g = usable.get(i % usable.size());
                String key = prefixes.get(g) + "after-" + i;
                byte[] value = ("after-" + i).getBytes(StandardCharsets.UTF_8);
                NodeClient.Result r = client.put(key, value, 20_000);
                if (r.status() == ClientReply.Status.OK) {
                    acknowledged.put(key, value);
                    ackAfter++;
                }
            }
            out.printf("wrote %d more keys with node %d down: %d acknowledged%n", more, victim, ackAfter);
            int finalMatched = verify(client, acknowledged);
            boolean allThere = finalMatched == acknowledged.size();
            out.printf("verified every acknowledged write: %d/%d readable with the value written%n", finalMatched,
                    acknowledged.size());
            boolean ok = allThere && failoverOk && matched == ackBefore && ackBefore == keys && !firstCommit.isEmpty();
            out.println();
            out.println("summary");
            out.printf("  cluster:            ZooKeeper (in-process) + %d Synod nodes, %d groups%n", nodes, groups);
            out.printf("  writes acknowledged: %d, all readable: %s%n", acknowledged.size(), allThere ? "yes" : "NO");
            out.printf("  leader killed:      node %d; new leaders committed after %.2f s at worst%n", victim,
                    seconds(worstNanos));
            out.printf("  wall time:          %.1f s%n", seconds(System.nanoTime() - started));
            out.printf("  result:             %s%n", ok ? "OK" : "FAILED");
            return ok ? 0 : 1;
        }
    }

    private void printLeaders(LocalCluster cluster) {
        StringBuilder b = new StringBuilder("leaders:");
        for (int g = 0; g < groups; g++) {
            int leader = cluster.leaderOf(g);
            ClientFrame.GroupStatus s = cluster.status(leader, g);
            b.append(String.format(" group %d -> node %d (epoch %d);", g, leader, s.promisedEpoch()));
        }
        out.println(b);
    }

    private static int verify(NodeClient client, Map<String, byte[]> expected) throws IOException {
        int matched = 0;
        for (Map.Entry<String, byte[]> e : expected.entrySet()) {
            NodeClient.Result r = client.get(e.getKey(), 20_000);
            if (r.status() == ClientReply.Status.OK && KvResult.decode(r.result()) instanceof KvResult.Value v
                    && Arrays.equals(v.value(), e.getValue())) {
                matched++;
            }
        }
        return matched;
    }

    /** A key prefix (one character) that the shard map sends to each group, where one exists. */
    public static Map<Integer, String> prefixesPerGroup(ShardMap shards) {
        Map<Integer, String> out = new TreeMap<>();
        for (int cp = 0x21; cp < 0x2FFFF && out.size() < shards.groupCount(); cp += cp < 0x7F ? 1 : 0x3F) {
            if (Character.isSurrogate((char) cp) && cp < 0x10000) {
                continue;
            }
            String s = new String(Character.toChars(cp));
            out.putIfAbsent(shards.groupFor(s.getBytes(StandardCharsets.UTF_8)), s);
        }
        return out;
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

    public static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                Files.deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
