package io.synod.sim;

import io.synod.core.util.Check;

/**
 * Workload shape, geography and scripted events of a simulated seed, beyond {@link SimConfig}.
 * {@link #DEFAULT} changes nothing: a seed run with it draws exactly the same random numbers and has
 * the same trace hash as without it.
 *
 * <ul>
 *   <li><b>Workload.</b> {@code zipfExponent} s: key {@code i} (by popularity rank) is chosen with
 *       weight {@code 1/(i+1)^s} (0 is uniform); NaN keeps {@link SimConfig#zipfKeys()} (s = 1 or
 *       uniform). {@code perSiteKeyOrder}: each site ranks the keys by its own random permutation, so
 *       every site has different popular keys (quorum leases paper, Moraru et al. SoCC 2014 §5).
 *       The read fraction is {@link SimConfig#readPercent()}.</li>
 *   <li><b>Geography.</b> {@code latency}: RTTs between sites, one replica per site (node {@code i}
 *       at site {@code i}); {@code clientsPerSite}: the client workers are attached to sites, node
 *       order ({@link SimConfig#workers()} must equal sites × clients per site); a worker's first
 *       attempt goes to the replica of its own site, and it then follows leader hints.</li>
 *   <li><b>Scripted events (experiments).</b> Clients' attempt timeout and attempts per operation;
 *       the oracle's failure-detection delay (an election timeout) and the node it prefers to elect;
 *       a crash of the leader at a given time, optionally after its followers' replies are cut until it
 *       holds {@code limboEntries} uncommitted entries (the limbo region its successor inherits), and its
 *       restart; and
 *       a time after which clients stop invoking fault-phase operations (so the fault phase covers a
 *       fixed window, whatever the count).</li>
 * </ul>
 *
 * @param zipfExponent              Zipf exponent s >= 0, or NaN for {@link SimConfig#zipfKeys()}
 * @param perSiteKeyOrder           a different key popularity order per site (needs sites)
 * @param latency                   RTTs between sites, or null for the seed's drawn LAN or slow network
 * @param clientsPerSite            client workers per site (needs {@code latency}), or 0: not attached
 * @param clientAttemptTimeoutNanos client attempt timeout, or 0 for the default (25 ms)
 * @param clientMaxAttempts         attempts per fault-phase operation, or 0 for the default (8)
 * @param electionDetectNanos       the oracle notices a crashed leader after exactly this, or 0 for 10–40 ms
 * @param preferredLeader           the oracle elects this node whenever it is up, or -1
 * @param crashLeaderAtNanos        simulated time of a scripted crash of the leader (or of {@code crashNode}; the
 *                                  node stays down until the liveness phase unless {@code restartAfterNanos}), or -1
 * @param limboEntries              before that crash, cut the followers' messages to the leader until it
 *                                  holds this many entries past its commit point (at most 2 s), or 0
 * @param restartAfterNanos         the crashed leader restarts this long after its crash (so it has caught up
 *                                  by the end of the seed), or 0: at the start of the liveness phase
 * @param pipelineSlots             the replicas' pipeline window (slots in flight) and proposal queue, or 0 for
 *                                  the environment's (an experiment's backlog of writes must fit: a limbo
 *                                  region, or the writes a new leader accepts while it defers its commit)
 * @param invokeUntilNanos          clients stop invoking fault-phase operations at this time, or -1 (by count)
 * @param fixedLan                  run on {@code SimEnvironment.LAN} (LAN links, 150 µs fsyncs, the regular replica
 *                                  configuration) instead of the environment the seed draws (which may be a slow
 *                                  network, slow disks, a tiny pipeline or tiny snapshot chunks, to reach more
 *                                  states): an experiment's hardware must not change with its seed
 * @param crashNode                 the node the scripted crash takes down, or -1: the node leading then
 */
