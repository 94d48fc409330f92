package io.synod.server.node;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.synod.coordination.ClusterMetadata;
import io.synod.coordination.ClusterSpec;
import io.synod.coordination.CoordinationOptions;
import io.synod.coordination.CuratorCoordination;
import io.synod.coordination.ElectionService;
import io.synod.coordination.GroupProgress;
import io.synod.coordination.MemberInfo;
import io.synod.coordination.ShardMap;
import io.synod.coordination.ZooKeeperAccess;
import io.synod.core.paxos.Coding;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.protocol.ClientFrame;
import io.synod.server.auth.AuthService;
import io.synod.server.client.ClientServer;
import io.synod.server.client.ConnectionLimiter;
import io.synod.server.config.ServerConfig;
import io.synod.server.group.GroupLoop;
import io.synod.server.group.GroupWorkers;
import io.synod.server.group.GroupMetrics;
import io.synod.engine.GroupDriverConfig;
import io.synod.server.lease.GroupLease;
import io.synod.server.log.GroupStorage;
import io.synod.server.log.NodeStorage;
import io.synod.server.state.RocksKvStateMachine;
import io.synod.server.transport.ConnectionPolicy;
import io.synod.server.transport.FrameBudget;
import io.synod.server.transport.PeerNetwork;
import io.synod.server.wire.WireFrame;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Synod server: a replica of every group (G range shards, all on the same N nodes), the peer
 * network, the client port, the ZooKeeper session (election, membership, cluster metadata) and
 * the metrics endpoint. Data layout under {@code data.dir}: {@link NodeIdentity#FILE}, {@code log/} (every group's
 * records, see {@link NodeStorage}) and {@code group-<g>/} per group (see {@link GroupStorage}) with {@code rocksdb/} in it.
 */
