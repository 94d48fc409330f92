package io.synod.server.config;

import io.synod.coordination.LeaseMode;
import io.synod.coordination.LeaseTiming;
import io.synod.core.paxos.Coding;
import java.io.IOException;
import java.io.Reader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One server's configuration: a properties file, then {@code key=value} overrides from the command
 * line. Every key is known (a typo is an error), every value is checked, and every error is one
 * line naming the key. The keys and their defaults are listed in {@link #KEYS} and in docs/server.md.
 */
public record ServerConfig(
        String clusterName,
        int nodeId,
        Map<Integer, NodeAddress> nodes,
        String zookeeperConnect,
        int zookeeperSessionTimeoutMillis,
        Path dataDir,
        int groups,
        int metricsPort,
        int maxFrameBytes,
        long logSegmentBytes,
        SnapshotSettings snapshots,
        int heartbeatMillis,
        int tickMillis,
        int phase1TimeoutMillis,
        int outboundQueueBytes,
        CodingSetting coding,
        LeaseSetting lease,
        Map<Integer, Integer> peerDelayMillis,
        TlsSettings tls,
        NetworkLimits limits,
        ZooKeeperSettings zookeeper,
        AuthSettings auth, TestClock testClock, int groupWorkers, boolean rejoinWiped, int logShards, PlacementSettings placement) {

    /**
     * The read lease this node creates the cluster with (docs/leases.md): {@code none}, {@code leader}
     * (LeaseGuard on the wall clock with error bound {@code clockBoundMicros}) or {@code leader-timer}
     * (LeaseGuard on local timers with drift margin {@code driftPpm}, §4), {@code quorum} (Moraru quorum
     * leases: t_lease = Δ, ε = {@code driftPpm}, static hashed configuration), {@code quorum-auto} (the same with
     * configurations agreed through the log and assigned from read statistics) or {@code megastore} (every
     * replica holds every key).
     * The mode and timing are part of the cluster spec, so a node whose setting differs from the spec in
     * ZooKeeper refuses to start. {@code quorum} holds this node's quorum-lease timers (guard, renewal,
     * grace) and automatic-assignment settings; they are not in the spec: safety rests only on t_lease and
     * ε, which are (docs/leases.md).
     */
    public record LeaseSetting(LeaseMode mode, LeaseTiming timing, QuorumTimers quorum) {
        public LeaseSetting {
            if (!isQuorum(mode)) {
                quorum = QuorumTimers.DEFAULTS; // Unused: kept at the defaults so equal settings compare equal.
            } else if (mode != LeaseMode.QUORUM_AUTO && !quorum.auto().equals(AutoSettings.DEFAULTS)) {
                quorum = new QuorumTimers(quorum.guardMillis(), quorum.renewMillis(), quorum.graceMillis());
            }
        }

        /** Whether {@code mode} is one of the quorum-lease modes (quorum, quorum-auto, megastore). */
        public static boolean isQuorum(LeaseMode mode) {
            return mode == LeaseMode.QUORUM || mode == LeaseMode.QUORUM_AUTO || mode == LeaseMode.MEGASTORE;
        }

        public LeaseSetting(LeaseMode mode, LeaseTiming timing) {
            this(mode, timing, QuorumTimers.DEFAULTS);
        }

        /** The config value of {@code lease}. */
        public String text() {
            return switch (mode) {
                case NONE -> "none";
                case LEADER -> "leader";
                case LEADER_TIMER -> "leader-timer";
                case QUORUM_AUTO -> "quorum-auto";
                default -> mode.name().toLowerCase(java.util.Locale.ROOT);
            };
        }

        @Override
        public String toString() {
            return switch (mode) {
                case NONE -> "none";
                case LEADER -> "leader (delta " + timing.deltaMillis() + " ms, clock bound " + timing.clockBoundMicros()
                        + " us)";
                case QUORUM, MEGASTORE -> text() + " (t_lease " + timing.deltaMillis() + " ms, drift " + timing.driftPpm()
                        + " ppm, " + quorum + ")";
                case QUORUM_AUTO -> text() + " (t_lease " + timing.deltaMillis() + " ms, drift " + timing.driftPpm()
                        + " ppm, " + quorum + ", " + quorum.auto() + ")";
                default -> text() + " (delta " + timing.deltaMillis() + " ms, drift " + timing.driftPpm() + " ppm)";
            };
        }
    }

    /**
     * A node's quorum-lease timers (Moraru et al., SoCC 2014, §3.5, §3.8), in milliseconds: t_guard (a
     * promise counts only if it answers its guard within this; must exceed the largest round trip
     * between nodes), the renewal interval (a holder sends fresh guards this often) and t_grace (a
     * grantor renews only holders that heard from the leader within this). Writes to a silent holder's
     * keys resume after about t_grace + t_guard + t_lease.
     */
    public record QuorumTimers(int guardMillis, int renewMillis, int graceMillis, AutoSettings auto) {
        /** Suited to a LAN or a WAN with round trips below 500 ms: guard 500 ms, renew every 250 ms, grace 500 ms. */
        public static final QuorumTimers DEFAULTS = new QuorumTimers(500, 250, 500);

        /** With the automatic-assignment settings at their defaults (unused unless the lease is quorum-auto). */
        public QuorumTimers(int guardMillis, int renewMillis, int graceMillis) {
            this(guardMillis, renewMillis, graceMillis, AutoSettings.DEFAULTS);
        }

        @Override
        public String toString() {
            return "guard " + guardMillis + " ms, renew " + renewMillis + " ms, grace " + graceMillis + " ms";
        }
    }

    /**
     * A node's automatic lease assignment for {@code lease=quorum-auto} (Moraru et al., SoCC 2014, §3, §5;
     * the policy's {@code io.synod.leases.AutoAssignment}): every {@code periodMillis} each replica reports its
     * {@code reportKeys} most-read keys (of {@code counterKeys} counted) to the leader, and the leader proposes
     * through the log a configuration listing at most {@code maxKeys} keys read at least {@code minReads} times,
     * each held by the leader and the ⌊N/2⌋ replicas that read it most (a current holder's count weighs
     * {@code stickiness} times); counts are halved every {@code halfLifePeriods} periods; keys not listed are
     * held by the leader alone, or by every replica with {@code unlistedToAll}. None of these bear on safety
     * (the configuration itself is agreed through the log), so they are this node's own, not the spec's.
     */
    public record AutoSettings(int periodMillis, int reportKeys, int counterKeys, int maxKeys, int minReads,
            double stickiness, int halfLifePeriods, boolean unlistedToAll) {
        /**
         * Real-time defaults: a report and an evaluation every second (a change needs t_lease(1+ε) to settle
         * anyway), 32 keys reported of 1024 counted, at most 1024 keys listed, 8 reads to be listed, an
         * incumbent kept unless another replica reads the key twice as often, counts halved every 4 s.
         */
        public static final AutoSettings DEFAULTS = new AutoSettings(1000, 32, 1024, 1024, 8, 2.0, 4, false);

        @Override
        public String toString() {
            return "auto every " + periodMillis + " ms, " + reportKeys + " of " + counterKeys + " keys reported, at most "
                    + maxKeys + " listed, min reads " + minReads + ", stickiness " + stickiness + ", half-life "
                    + halfLifePeriods + " periods, unlisted keys held by " + (unlistedToAll ? "all" : "the leader");
        }
    }

    /**
     * The group coding this node creates the cluster with (RS-Paxos, Mu et al. 2014, section 4):
     * N nodes tolerating F failures, values of at least {@code thresholdBytes} coded into X data
     * shards. {@code off} is X = 1 with F = (N - 1) / 2, i.e. classic majorities and full copies.
     */
    public record CodingSetting(int failures, int dataShards, int thresholdBytes, boolean explicit, boolean deferRebuild) {
        /** With deferred follower rebuild on (the default). */
        public CodingSetting(int failures, int dataShards, int thresholdBytes, boolean explicit) {
            this(failures, dataShards, thresholdBytes, explicit, true);
        }

        /** The config value: "off" or "N,F,X". */
        public String text(int nodes) {
            return explicit ? nodes + "," + failures + "," + dataShards : "off";
        }
    }

    /** host:peerPort:clientPort of one node. */
    public record NodeAddress(String host, int peerPort, int clientPort) {
        public InetSocketAddress peer() {
            return new InetSocketAddress(host, peerPort);
        }

        public InetSocketAddress client() {
            return new InetSocketAddress(host, clientPort);
        }

        @Override
        public String toString() {
            return host + ":" + peerPort + ":" + clientPort;
        }
    }

    /** Every key, with its default ("" = required) and meaning. */
    public static final Map<String, String[]> KEYS;

    /** Per-peer override of {@code peer.delay.ms}: {@code peer.delay.ms.<nodeId>}. */
    public static final String PEER_DELAY_PREFIX = "peer.delay.ms.";

    /** The key of {@code group.workers}, which a local cluster sets per node when the user did not. */
    public static final String GROUP_WORKERS_KEY = "group.workers";

    /** Largest accepted peer delay: one minute. */
    public static final int MAX_PEER_DELAY_MILLIS = 60_000;

    static {
        Map<String, String[]> k = new LinkedHashMap<>();
        k.put("cluster.name", new String[] {"synod", "cluster name (ZooKeeper path /synod/<name>, checked on peer hello)"});
        k.put("node.id", new String[] {"", "this node's id, 0..N-1"});
        k.put("nodes", new String[] {"", "every node: id@host:peerPort:clientPort, comma-separated"});
        k.put("zookeeper.connect", new String[] {"", "ZooKeeper connect string host:port[,host:port...]"});
        k.put("zookeeper.session.timeout.ms", new String[] {"10000", "ZooKeeper session timeout"});
        k.put("data.dir", new String[] {"", "directory for this node's logs, snapshots and RocksDB"});
        k.put("groups", new String[] {"4", "replication groups (range shards) when this node creates the cluster"});
        k.put("metrics.port", new String[] {"0", "Prometheus /metrics HTTP port (0 ephemeral, -1 off)"});
        k.put("max.frame.bytes", new String[] {"16777216", "largest frame accepted or sent on any connection"});
        k.put("log.segment.bytes", new String[] {"16777216", "preallocated size of one log segment"});
        k.put("log.shards", new String[] {"1", "node logs (group g in shard g mod S); fixed per data directory; 1..groups"});
        SnapshotSettings.addKeys(k);
        k.put("heartbeat.ms", new String[] {"50", "leader heartbeat interval"});
        k.put("tick.ms", new String[] {"10", "replica clock tick"});
        k.put(GROUP_WORKERS_KEY, new String[] {"0", "threads that run this node's groups (each a fixed share of them; 0 = one per processor, at most one per group)"});
        k.put("phase1.timeout.ms", new String[] {"2000", "a candidate without a quorum of promises gives up this long after its own promise is durable (when its Prepares leave)"});
        k.put("outbound.queue.bytes", new String[] {"33554432", "per-peer outbound bytes before messages are dropped"});
        k.put("coding", new String[] {"off", "RS-Paxos coding of every group: off, or N,F,X (N = the number of nodes)"});
        k.put("coding.threshold.bytes", new String[] {"65536", "values at or above this size are coded (when X > 1)"});
        k.put("coding.defer", new String[] {"true", "coded groups: followers apply a coded put from its header and rebuild "
                + "the value only when read or before a snapshot (true), or rebuild every value to apply it (false)"});
        k.put("lease", new String[] {"none", "read lease of every group: none, leader (LeaseGuard, wall clock within "
                + "lease.clock.bound.us), leader-timer (local timers within lease.drift.ppm), quorum (Moraru quorum "
                + "leases: followers holding a key read it locally; static hashed configuration), quorum-auto (the same "
                + "with configurations agreed through the log, assigned from read statistics) or megastore (every "
                + "replica holds every key)"});
        k.put("lease.delta.ms", new String[] {Integer.toString(LeaseTiming.DEFAULT_DELTA_MILLIS),
                "lease duration: a leader reads locally while its newest committed entry is younger than this; "
                        + "quorum/quorum-auto/megastore: t_lease, how long a grantor's promise binds it"});
        k.put("lease.clock.bound.us", new String[] {Integer.toString(LeaseTiming.DEFAULT_CLOCK_BOUND_MICROS),
                "lease=leader: bound on every node's wall-clock error (microseconds)"});
        k.put("lease.drift.ppm", new String[] {Integer.toString(LeaseTiming.DEFAULT_DRIFT_PPM),
                "lease=leader-timer|quorum|quorum-auto|megastore: bound on the local clock's rate error (parts per million)"});
        k.put("lease.guard.ms", new String[] {Integer.toString(QuorumTimers.DEFAULTS.guardMillis()),
                "lease=quorum|quorum-auto|megastore: t_guard, a promise counts only if it answers its guard within this "
                        + "(must exceed the largest round trip between nodes)"});
        k.put("lease.renew.ms", new String[] {Integer.toString(QuorumTimers.DEFAULTS.renewMillis()),
                "lease=quorum|quorum-auto|megastore: a holder renews its leases this often (renew + guard < t_lease(1 - drift))"});
        k.put("lease.grace.ms", new String[] {Integer.toString(QuorumTimers.DEFAULTS.graceMillis()),
                "lease=quorum|quorum-auto|megastore: t_grace, grantors renew only holders that heard from the leader within this "
                        + "(must exceed heartbeat.ms)"});
        AutoSettings a = AutoSettings.DEFAULTS;
        k.put("lease.auto.period.ms", new String[] {Integer.toString(a.periodMillis()),
                "lease=quorum-auto: replicas report their most-read keys and the leader re-evaluates the configuration this often"});
        k.put("lease.auto.report.keys", new String[] {Integer.toString(a.reportKeys()),
                "lease=quorum-auto: keys per replica's report (at most lease.auto.counter.keys)"});
        k.put("lease.auto.counter.keys", new String[] {Integer.toString(a.counterKeys()),
                "lease=quorum-auto: keys each replica counts reads of (space-saving counter, bounded memory)"});
        k.put("lease.auto.max.keys", new String[] {Integer.toString(a.maxKeys()),
                "lease=quorum-auto: keys one configuration lists at most (0..4096)"});
        k.put("lease.auto.min.reads", new String[] {Integer.toString(a.minReads()),
                "lease=quorum-auto: reads (summed over the reports of the last two periods) a key needs to be listed"});
        k.put("lease.auto.stickiness", new String[] {Double.toString(a.stickiness()),
                "lease=quorum-auto: a current holder keeps a key unless another replica reads it this many times as often (1..100)"});
        k.put("lease.auto.half.life.periods", new String[] {Integer.toString(a.halfLifePeriods()),
                "lease=quorum-auto: read counts are halved every this many periods (1..1000)"});
        k.put("lease.auto.unlisted", new String[] {"leader",
                "lease=quorum-auto: who holds the keys a configuration does not list: leader (Moraru's lease quorum) or all"});
        k.put("rejoin.wiped", new String[] {"true", "a node whose data.dir lost its state while ZooKeeper knows it starts as a "
                + "new incarnation and re-joins every group (true), or refuses to start (false); docs/membership.md"});
        k.put("peer.delay.ms", new String[] {"0", "benchmark/test option: one-way delay added to every frame sent to a peer"
                + " (" + PEER_DELAY_PREFIX + "<nodeId> overrides it for one peer)"});
        TlsSettings.addKeys(k);
        NetworkLimits.addKeys(k);
        ZooKeeperSettings.addKeys(k);
        AuthSettings.addKeys(k);
        TestClock.addKeys(k);
        PlacementSettings.addKeys(k);
        KEYS = Collections.unmodifiableMap(k);
    }

    public static ServerConfig load(Path file, List<String> overrides) throws ConfigException {
        Properties p = new Properties();
        if (file != null) {
            try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(r);
            } catch (IOException e) {
                throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
            } catch (IllegalArgumentException e) {
                throw new ConfigException("config file " + file + " is malformed: " + e.getMessage());
            }
        }
        for (String o : overrides) {
            int eq = o.indexOf('=');
            if (eq <= 0) {
                throw new ConfigException("override '" + o + "' is not key=value");
            }
            p.setProperty(o.substring(0, eq).trim(), o.substring(eq + 1).trim());
        }
        return from(p);
    }

    public static ServerConfig from(Properties p) throws ConfigException {
        for (String key : new TreeSet<>(p.stringPropertyNames())) {
            if (!KEYS.containsKey(key) && !key.startsWith(PEER_DELAY_PREFIX)) {
                throw new ConfigException("unknown config key '" + key + "' (known: " + String.join(", ", KEYS.keySet()) + ")");
            }
        }
        String cluster = str(p, "cluster.name");
        if (!cluster.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw new ConfigException("cluster.name: must be 1..64 of [A-Za-z0-9_.-], got '" + cluster + "'");
        }
        Map<Integer, NodeAddress> nodes = parseNodes(str(p, "nodes"));
        int nodeId = integer(p, "node.id", 0, 62);
        if (!nodes.containsKey(nodeId)) {
            throw new ConfigException("node.id: " + nodeId + " is not among nodes " + nodes.keySet());
        }
        String zk = str(p, "zookeeper.connect");
        if (!zk.matches("[^,\\s]+:\\d+(,[^,\\s]+:\\d+)*(/[^\\s]*)?")) {
            throw new ConfigException("zookeeper.connect: expected host:port[,host:port...], got '" + zk + "'");
        }
        int session = integer(p, "zookeeper.session.timeout.ms", 1000, 600_000);
        String data = str(p, "data.dir");
        Path dataDir;
        try {
            dataDir = Path.of(data);
        } catch (RuntimeException e) {
            throw new ConfigException("data.dir: '" + data + "' is not a valid path");
        }
        int groups = integer(p, "groups", 1, 256);
        int metrics = integer(p, "metrics.port", -1, 65535);
        int maxFrame = integer(p, "max.frame.bytes", 4096, 1 << 30);
        long segment = longValue(p, "log.segment.bytes", 4096, 1L << 32);
        SnapshotSettings snapshots = SnapshotSettings.parse(p);
        int heartbeat = integer(p, "heartbeat.ms", 1, 60_000);
        int tick = integer(p, "tick.ms", 1, 1_000);
        int workers = integer(p, GROUP_WORKERS_KEY, 0, 256);
        int shards = integer(p, "log.shards", 1, 256);
        if (shards > groups) {
            throw new ConfigException("log.shards (" + shards + ") must not exceed groups (" + groups + ")");
        }
        int phase1 = integer(p, "phase1.timeout.ms", 10, 600_000);
        int outbound = integer(p, "outbound.queue.bytes", 65536, 1 << 30);
        if (maxFrame > outbound) {
            throw new ConfigException("outbound.queue.bytes (" + outbound + ") must be at least max.frame.bytes (" + maxFrame + ")");
        }
        CodingSetting coding = parseCoding(str(p, "coding"), nodes.size(), integer(p, "coding.threshold.bytes", 1, 1 << 30));
        String defer = str(p, "coding.defer");
        if (!defer.equals("true") && !defer.equals("false")) {
            throw new ConfigException("coding.defer: must be true or false, got '" + defer + "'");
        }
        coding = new CodingSetting(coding.failures(), coding.dataShards(), coding.thresholdBytes(), coding.explicit(),
                defer.equals("true"));
        LeaseSetting lease = LeaseSettings.parse(str(p, "lease"), integer(p, "lease.delta.ms", 1, LeaseTiming.MAX_DELTA_MILLIS),
                integer(p, "lease.clock.bound.us", 0, 60_000_000), integer(p, "lease.drift.ppm", 0, 999_999));
        lease = LeaseSettings.withQuorumTimers(lease, new QuorumTimers(integer(p, "lease.guard.ms", 1, LeaseTiming.MAX_DELTA_MILLIS),
                integer(p, "lease.renew.ms", 1, LeaseTiming.MAX_DELTA_MILLIS),
                integer(p, "lease.grace.ms", 1, LeaseTiming.MAX_DELTA_MILLIS), LeaseSettings.parseAuto(p)), heartbeat);
        LeaseSettings.checkConfigurationsStayUncoded(lease, coding);
        Map<Integer, Integer> peerDelays = PeerDelays.parse(p, nodes.keySet(), nodeId);
        TlsSettings tls = TlsSettings.parse(p);
        return new ServerConfig(cluster, nodeId, nodes, zk, session, dataDir, groups, metrics, maxFrame, segment,
                snapshots, heartbeat, tick, phase1, outbound, coding, lease, peerDelays, tls,
                NetworkLimits.parse(p, maxFrame), ZooKeeperSettings.parse(p, tls.insecure()),
                AuthSettings.parse(p, tls.insecure()), TestClock.parse(p), workers, bool(p, "rejoin.wiped"), shards, PlacementSettings.parse(p, nodes.size()));
    }

    /** "off" or "N,F,X", checked against the node count and the RS-Paxos rules ({@link Coding#rsPaxos}). */
    static CodingSetting parseCoding(String text, int nodes, int threshold) throws ConfigException {
        if (text.equals("off")) {
            return new CodingSetting((nodes - 1) / 2, 1, threshold, false);
        }
        String[] parts = text.split(",", -1);
        int[] v = new int[3];
        try {
            if (parts.length != 3) {
                throw new NumberFormatException();
            }
            for (int i = 0; i < 3; i++) {
                v[i] = Integer.parseInt(parts[i].trim());
            }
        } catch (NumberFormatException e) {
            throw new ConfigException("coding: must be off or N,F,X (e.g. 5,1,3), got '" + text + "'");
        }
        if (v[0] != nodes) {
            throw new ConfigException("coding: N=" + v[0] + " but nodes lists " + nodes + " nodes");
        }
        try {
            Coding.rsPaxos(v[0], v[1], v[2], threshold);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("coding: " + text + ": " + e.getMessage());
        }
        return new CodingSetting(v[1], v[2], threshold, true);
    }

    public static Map<Integer, NodeAddress> parseNodes(String spec) throws ConfigException {
        Map<Integer, NodeAddress> out = new TreeMap<>();
        for (String part : spec.split(",")) {
            String s = part.trim();
            int at = s.indexOf('@');
            String[] hp = at < 0 ? new String[0] : s.substring(at + 1).split(":");
            if (at <= 0 || hp.length != 3 || hp[0].isEmpty()) {
                throw new ConfigException("nodes: '" + s + "' is not id@host:peerPort:clientPort");
            }
            int id;
            int peer;
            int client;
            try {
                id = Integer.parseInt(s.substring(0, at));
                peer = Integer.parseInt(hp[1]);
                client = Integer.parseInt(hp[2]);
            } catch (NumberFormatException e) {
                throw new ConfigException("nodes: '" + s + "' has a non-numeric id or port");
            }
            if (id < 0 || id > 62 || peer < 1 || peer > 65535 || client < 1 || client > 65535) {
                throw new ConfigException("nodes: '" + s + "' needs id 0..62 and ports 1..65535");
            }
            if (out.put(id, new NodeAddress(hp[0], peer, client)) != null) {
                throw new ConfigException("nodes: node " + id + " is listed twice");
            }
        }
        List<Integer> ids = new ArrayList<>(out.keySet());
        for (int i = 0; i < ids.size(); i++) {
            if (ids.get(i) != i) {
                throw new ConfigException("nodes: ids must be 0..N-1 without gaps, got " + ids);
            }
        }
        if (ids.size() < 1) {
            throw new ConfigException("nodes: at least one node is needed");
        }
        return out;
    }

    static String str(Properties p, String key) throws ConfigException {
        String v = p.getProperty(key, KEYS.containsKey(key) ? KEYS.get(key)[0] : "").trim();
        if (v.isEmpty()) {
            throw new ConfigException(key + ": required, not set");
        }
        return v;
    }

    static boolean bool(Properties p, String key) throws ConfigException {
        String v = str(p, key);
        if (!v.equals("true") && !v.equals("false")) {
            throw new ConfigException(key + ": must be true or false, got '" + v + "'");
        }
        return v.equals("true");
    }

    static int integer(Properties p, String key, int min, int max) throws ConfigException {
        return (int) longValue(p, key, min, max);
    }

    static long longValue(Properties p, String key, long min, long max) throws ConfigException {
        String v = str(p, key);
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new ConfigException(key + ": '" + v + "' is not an integer");
        }
        if (n < min || n > max) {
            throw new ConfigException(key + ": " + n + " is outside " + min + ".." + max);
        }
        return n;
    }

    /** The properties text of this configuration (what {@code synod cluster start} writes per node). */
    public String toProperties() {
        StringBuilder nodesSpec = new StringBuilder();
        for (Map.Entry<Integer, NodeAddress> e : nodes.entrySet()) {
            if (nodesSpec.length() > 0) {
                nodesSpec.append(',');
            }
            nodesSpec.append(e.getKey()).append('@').append(e.getValue());
        }
        return "cluster.name=" + clusterName + "\nnode.id=" + nodeId + "\nnodes=" + nodesSpec + "\nzookeeper.connect="
                + zookeeperConnect + "\nzookeeper.session.timeout.ms=" + zookeeperSessionTimeoutMillis + "\ndata.dir="
                + dataDir + "\ngroups=" + groups + "\nmetrics.port=" + metricsPort + "\nmax.frame.bytes=" + maxFrameBytes
                + "\nlog.segment.bytes=" + logSegmentBytes + "\nlog.shards=" + logShards + "\n" + snapshots.toProperties()
                + "heartbeat.ms=" + heartbeatMillis + "\ntick.ms=" + tickMillis
                + "\ngroup.workers=" + groupWorkers + "\nrejoin.wiped=" + rejoinWiped + "\nphase1.timeout.ms=" + phase1TimeoutMillis + "\noutbound.queue.bytes=" + outboundQueueBytes
                + "\ncoding=" + coding.text(nodes.size()) + "\ncoding.threshold.bytes=" + coding.thresholdBytes()
                + "\ncoding.defer=" + coding.deferRebuild()
                + "\nlease=" + lease.text() + LeaseSettings.toProperties(lease) + "\n"
                + PeerDelays.toProperties(peerDelayMillis) + tls.toProperties() + limits.toProperties()
                + zookeeper.toProperties() + auth.toProperties() + testClock.toProperties() + placement.toProperties(nodes.size());
    }

}
