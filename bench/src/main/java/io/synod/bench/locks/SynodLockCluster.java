package io.synod.bench.locks;

import io.synod.bench.kv.ProcessCluster;
import io.synod.bench.netdelay.DelayProxy;
import io.synod.bench.netdelay.DelaySpec;
import io.synod.bench.report.LatencySummary;
import io.synod.client.SynodClient;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Synod cluster for the lock experiments: three server processes and one ZooKeeper process for leader election
 * ({@link ProcessCluster}, {@code synod cluster start}), one replication group, and {@code clientCount} SDK clients
 * (each its own {@link SynodClient}, so its own session) that reach the servers only through one
 * {@link DelayProxy} per server client port: the client-server RTT. The server-server RTT is the peer transport's
 * injected delay ({@code peer.delay.ms} = RTT / 2 on every node, so every peer link carries RTT / 2 each way). That
 * delay is server configuration, so a new server-server RTT means a fresh cluster (the clients reconnect to new
 * proxies); points are ordered by the experiments so this happens only a few times per run.
 *
 * <p>The SDK sends each command to the group's leader (following the leader hint), so a write costs one
 * client RTT plus one commit (leader to a majority: one server RTT plus the fsync), which
 * {@link #writeLatency} measures with puts.
 */
public final class SynodLockCluster implements LockCluster {
    /** Nodes of the cluster: the smallest that replicates (a majority of two). */
    public static final int NODES = 3;
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(60);

    private final Path baseDir;
    private final boolean keepFiles;
    private final int clientCount;
    private final SynodLockFactory factory;
    private final long seed;
    private final PrintWriter progress;
    private final List<SynodClient> clients = new ArrayList<>();
    private final List<DelayProxy> proxies = new ArrayList<>();
    private ProcessCluster cluster;
    private int clusterCount;
    private int clientRttMillis = -1;
    private int serverRttMillis = -1;

    private SynodLockCluster(Path baseDir, boolean keepFiles, int clientCount, SynodLockFactory factory, long seed,
                             PrintWriter progress) {
        this.baseDir = baseDir;
        this.keepFiles = keepFiles;
        this.clientCount = clientCount;
        this.factory = factory;
        this.seed = seed;
        this.progress = progress;
    }

    /**
     * Starts a cluster at RTT 0/0 under {@code baseDir} (a fresh directory per cluster; deleted at {@link #close}
     * unless {@code keepFiles}).
     */
    public static SynodLockCluster start(Path baseDir, boolean keepFiles, int clientCount, SynodLockFactory factory,
                                         long seed, PrintWriter progress) throws Exception {
        if (clientCount < 1) {
            throw new IllegalArgumentException("need at least one client, got " + clientCount);
        }
        Files.createDirectories(baseDir);
        SynodLockCluster c = new SynodLockCluster(baseDir, keepFiles, clientCount, factory, seed, progress);
        try {
            c.setRtts(0, 0);
        } catch (Exception | Error e) {
            c.close();
            throw e;
        }
        return c;
    }

    @Override
    public Backend backend() {
        return Backend.SYNOD;
    }

    @Override
    public int clientCount() {
        return clientCount;
    }

    /** The SDK clients (for tests and set-up); client k is lock client k. */
    public List<SynodClient> clients() {
        return clients;
    }

    @Override
    public void setRtts(int clientRtt, int serverRtt) throws Exception {
        if (clientRtt < 0 || serverRtt < 0) {
            throw new IllegalArgumentException("RTTs must be >= 0, got client " + clientRtt + " ms, server " + serverRtt + " ms");
        }
        if (serverRtt % 2 != 0) {
            throw new IllegalArgumentException("the Synod backend injects server RTT as a whole-millisecond one-way delay"
                    + " per direction: server RTT must be even, got " + serverRtt + " ms");
        }
        if (cluster == null || serverRtt != serverRttMillis) {
            startCluster(serverRtt, clientRtt);
        } else if (clientRtt != clientRttMillis) {
            DelaySpec oneWay = DelaySpec.halfOfRtt(Duration.ofMillis(clientRtt));
            for (DelayProxy proxy : proxies) {
                proxy.setDelays(oneWay, oneWay);
            }
            // Bytes already stamped with the old delay drain first.
            Thread.sleep(Math.max(clientRtt, clientRttMillis) * 2L + 50);
        }
        clientRttMillis = clientRtt;
        serverRttMillis = serverRtt;
    }

    private void startCluster(int serverRtt, int clientRtt) throws Exception {
        stopCluster();
        Path dir = baseDir.resolve("cluster-" + (++clusterCount) + "-server-rtt-" + serverRtt);
        List<String> sets = serverRtt == 0 ? List.of() : List.of("peer.delay.ms=" + serverRtt / 2);
        progress.println("  starting a Synod cluster of " + NODES + " server processes + ZooKeeper in " + dir
                + " (server-server RTT " + serverRtt + " ms" + (serverRtt == 0 ? "" : ": peer.delay.ms=" + serverRtt / 2) + ")");
        progress.flush();
        cluster = ProcessCluster.start(dir, NODES, 1, 4_000, sets, progress, false);
        DelaySpec oneWay = DelaySpec.halfOfRtt(Duration.ofMillis(clientRtt));
        List<InetSocketAddress> viaProxies = new ArrayList<>();
        for (Map.Entry<Integer, InetSocketAddress> node : cluster.clientAddresses().entrySet()) {
            DelayProxy proxy = DelayProxy.builder(node.getValue())
                    .name("synod-client-" + node.getKey())
                    .delays(oneWay, oneWay)
                    .seed(seed + node.getKey())
                    .start();
            proxies.add(proxy);
            viaProxies.add(proxy.listenAddress());
        }
        for (int k = 0; k < clientCount; k++) {
            SynodClient client = SynodClient.builder().servers(viaProxies).timeout(CLIENT_TIMEOUT)
                    .connectTimeout(Duration.ofSeconds(30)).tls(cluster.clientTls()).build();
            clients.add(client);
            // Unmeasured: connects, learns the leader and the shard map.
            client.put("/synod-bench/hello-" + k, new byte[] {1}).get(CLIENT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    @Override
    public LockUnderTest.ClientLocks locks() {
        return (primitive, clientIndex, lockPath) -> factory.create(primitive, clients.get(clientIndex), lockPath);
    }

    @Override
    public void prepareLockPath(String lockPath) {
        // Synod lock keys need no parent: nothing to create.
    }

    @Override
    public LatencySummary writeLatency(String keyPrefix, int count) throws Exception {
        byte[] payload = new byte[64];
        long[] latencies = new long[count];
        SynodClient client = clients.get(0);
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            client.put(keyPrefix + "/n-" + i, payload).get(CLIENT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            latencies[i] = System.nanoTime() - start;
        }
        return LatencySummary.ofNanos(latencies);
    }

    @Override
    public String describe() {
        return "Synod cluster of " + NODES + " server processes (1 group) + ZooKeeper for election; " + clientCount
                + " SDK clients through client-port delay proxies, each sending to the group's leader";
    }

    private void stopCluster() {
        for (SynodClient client : clients) {
            client.close();
        }
        clients.clear();
        for (DelayProxy proxy : proxies) {
            proxy.close();
        }
        proxies.clear();
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    @Override
    public void close() {
        stopCluster();
        if (!keepFiles) {
            deleteTree(baseDir);
        }
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // Left behind; the directory is under the run's temp dir.
                }
            });
        } catch (IOException e) {
            // Same.
        }
    }
}