public final class SynodNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SynodNode.class);
    public static final int MAX_IN_FLIGHT_PER_CONNECTION = 1024;

    private final ServerConfig config;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final List<AutoCloseable> resources = new ArrayList<>();
    /** How often the leader balancer looks; a move waits {@link #BALANCE_COOLDOWN_NANOS} after the last. */
    static final long BALANCE_INTERVAL_MILLIS = 1000;
    static final long BALANCE_COOLDOWN_NANOS = TimeUnit.SECONDS.toNanos(3);
    private final LeaderBalancer balancer;
    private final ScheduledExecutorService progress =
            Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "synod-progress");
                t.setDaemon(true);
                return t;
            });
    private CuratorCoordination coordination;
    private ElectionService election;
    private PeerNetwork network;
    private ClientServer clients;
    private volatile AuthService auth;
    /** Forwards a client's command to the leader it could not reach ({@link ClientForwarder}). */
    private ClientForwarder forwarder;
    /** Placement queries, and commands for groups this node does not host (null until the client port opens). */
    private volatile PlacementAnswers placementAnswers;
    private MetricsEndpoint metrics;
    private GroupLoop[] loops = new GroupLoop[0];
    /** The threads that run the groups: the workers and the log writer ({@link GroupWorkers}). */
    private GroupWorkers workers;
    /** Each group's meters, by group (read by {@link #readsByPath()} and {@link #recoveryRequests()}). */
    private GroupMetrics[] groupMetrics = new GroupMetrics[0];
    private volatile ShardMap shardMap;
    /** Which replica id of each group this node runs, and where peers' ids are ({@link ReplicaRoutes}). */
    private volatile ReplicaRoutes routes;
    /** Which nodes host each group ({@link Placements}). */
    private volatile Placements placements;
    private InetSocketAddress clientAddress;
    private InetSocketAddress peerAddress;

    public SynodNode(ServerConfig config) {
        this.config = config;
        this.balancer = new LeaderBalancer(config.nodeId(), BALANCE_COOLDOWN_NANOS);
    }

    private void registerConnectionMetrics(ConnectionPolicy policy) {
        Gauge.builder("synod.frames.partial", policy.budget(), FrameBudget::reserved).baseUnit("bytes")
                .description("bytes reserved for partially received frames (frame.budget.bytes bounds them)")
                .register(registry);
        Gauge.builder("synod.client.connections", clients.limiter(), ConnectionLimiter::open).register(registry);
        FunctionCounter.builder("synod.client.connections.refused", clients.limiter(), ConnectionLimiter::refused)
                .register(registry);
        // What partially received frames and TLS records actually occupy: every channel allocates from Netty's
        // default allocator, whose arenas also keep freed chunks for reuse (so this includes the pool's cache).
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider allocator) {
            Gauge.builder("synod.netty.direct.memory", allocator, a -> a.metric().usedDirectMemory()).baseUnit("bytes")
                    .description("direct memory held by Netty's default allocator").register(registry);
        }
    }

    /** Starts everything; on failure closes what was started and rethrows. */
    public SynodNode start() throws Exception {
        try {
            doStart();
            return this;
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    private void doStart() throws Exception {
        ConnectionPolicy policy = ConnectionPolicy.of(config); // TLS files load first: bad ones stop the start here.
        if (policy.tls() == null) {
            LOG.warn("node {}: INSECURE (insecure=true): no TLS and no authentication on the peer and client ports; "
                    + "anyone who reaches them can forge peer messages and read or write every key", config.nodeId());
        }
        Files.createDirectories(config.dataDir());
        CoordinationOptions options = CoordinationOptions.defaults()
                .withSessionTimeout(Duration.ofMillis(config.zookeeperSessionTimeoutMillis()));
        ZooKeeperAccess zookeeper = config.zookeeper().access(); // A bad secret file stops the start here.
        if (!zookeeper.authenticated()) {
            LOG.warn("node {}: INSECURE: no zookeeper.auth.secret.file: the cluster's znodes are writable by any ZooKeeper "
                    + "client (epochs, shard map, member addresses)", config.nodeId());
        }
        coordination = CuratorCoordination.connect(config.zookeeperConnect(), config.clusterName(), options, zookeeper);
        ClusterMetadata metadata = coordination.metadata();
        ClusterSpec cluster = ClusterSpecs.agree(config, metadata);
        int groups = cluster.groups();
        Coding coding = ClusterSpecs.codingOf(cluster.groupConfig(0));
        if (coding.enabled() && config.coding().deferRebuild()) {
            // A node-local choice (docs/erasure.md, deferred follower rebuild): a leader adds deferral headers to
            // the entries it codes, a follower applies from them; a node with it off rebuilds every value.
            coding = coding.withDeferredRebuild();
        }
        // Before any group opens its storage: a data.dir that lost the acceptor state ZooKeeper knows of re-joins as a
        // new incarnation (or is refused); then this node's replica id in each group is known.
        placements = Placements.agree(config, metadata, groups, coding, cluster.leaseMode());
        Map<Integer, ServerConfig.NodeAddress> addresses = NodeJoin.addresses(config, placements.current());
        NodeJoin.takeReplicaIds(config, metadata, placements.current(), groups);
        ReplicaRoutes routes = Rejoin.establish(config, metadata, groups, coding, cluster.leaseMode());
        this.routes = routes;
        // The lease is the group's configuration as ZooKeeper records it; createCluster above refused a
        // node whose lease setting differs from it.
        GroupLease lease = GroupLease.of(cluster.leaseMode(), cluster.leaseTiming(), config.lease().quorum());
        shardMap = metadata.shardMap().value();
        metadata.watchShardMap(v -> shardMap = v.value());
        election = coordination.election(config.nodeId());

        Map<Integer, InetSocketAddress> peers = new TreeMap<>();
        addresses.forEach((id, a) -> peers.put(id, a.peer()));
        loops = new GroupLoop[groups];
        groupMetrics = new GroupMetrics[groups];
        network = new PeerNetwork(config.nodeId(), config.clusterName(), peers, config.maxFrameBytes(),
                config.outboundQueueBytes(), 2, this::onPeerMessage, policy);
        network.locateReplicas(routes::nodeOf); // replica id to node: the group's replica map
        config.peerDelayMillis().forEach(network::setOutboundDelayMillis); // benchmark option, off by default
        ClientRouting routing = new ClientRouting(routes, () -> shardMap, loops, () -> placementAnswers);
        forwarder = new ClientForwarder(config.nodeId(), network, () -> auth == null ? null : auth.access(), routing::route,
                System::nanoTime, ClientForwarder.TIMEOUT_NANOS, registry);
        // One clock for every group of the node: the real one unless a test configuration skews it.
        LongSupplier clock = config.testClock().source();
        if (config.testClock().active()) {
            LOG.warn("node {}: TEST CLOCK: group runners read a clock skewed {} ms and drifting {} ppm (test configuration)",
                    config.nodeId(), config.testClock().skewMillis(), config.testClock().driftPpm());
        }
        String heap = config.snapshots().heapWarning(groups, Runtime.getRuntime().maxMemory());
        if (heap != null) {
            LOG.warn("node {}: {}", config.nodeId(), heap);
        }
        int workerCount = Math.min(groups, config.groupWorkers() == 0 ? GroupWorkers.defaultCount() : config.groupWorkers());
        workers = GroupWorkers.start(workerCount, clock, registry, "synod-node-" + config.nodeId() + "-groups");
        // Groups post their peer messages; each worker flushes the links once per pass (cross-group batching).
        workers.afterEachPass(network::flush);
        NodeStorage nodeStorage = NodeStorage.open(config.dataDir(), config.logSegmentBytes(), groups,
                config.logShards());
        resources.add(nodeStorage); // Closed after the group loops and workers (the loops close their views).
        nodeStorage.bindMetrics(registry);
        for (int g = 0; g < groups; g++) {
            Path groupDir = NodeStorage.groupDir(config.dataDir(), g);
            GroupStorage storage = nodeStorage.group(g);
            for (String t : storage.tornTails()) {
                LOG.warn("group {}: torn tail truncated: {}", g, t);
            }
            RocksKvStateMachine sm = new RocksKvStateMachine(groupDir.resolve("rocksdb"), groupDir.resolve("snapshot"));
            ReplicaConfig rc = config.snapshots().applyTo(ReplicaConfig.defaults(routes.selfReplica(g), routes.universe())
                    .withTimers(config.heartbeatMillis() * 1_000_000L, 2L * config.heartbeatMillis() * 1_000_000L,
                            config.phase1TimeoutMillis() * 1_000_000L));
            GroupMetrics gm = new GroupMetrics(registry, g);
            int group = g;
            PeerNetwork net = network;
            Consumer<WireFrame.PeerMessage> send = frame -> {
                if (routes.mayLeave(frame)) {
                    net.post(frame); // Flushed at the end of the worker's pass (afterEachPass above).
                }
            };
            GroupDriverConfig driverConfig = GroupDriverConfig.of(group, rc, 16_384, gm).withCoding(coding)
                    .withLease(lease.policy(), lease::read).withMembership(placements.initialMembership(g, routes.universe()));
            groupMetrics[g] = gm;
            loops[g] = new GroupLoop(driverConfig, storage, sm, sm, send, routes.election(election), config.tickMillis() * 1_000_000L, 8192,
                    workers);
            gm.exportInbox(loops[g]);
            gm.exportMembership(loops[g], routes.selfReplica(g));
            int nodeId = config.nodeId();
            LOG.info("node {}: group {} opened (snapshot {}, {} entries{})", nodeId, g,
                    storage.durableState().snapshot().lastIncludedSlot(), storage.durableState().entries().size(),
                    storage.repairAbove() == null ? "" : ", REPAIRING after corruption: " + storage.corruptions());
        }
        ServerConfig.NodeAddress self = config.nodes().get(config.nodeId());
        peerAddress = network.start(new InetSocketAddress(self.host(), self.peerPort()));
        for (int peer : network.peerIds()) {
            PeerLinks.registerMetrics(registry, network, peer);
        }
        PeerLinks.follow(config.nodeId(), placements, network, registry); // nodes that join while this one runs
        for (GroupLoop loop : loops) {
            loop.start();
        }
        placementAnswers = new PlacementAnswers(config.nodeId(), placements, this::leaderOf, registry);
        MembershipRequests membershipRequests = new MembershipRequests(routes, placements, placementAnswers,
                g -> loops[g], groups, progress);
        AuthService authService = new AuthService(config.auth(), routing::routeStaleRead);
        auth = authService;
        clients = new ClientServer(config.maxFrameBytes(), MAX_IN_FLIGHT_PER_CONNECTION, 2, new ClientPortHandler(routing,
                forwarder, authService, membershipRequests, placementAnswers, () -> shardMap, this::statusReport), policy);
        registerConnectionMetrics(policy);
        clientAddress = clients.start(new InetSocketAddress(self.host(), self.clientPort()));
        coordination.membership().register(MemberInfo.of(config.nodeId(), self.host() + ":" + peerAddress.getPort(),
                self.host() + ":" + clientAddress.getPort(), "default", versionString()));
        progress.scheduleWithFixedDelay(this::publishProgress, 250, 250, TimeUnit.MILLISECONDS);
        progress.scheduleWithFixedDelay(forwarder::expire, 100, 100, TimeUnit.MILLISECONDS);
        Rejoin rejoin = new Rejoin(config.nodeId(), groups, g -> placements.target(g, routes.map(g)),
                g -> leaderOf(g) == config.nodeId(), (g, request, answer) -> loops[g].onMembership(request, answer));
        progress.scheduleWithFixedDelay(rejoin::step, Rejoin.STEP_MILLIS, Rejoin.STEP_MILLIS, TimeUnit.MILLISECONDS);
        progress.scheduleWithFixedDelay(this::balanceLeaders, BALANCE_INTERVAL_MILLIS, BALANCE_INTERVAL_MILLIS,
                TimeUnit.MILLISECONDS);
        if (config.metricsPort() >= 0) {
            metrics = new MetricsEndpoint(new InetSocketAddress(config.limits().metricsAddress(), config.metricsPort()),
                    registry);
        }
        LOG.info("node {} up: peer {}, client {}, metrics {}, {} groups, coding {}, lease {}", config.nodeId(), peerAddress,
                clientAddress, metrics == null ? "off" : metrics.address(), groups, coding, lease);
    }


        private void onPeerMessage(WireFrame.PeerMessage frame) {
        GroupLoop[] current = loops;
        ReplicaRoutes r = routes;
        if (frame.group() >= 0 && frame.group() < current.length && current[frame.group()] != null
                && (r == null || r.isForSelf(frame))) { // not for an id of an earlier incarnation of this node
            current[frame.group()].onPeerMessage(frame.message());
        }
    }

    /** Client requests that reached this node for a group it neither hosts nor leads (docs/membership.md). */
    public long notHostedRequests() {
        return placementAnswers == null ? 0 : placementAnswers.notHosted();
    }

    /** The node the election names as {@code group}'s leader, or -1. */
    private int leaderOf(int group) {
        ElectionService e = election;
        return e == null ? -1 : e.leaderOf(group);
    }

    /** Client commands this node forwarded to their group's leader for a client that could not reach it. */
    public long forwardedCommands() {
        return forwarder == null ? 0 : forwarder.forwarded();
    }

    /** This node's client authorization (its applied copy of the table), for tests and metrics. */
    public AuthService auth() {
        return auth;
    }

    public ClientFrame.StatusReport statusReport(long requestId) {
        List<ClientFrame.GroupStatus> groups = new ArrayList<>();
        for (GroupLoop loop : loops) {
            groups.add(LeaderHints.byNode(routes, loop.status()));
        }
        return new ClientFrame.StatusReport(requestId, config.nodeId(), groups);
    }

    /**
     * Leaders spread ({@link LeaderBalancer}): if this node leads at least two groups more than the least
     * loaded live node, its groups beyond an even share hand their leadership over and resign. Runs on the
     * progress thread.
     */
    void balanceLeaders() {
        ElectionService e = election;
        if (e == null) {
            return;
        }
        try {
            int[] leaders = new int[loops.length];
            for (int g = 0; g < loops.length; g++) {
                leaders[g] = loops[g] == null ? -1 : e.leaderOf(g);
            }
            int[] moves = balancer.decide(leaders, coordination.membership().members().keySet(),
                    placements.current()::hosts, System.nanoTime());
            if (moves.length > 0) {
                LOG.info("node {} leads too many groups (leaders {}): moving the leadership of groups {}",
                        config.nodeId(), Arrays.toString(leaders), Arrays.toString(moves));
                for (int g : moves) {
                    loops[g].moveLeadership();
                }
            }
        } catch (RuntimeException ex) {
            LOG.warn("node {}: leader balancing failed: {}", config.nodeId(), ex.toString());
        }
    }

    /** Publishes per-group progress for the up-to-date election preference (PaxStore). */
    void publishProgress() {
        for (GroupLoop loop : loops) {
            if (loop == null) {
                continue;
            }
            ClientFrame.GroupStatus s = loop.status();
            coordination.membership().updateProgress(s.group(), new GroupProgress(s.promisedEpoch(), s.appliedSlot()));
        }
    }

    private static String versionString() {
        String v = SynodNode.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    public InetSocketAddress clientAddress() {
        return clientAddress;
    }

    public InetSocketAddress peerAddress() {
        return peerAddress;
    }

    public InetSocketAddress metricsAddress() {
        return metrics == null ? null : metrics.address();
    }

    public int nodeId() {
        return config.nodeId();
    }

    /** The range -> group map this node routes by (from ZooKeeper, kept current by a watch). */
    public ShardMap shardMap() {
        return shardMap;
    }

    /**
     * Reads of every group answered OK under a lease, through the log, and under a quorum lease as a
     * follower (a part of the first): {lease, log, follower lease}.
     */
    public long[] readsByPath() {
        long[] out = new long[3];
        for (GroupMetrics m : groupMetrics) {
            if (m != null) {
                out[0] += m.leaseReads();
                out[1] += m.logReads();
                out[2] += m.followerLeaseReads();
            }
        }
        return out;
    }

    /** Shard requests sent by this node's recovery reads of coded values, all groups (synod_recovery_requests_total). */
    public long recoveryRequests() {
        long out = 0;
        for (GroupMetrics m : groupMetrics) {
            if (m != null) {
                out += m.recoveryRequests();
            }
        }
        return out;
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /**
     * Stops serving as a crashed process would, as far as the cluster can tell: sockets close and the
     * group loops halt without leaving the election; the ZooKeeper session is left to expire (the
     * caller cuts its link). {@link #close()} later releases what remains.
     */
    public void crash() {
        progress.shutdownNow();
        closeQuietly(metrics);
        metrics = null;
        closeQuietly(clients);
        clients = null;
        closeQuietly(auth);
        for (GroupLoop loop : loops) {
            if (loop != null) {
                loop.halt();
            }
        }
        closeQuietly(workers);
        closeQuietly(network);
        network = null;
        // With its link cut, the ZooKeeper client can only retry until it gives up (seconds); release it
        // in the background. It cannot close the session: the server expires it, as for a killed process.
        ElectionService e = election;
        CuratorCoordination c = coordination;
        election = null;
        coordination = null;
        Thread cleanup = new Thread(() -> {
            closeQuietly(e);
            closeQuietly(c);
        }, "synod-crash-cleanup-" + config.nodeId());
        cleanup.setDaemon(true);
        cleanup.start();
    }

    /**
     * A graceful stop: every group this node leads under a leader lease hands over first (its end-lease
     * entry, committed and known to the peers, bounded; docs/leases.md "On the server"), all groups at
     * once; then the node leaves every election and releases everything. {@link #crash()} does not hand over.
     */
    @Override
    public void close() {
        progress.shutdownNow();
        closeQuietly(metrics);
        for (GroupLoop loop : loops) {
            if (loop != null) {
                loop.beginHandOver();
            }
        }
        closeQuietly(clients);
        closeQuietly(auth);
        for (GroupLoop loop : loops) {
            closeQuietly(loop);
        }
        closeQuietly(workers);
        closeQuietly(network);
        closeQuietly(election);
        closeQuietly(coordination);
        for (AutoCloseable r : resources) {
            closeQuietly(r);
        }
        registry.close();
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.warn("closing {} failed: {}", c.getClass().getSimpleName(), e.toString());
        }
    }
}