public record SimScenario(double zipfExponent, boolean perSiteKeyOrder, LatencyMatrix latency, int clientsPerSite,
        long clientAttemptTimeoutNanos, int clientMaxAttempts, long electionDetectNanos, int preferredLeader,
        long crashLeaderAtNanos, int limboEntries, long restartAfterNanos, long invokeUntilNanos, int pipelineSlots,
        boolean fixedLan, int crashNode) {

    public static final SimScenario DEFAULT = new SimScenario(Double.NaN, false, null, 0, 0, 0, 0, -1, -1, 0, 0, -1, 0, false, -1);

    public SimScenario {
        Check.argument(Double.isNaN(zipfExponent) || (zipfExponent >= 0 && zipfExponent <= 10),
                "zipf exponent must be 0..10, got %s", zipfExponent);
        Check.argument(clientsPerSite >= 0, "clients per site must be >= 0, got %d", clientsPerSite);
        Check.argument(clientsPerSite == 0 || latency != null, "clients attached to sites need a latency matrix");
        Check.argument(!perSiteKeyOrder || clientsPerSite > 0, "per-site key popularity needs clients attached to sites");
        Check.argument(clientAttemptTimeoutNanos >= 0 && clientMaxAttempts >= 0 && electionDetectNanos >= 0,
                "client timeout, attempts and election delay must be >= 0");
        Check.argument(pipelineSlots >= 0 && pipelineSlots <= 100_000, "pipeline slots must be 0..100000, got %d", pipelineSlots);
        Check.argument(restartAfterNanos >= 0, "restart delay must be >= 0, got %d", restartAfterNanos);
        Check.argument(limboEntries >= 0 && (limboEntries == 0 || crashLeaderAtNanos >= 0),
                "limbo entries need a scripted leader crash, got %d", limboEntries);
        Check.argument(crashNode >= -1 && (crashNode == -1 || (crashLeaderAtNanos >= 0 && limboEntries == 0)),
                "a scripted crash of node %d needs a crash time and no limbo region", crashNode);
    }

    /**
     * A client attempt timeout that suits a geo-distributed group: three times the largest RTT (a
     * request forwarded to a distant leader and replicated across the group), at least the default 25 ms.
     */
    public static long geoClientTimeoutNanos(LatencyMatrix matrix) {
        return Math.max(SimTiming.CLIENT_ATTEMPT_TIMEOUT_NANOS, 3 * matrix.maxRttNanos());
    }

    /**
     * Each site's key popularity order under {@link #perSiteKeyOrder()}: {@code order[site][rank]} is the
     * index of the key (name {@code "k" + index}) that site ranks {@code rank}-th. A permutation per site
     * (Fisher-Yates) from a random stream of its own, so the seed's other draws stay as they were. Public
     * so that an experiment can give quorum leases the assignment the workload implies.
     */
    public static int[][] siteKeyOrder(long seed, int sites, int keys) {
        SimRandom orderRandom = SimRandom.stream(seed, "site-keys");
        int[][] orders = new int[sites][keys];
        for (int[] order : orders) {
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            for (int i = order.length - 1; i > 0; i--) {
                int j = orderRandom.nextInt(i + 1);
                int swap = order[i];
                order[i] = order[j];
                order[j] = swap;
            }
        }
        return orders;
    }

    /** True for {@link #DEFAULT}-equivalent scenarios (nothing changes). */
    public boolean isDefault() {
        return equals(DEFAULT);
    }

    public boolean hasSites() {
        return clientsPerSite > 0;
    }

    public SimScenario withZipf(double exponent) {
        return new SimScenario(exponent, perSiteKeyOrder, latency, clientsPerSite, clientAttemptTimeoutNanos, clientMaxAttempts,
                electionDetectNanos, preferredLeader, crashLeaderAtNanos, limboEntries, restartAfterNanos, invokeUntilNanos, pipelineSlots, fixedLan, crashNode);
    }

    public SimScenario withSites(LatencyMatrix matrix, int perSite, boolean perSiteKeys) {
        return new SimScenario(zipfExponent, perSiteKeys, matrix, perSite, clientAttemptTimeoutNanos, clientMaxAttempts,
                electionDetectNanos, preferredLeader, crashLeaderAtNanos, limboEntries, restartAfterNanos, invokeUntilNanos, pipelineSlots, fixedLan, crashNode);
    }

    public SimScenario withClientRetries(long attemptTimeoutNanos, int maxAttempts) {
        return new SimScenario(zipfExponent, perSiteKeyOrder, latency, clientsPerSite, attemptTimeoutNanos, maxAttempts,
                electionDetectNanos, preferredLeader, crashLeaderAtNanos, limboEntries, restartAfterNanos, invokeUntilNanos, pipelineSlots, fixedLan, crashNode);
    }

    public SimScenario withElection(long detectNanos, int preferred) {
        return new SimScenario(zipfExponent, perSiteKeyOrder, latency, clientsPerSite, clientAttemptTimeoutNanos, clientMaxAttempts,
                detectNanos, preferred, crashLeaderAtNanos, limboEntries, restartAfterNanos, invokeUntilNanos, pipelineSlots, fixedLan, crashNode);
    }

    public SimScenario withLeaderCrash(long atNanos, int limbo, long restartAfter) {
        return new SimScenario(zipfExponent, perSiteKeyOrder, latency, clientsPerSite, clientAttemptTimeoutNanos, clientMaxAttempts,
                electionDetectNanos, preferredLeader, atNanos, limbo, restartAfter, invokeUntilNanos, pipelineSlots, fixedLan, crashNode);
    }

    /**
     * A scripted crash of node {@code node} (whatever its role; e.g. a non-leader, quorum leases Fig. 7) at
     * {@code atNanos}, restarting {@code restartAfter} later (0: at the start of the liveness phase).
     */
    public SimScenario withNodeCrash(long atNanos, int node, long restartAfter) {
        Check.argument(node >= 0, "crashed node must be >= 0, got %d", node);
        return new SimScenario(zipfExponent, perSiteKeyOrder, latency, clientsPerSite, clientAttemptTimeoutNanos, clientMaxAttempts,
                electionDetectNanos, preferredLeader, atNanos, 0, restartAfter, invokeUntilNanos, pipelineSlots, fixedLan, node);
    }

    public SimScenario withInvokeUntil(long atNanos) {
        return new SimScenario(zipfExponent, perSiteKeyOrder, latency, clientsPerSite, clientAttemptTimeoutNanos, clientMaxAttempts,
                electionDetectNanos, preferredLeader, crashLeaderAtNanos, limboEntries, restartAfterNanos, atNanos, pipelineSlots, fixedLan, crashNode);
    }

    public SimScenario withPipelineSlots(int slots) {
        return new SimScenario(zipfExponent, perSiteKeyOrder, latency, clientsPerSite, clientAttemptTimeoutNanos, clientMaxAttempts,
                electionDetectNanos, preferredLeader, crashLeaderAtNanos, limboEntries, restartAfterNanos, invokeUntilNanos, slots, fixedLan, crashNode);
    }

    /** Runs on a fixed LAN environment instead of the seed's drawn one ({@code fixedLan}). */
    public SimScenario withFixedLan() {
        return new SimScenario(zipfExponent, perSiteKeyOrder, latency, clientsPerSite, clientAttemptTimeoutNanos, clientMaxAttempts,
                electionDetectNanos, preferredLeader, crashLeaderAtNanos, limboEntries, restartAfterNanos, invokeUntilNanos, pipelineSlots,
                true, crashNode);
    }

    /** Checks the scenario against the seed's config; a mismatch is an {@link IllegalArgumentException}. */
    void validate(SimConfig config) {
        if (latency != null) {
            Check.argument(latency.size() == config.nodes(), "latency matrix has %d sites but the group has %d nodes (one replica per site)",
                    latency.size(), config.nodes());
        }
        if (clientsPerSite > 0) {
            Check.argument(config.workers() == clientsPerSite * latency.size(), "%d clients per site at %d sites need %d workers, got %d",
                    clientsPerSite, latency.size(), clientsPerSite * latency.size(), config.workers());
        }
        Check.argument(preferredLeader < config.nodes(), "preferred leader %d is not a node of %d", preferredLeader, config.nodes());
        Check.argument(crashNode < config.nodes(), "crashed node %d is not a node of %d", crashNode, config.nodes());
    }
}
