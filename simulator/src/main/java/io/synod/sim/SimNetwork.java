package io.synod.sim;

import java.util.Arrays;

/**
 * The simulated network between replicas, and between clients and replicas. Each replica link has
 * its own lognormal latency around a median drawn once per seed (within the {@link SimEnvironment}'s range) (so links differ and messages
 * overtake each other); faults add loss, duplication, extra reordering delay and partitions. A
 * partition cuts a directed link: a message is dropped if its link is cut when it would arrive,
 * so messages in flight when a partition starts are lost too. Client links are never partitioned
 * or duplicated (a client talks over one TCP connection per attempt); they may lose messages.
 *
 * <p>Optionally ({@link #limitBandwidth}) every replica link also has a bandwidth: a message first
 * waits for its turn on the sender's side of the link and takes its serialization delay there
 * ({@link LinkBandwidth}), then the latency above. Client links are never bandwidth-limited.
 */
final class SimNetwork {
    private final int nodes;
    private final SimRandom random;
    private final long[][] linkMedianNanos;
    private final boolean[][] cut;
    /** Per node, the token of the lasting isolation it is under ({@link #isolate}), or 0. */
    private final int[] isolationToken;
    private int lastIsolationToken;
    private double lossProbability;
    private double duplicateProbability;
    private double reorderProbability;
    private double clientLossProbability;
    /** Geo-distributed links ({@link SimScenario#latency()}), or null for the drawn per-link medians. */
    private LatencyMatrix matrix;
    /** Per-link bandwidth, or null: unlimited (the default; nothing is drawn or delayed for it). */
    private LinkBandwidth bandwidth;

    SimNetwork(int nodes, SimRandom random, long linkMedianMinNanos, long linkMedianMaxNanos) {
        this.nodes = nodes;
        this.random = random;
        this.linkMedianNanos = new long[nodes][nodes];
        this.cut = new boolean[nodes][nodes];
        this.isolationToken = new int[nodes];
        for (int from = 0; from < nodes; from++) {
            for (int to = 0; to < nodes; to++) {
                linkMedianNanos[from][to] = random.uniform(linkMedianMinNanos, linkMedianMaxNanos);
            }
        }
    }

    /** How many copies of a message sent now arrive (0: lost, 2: duplicated). */
    int copies(int from, int to) {
        if (from == to) {
            return 1;
        }
        if (random.chance(lossProbability)) {
            return 0;
        }
        return random.chance(duplicateProbability) ? 2 : 1;
    }

    /** Links between sites: half the RTT plus LAN-like jitter instead of the drawn medians. */
    void useLatencyMatrix(LatencyMatrix latency) {
        this.matrix = latency;
    }

    long latencyNanos(int from, int to) {
        if (matrix != null) {
            return matrix.oneWayNanos(from, to) + geoJitterNanos();
        }
        long median = linkMedianNanos[from][to];
        long latency = random.lognormal(median, SimTiming.LINK_LATENCY_SIGMA);
        if (random.chance(reorderProbability)) {
            latency += random.uniform(0, 40 * median);
        }
        return latency;
    }

    /** Jitter on top of a geo link's propagation delay (a LAN hop at each end), and rare reordering delay under faults. */
    private long geoJitterNanos() {
        long jitter = random.lognormal(SimTiming.CLIENT_MEDIAN_NANOS, SimTiming.LINK_LATENCY_SIGMA);
        if (random.chance(reorderProbability)) {
            jitter += random.uniform(0, 40 * SimTiming.CLIENT_MEDIAN_NANOS);
        }
        return jitter;
    }

    /** A client at {@code site} to the replica at {@code node} (or back): propagation between the sites plus the client's hop. */
    long clientLatencyNanos(int site, int node) {
        long hop = clientLatencyNanos();
        return matrix == null || site < 0 ? hop : matrix.oneWayNanos(site, node) + hop;
    }

    /** Limits every replica link to {@code bitsPerSecond} from now on. */
    void limitBandwidth(long bitsPerSecond) {
        bandwidth = new LinkBandwidth(nodes, bitsPerSecond);
    }

    /**
     * A message of {@code bytes} bytes sent now on (from, to): the delay until it has left the
     * sender (queueing behind earlier messages on that link, then serialization), or 0 without a
     * bandwidth limit. Counted once per message, whatever the network then loses or duplicates.
     */
    long transmitNanos(int from, int to, long nowNanos, long bytes) {
        if (bandwidth == null || from == to) {
            return 0;
        }
        return bandwidth.send(from, to, nowNanos, bytes);
    }

    boolean isCut(int from, int to) {
        return cut[from][to] || isolationToken[from] != 0 || isolationToken[to] != 0;
    }

    /**
     * Cuts {@code node} off from every peer until {@link #endIsolation} with the returned token, whatever
     * other faults heal meanwhile (the leader-lease hand-over faults: a partition that lasts). Only
     * lease worlds with hand-over faults use it.
     */
    int isolate(int node) {
        isolationToken[node] = ++lastIsolationToken;
        return lastIsolationToken;
    }

    void endIsolation(int node, int token) {
        if (isolationToken[node] == token) {
            isolationToken[node] = 0;
        }
    }

    boolean clientMessageLost() {
        return random.chance(clientLossProbability);
    }

    long clientLatencyNanos() {
        return random.lognormal(SimTiming.CLIENT_MEDIAN_NANOS, SimTiming.LINK_LATENCY_SIGMA);
    }

    void cutLink(int from, int to) {
        if (from != to) {
            cut[from][to] = true;
        }
    }

    /** Cuts every link between a node inside {@code side} and one outside it, in both directions. */
    void split(boolean[] side) {
        for (int a = 0; a < nodes; a++) {
            for (int b = 0; b < nodes; b++) {
                if (side[a] != side[b]) {
                    cut[a][b] = true;
                }
            }
        }
    }

    void healLink(int from, int to) {
        cut[from][to] = false;
    }

    void healAll() {
        for (boolean[] row : cut) {
            Arrays.fill(row, false);
        }
    }

    /** The faults are over: every cut and every lasting isolation ends. */
    void healEverything() {
        healAll();
        Arrays.fill(isolationToken, 0);
    }

    void setQuality(double loss, double duplicate, double reorder, double clientLoss) {
        lossProbability = loss;
        duplicateProbability = duplicate;
        reorderProbability = reorder;
        clientLossProbability = clientLoss;
    }
}
