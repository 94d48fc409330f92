package io.synod.sim;

import io.synod.core.paxos.Coding;
import io.synod.core.paxos.QuorumPolicy;
import io.synod.core.kv.KvStateMachine;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.Replica;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.core.paxos.StateMachine;
import io.synod.core.util.Check;
import io.synod.engine.DriverMetrics;
import io.synod.engine.GroupDriver;
import io.synod.engine.GroupDriverConfig;
import io.synod.engine.KvState;
import io.synod.engine.LeaseClock;
import io.synod.leases.QuorumLease;
import io.synod.leases.ReadLease;
import io.synod.protocol.ElectionEvent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The deterministic fault simulator: N production {@link Replica}s on one thread, in virtual time,
 * driven by one seeded source of randomness. It owns the world around the replicas — network,
 * disks, clocks, the election oracle, the clients — and follows the {@link Ready} contract the way
 * the server runtime does: persist (taking simulated fsync time, during which the replica keeps
 * taking inputs that the next Ready will batch), then send, then advance. A crash during an fsync
 * loses that Ready's writes (or keeps a torn prefix), and none of its messages or replies leave.
 *
 * <p>A seed has three phases: the <em>fault phase</em> injects the profile's faults while clients
 * invoke {@link SimConfig#faultPhaseOps()} operations; the <em>liveness phase</em> heals everything,
 * restarts every node and stabilizes the oracle, and every operation invoked from then on must
 * succeed within {@link SimConfig#livenessBoundNanos()}; the <em>quiesce phase</em> gives replicas
 * time to converge. Then every replica must have applied the same prefix into the same state, and
 * the client history must be linearizable. Agreement per slot is checked throughout.
 */
public final class Simulation {
    enum Phase { FAULTS, LIVENESS, QUIESCE, RESOLVE, DONE }

    private static final int MAX_PENDING_EVENTS = 1_000_000;
    /** Groups one seed may host on its nodes ({@link #run(SimConfig, SimLeases, int)}). */
    public static final int MAX_GROUPS = 16;
    /** Client commands a node's driver holds waiting for their answer, at most (the server's bound). */
    private static final int MAX_WAITERS = 16_384;
    /** How long the end-of-seed rebuild of deferred values may take (deferred rebuild only). */
    static final long RESOLVE_BOUND_NANOS = 2_000 * SimTiming.MILLIS;

    final SimConfig config;
    /** The seed's groups on the same nodes ({@link SimGroups}); this group's index among them. */
    final SimGroups world;
    final int group;
    final EventQueue queue;
    final TraceHash trace;
    final SimEnvironment environment;
    final SimNetwork network;
    final SimRandom faultRandom;
    final SimRandom diskRandom;
    final SimRandom nodeRandom;
    final SimNode[] nodes;
    final ElectionOracle oracle;
    final SimClients clients;
    final SafetyMonitor safety;
    final QuorumPolicy quorum;
    final Coding coding;
    final SimTraffic.Counter traffic = new SimTraffic.Counter();
    final SimEndOfSeed endOfSeed = new SimEndOfSeed(this);
    private final SimScriptedCrash scriptedCrash = new SimScriptedCrash(this);
    final SimLeaderIsolation leaderIsolation = new SimLeaderIsolation(this);
    final SimCodingAdmin codingChanges = new SimCodingAdmin(this);
    final SimMembershipChanges membershipChanges = new SimMembershipChanges(this);
    final SimWatchers watchers;
    final SimNodeInputs inputs = new SimNodeInputs(this);
    /** The traffic when the first quiesce window ended (the end-of-seed rebuild and re-opened windows are checks, not costs of the writes). */
    SimTraffic trafficAtQuiesceEnd;
    /** Shard corruption in recovery-read replies (coded mode with network faults), a stream of its own. */
    final SimRandom corruptRandom;
    final Set<Long> committedWriteSlots = new HashSet<>();
    final LeaseHooksFactory leases;
    final SimLeases leaseWorld;
    final SimStateMachine stateMachines;
    final NegativeControls controls;
    final SimFaults faults;
    final SimExtension extension;
    final SimEpochWatch epochWatch = new SimEpochWatch(this);
    final HostilePeer hostilePeer;
    final SimScenario scenario;
    final List<ScenarioResult.Election> elections = new ArrayList<>();
    /** Every replica's snapshot interval and log retention, overriding the environment's (byte measurements), or null. */
    int[] snapshotInterval;
    int crashedNode = -1;
    long crashNanos = -1;
    long limboAtCrash;
    Phase phase = Phase.FAULTS;
    SimViolation violation;
    long events;
    long promisePages;
    long snapshotChunks;
    long localReadsOfCrashed;
    long expiriesOfCrashed;
    /** Whether the lease world lets followers answer reads (quorum leases: the key's holders). */
    private final boolean followerReads;

    private Simulation(SimConfig config, SimLeases leaseWorld, SimStateMachine stateMachines, SimExtension extension,
            SimScenario scenario) {
        this(config, leaseWorld, stateMachines, extension, scenario, null);
    }

    /**
     * One group of a seed: the first ({@code primary} null) owns the seed's time, trace, environment, disk randomness
     * and the nodes' clocks and logs; every later group shares them and draws the rest from its own {@code config}'s seed.
     */
    private Simulation(SimConfig config, SimLeases leaseWorld, SimStateMachine stateMachines, SimExtension extension,
            SimScenario scenario, Simulation primary) {
        scenario.validate(config);
        this.config = config;
        this.world = primary == null ? new SimGroups() : primary.world;
        this.group = world.size();
        world.add(this);
        this.queue = primary == null ? new EventQueue(MAX_PENDING_EVENTS) : primary.queue;
        this.trace = primary == null ? new TraceHash() : primary.trace;
        this.scenario = scenario;
        this.extension = extension;
        this.leaseWorld = leaseWorld;
        LeaseHooksFactory leases = leaseWorld.factory();
        // Coded mode's large values are append notes; the KV machine keeps the CRC32C of each list's last
        // note, so the notes' bytes determine state (a follower that defers rebuilding them has something to
        // rebuild) and a read returns that checksum, which the clients check against the note they appended.
        this.stateMachines = stateMachines == SimStateMachine.KV && config.coding().largePercent() > 0
                ? SimStateMachine.KV_WITH_NOTES : stateMachines;
        // Drawn from its own stream: a fixed environment leaves every other draw of the seed as it was.
        this.environment = primary != null ? primary.environment
                : scenario.fixedLan() ? SimEnvironment.LAN : SimEnvironment.draw(SimRandom.stream(config.seed(), "environment"));
        this.network = new SimNetwork(config.nodes(), SimRandom.stream(config.seed(), "network"),
                environment.linkMedianMinNanos(), environment.linkMedianMaxNanos());
        if (scenario.latency() != null) {
            network.useLatencyMatrix(scenario.latency());
        }
        if (config.linkBitsPerSecond() > 0) {
            network.limitBandwidth(config.linkBitsPerSecond());
        }
        this.faultRandom = SimRandom.stream(config.seed(), "faults");
        this.corruptRandom = SimRandom.stream(config.seed(), "corruption");
        this.diskRandom = primary == null ? SimRandom.stream(config.seed(), "disk") : primary.diskRandom;
        this.nodeRandom = SimRandom.stream(config.seed(), "nodes");
        this.watchers = new SimWatchers(this, SimRandom.stream(config.seed(), "watchers"));
        this.controls = new NegativeControls(config.mutation());
        this.hostilePeer = new HostilePeer(this, config);
        this.nodes = new SimNode[config.nodes()];
        for (int i = 0; i < nodes.length; i++) {
            SimDisk disk = new SimDisk(controls.diskDropsPromises());
            if (primary != null) {
                nodes[i] = new SimNode(i, disk, primary.nodes[i].clock, primary.nodes[i].log);
            } else {
                long drift = nodeRandom.uniform(-leaseWorld.initialDriftMaxPpm(), leaseWorld.initialDriftMaxPpm());
                SimClock clock = new SimClock(nodeRandom.uniform(0, SimTiming.CLOCK_OFFSET_MAX_NANOS), drift);
                nodes[i] = new SimNode(i, disk, clock, new SimNodeLog(this));
            }
            nodes[i].log.join(nodes[i]);
        }
        this.safety = new SafetyMonitor(config.nodes());
        this.quorum = controls.quorum(config.coding());
        this.coding = config.coding().enabled() ? controls.coding(config.coding().coding()) : Coding.OFF;
        this.leases = controls.leases(leases);
        this.followerReads = this.leases.create(0, config.nodes()) instanceof QuorumLease;
        this.oracle = new ElectionOracle(config.nodes(), SimRandom.stream(config.seed(), "oracle"), new ElectionOracle.Notifier() {
            @Override
            public void announce(int node, ElectionEvent event, long delayNanos, long generation) {
                queue.after(delayNanos, () -> inputs.deliverElection(nodes[node], event, generation));
                if (event instanceof ElectionEvent.Elected elected) {
                    epochWatch.issued(elected.epoch(), delayNanos);
                }
            }

            @Override
            public boolean isUp(int node) {
                return nodes[node].isUp();
            }
        }, queue, config.faults().network());
        oracle.configure(scenario.electionDetectNanos(), scenario.preferredLeader());
        this.clients = new SimClients(config, scenario, SimRandom.stream(config.seed(), "clients"), queue, inputs::sendClientRequest,
                this.stateMachines == SimStateMachine.KV_WITH_NOTES);
        this.faults = new SimFaults(config.faults(), queue, faultRandom, trace, oracle, network, nodes, leaseWorld, new SimFaults.World() {
            @Override
            public boolean inFaultPhase() {
                return phase == Phase.FAULTS;
            }

            @Override
            public void crash(SimNode node, int incarnation) {
                Simulation.this.crash(node, incarnation);
            }

            @Override
            public void probeStaleRead(int writeNode, int readNode) {
                clients.probeStaleRead(writeNode, readNode);
            }

            @Override
            public void pause(SimNode node, long untilNanos) {
                world.pause(node.id, untilNanos);
            }

            @Override
            public long handOver(SimNode node) {
                if (!node.isUp() || node.pausedUntilNanos > queue.now()) {
                    return -1;
                }
                long slot = node.driver.handOverNow(node.localNanos(queue.now()));
                inputs.drive(node);
                return slot;
            }
        });
    }

    /** Runs one seed to completion, without leases. Deterministic: the same config gives the same result and trace hash. */
    public static SimResult run(SimConfig config) {
        return run(config, LeaseHooksFactory.NONE);
    }

    /**
     * Runs one seed with a lease policy per replica (for example LeaseGuard leader leases, whose local
     * reads the linearizability check then covers). The {@link Mutation#LOCAL_READS_WITHOUT_LEASE}
     * negative control replaces it.
     */
    public static SimResult run(SimConfig config, LeaseHooksFactory leases) {
        return run(config, leases, SimStateMachine.KV);
    }

    /** Runs one seed with a lease policy and a state machine of the caller's (see {@link SimStateMachine}). */
    public static SimResult run(SimConfig config, LeaseHooksFactory leases, SimStateMachine stateMachines) {
        return run(config, leases == LeaseHooksFactory.NONE ? SimLeases.NONE : SimLeases.of(String.valueOf(leases), leases),
                stateMachines);
    }

    /**
     * Runs one seed in a lease world: a policy per replica and the clocks it relies on (every node
     * gets a {@link io.synod.core.paxos.ClockReading} before each input; see {@link SimLeases}).
     */
    public static SimResult run(SimConfig config, SimLeases leases) {
        return run(config, leases, SimStateMachine.KV);
    }

    public static SimResult run(SimConfig config, SimLeases leases, SimStateMachine stateMachines) {
        return new Simulation(config, leases, stateMachines, SimExtension.NONE, SimScenario.DEFAULT).execute();
    }

    /**
     * Runs one seed of {@code groups} groups on the same nodes ({@link SimGroups}): each group with its own clients,
     * election and checks, every node with one log for all of them. Group 0 draws from {@code config}'s seed; group g
     * from a seed derived from it, so one group runs exactly as {@link #run(SimConfig, SimLeases)}.
     */
    public static SimResult run(SimConfig config, SimLeases leases, int groups) {
        return world(config, leases, groups).run();
    }

    /** The world of {@link #run(SimConfig, SimLeases, int)}, built and not yet run. */
    static SimGroups world(SimConfig config, SimLeases leases, int groups) {
        Check.argument(groups >= 1 && groups <= MAX_GROUPS, "groups must be 1..%d, got %d", MAX_GROUPS, groups);
        Simulation primary = new Simulation(config, leases, SimStateMachine.KV, SimExtension.NONE, SimScenario.DEFAULT);
        for (int g = 1; g < groups; g++) {
            long groupSeed = SimRandom.stream(config.seed(), "group-" + g).nextLong();
            new Simulation(config.withSeed(groupSeed), leases, SimStateMachine.KV, SimExtension.NONE, SimScenario.DEFAULT, primary);
        }
        return primary.world;
    }

    /**
     * Runs one seed in a lease world with a {@link SimScenario} (workload shape, sites and latency
     * matrix, scripted leader crash) and returns, besides the checked result, every client operation
     * and election, for experiments. With {@link SimScenario#DEFAULT} the result equals {@link #run(SimConfig, SimLeases)}'s.
     */
    public static ScenarioResult runScenario(SimConfig config, SimLeases leases, SimScenario scenario) {
        Simulation simulation = new Simulation(config, leases, SimStateMachine.KV, SimExtension.NONE, scenario);
        SimResult result = simulation.execute();
        return new ScenarioResult(result, simulation.clients.ops(), simulation.elections, simulation.crashedNode,
                simulation.crashNanos, simulation.limboAtCrash);
    }

    /**
     * Runs one seed with every replica taking a snapshot every {@code everySlots} applied slots and keeping
     * {@code retainSlots} below it, whatever the drawn environment says (the byte measurements use the
     * production interval, {@link ReplicaConfig#defaults}: with deferred rebuild every snapshot costs a
     * rebuild of every unresolved key, so the simulator's tiny intervals would measure that instead).
     */
    static SimResult runWithSnapshotInterval(SimConfig config, int everySlots, int retainSlots) {
        Simulation simulation = new Simulation(config, SimLeases.NONE, SimStateMachine.KV, SimExtension.NONE, SimScenario.DEFAULT);
        simulation.snapshotInterval = new int[] {everySlots, retainSlots};
        return simulation.execute();
    }

    /** One seed of a world with coding changes, with how many changes were proposed and applied. */
    record CodingChangeRun(SimResult result, long proposed, int applied) {}

    /** Runs one seed in a lease world whose {@link SimCoding#alternate()} is set and counts its coding changes. */
    static CodingChangeRun runWithCodingChanges(SimConfig config, SimLeases leases) {
        Simulation simulation = new Simulation(config, leases, SimStateMachine.KV, SimExtension.NONE, SimScenario.DEFAULT);
        SimResult result = simulation.execute();
        return new CodingChangeRun(result, simulation.codingChanges.proposed(), simulation.codingChanges.applied());
    }

    /** Runs one seed with {@link SimConfig#membershipChanges()} on and counts its changes. */
    public static SimMembershipChanges.Run runWithMembershipChanges(SimConfig config, SimLeases leases) {
        Simulation simulation = new Simulation(config, leases, SimStateMachine.KV, SimExtension.NONE, SimScenario.DEFAULT);
        return simulation.membershipChanges.run(simulation.execute());
    }

    /**
     * Runs one seed with the session workload beside the list-append clients: sessions, ephemeral keys, the
     * leader's expiry timer, and their invariant checks ({@link SessionWorkload}).
     */
    public static SimResult runWithSessions(SimConfig config, SessionWorkload sessions) {
        return new Simulation(config, SimLeases.NONE, SimStateMachine.KV, sessions, SimScenario.DEFAULT).execute();
    }

    /**
     * The replica configuration the simulator runs (before a {@link SimEnvironment} may tighten it):
     * short timers, small batches and frequent snapshots, to reach more states within a seed.
     */
    public static ReplicaConfig replicaConfig(int nodeId, int clusterSize) {
        return ReplicaConfig.defaults(nodeId, clusterSize)
                .withTimers(SimTiming.HEARTBEAT_NANOS, SimTiming.RETRANSMIT_NANOS, SimTiming.PHASE1_TIMEOUT_NANOS)
                .withCheckQuorum(SimTiming.CHECK_QUORUM_NANOS)
                .withBatching(32, 8, 64 * 1024, 64)
                .withSnapshotEverySlots(40, 10);
    }

    private SimResult execute() {
        return world.run();
    }

    /** Starts this group's world: its replicas, oracle, clients, faults and side worlds ({@link SimGroups#run()}). */
    void begin() {
        for (SimNode node : nodes) {
            restart(node);
        }
        if (config.faults().network()) {
            network.setQuality(0.02, 0.02, 0.05, 0.01);
        }
        oracle.start();
        hostilePeer.start();
        clients.start();
        extension.start(new SimExtensionWorld(this), SimRandom.stream(config.seed(), "extension"));
        if (config.faults() != FaultProfile.NONE) {
            faults.scheduleNextFault();
        }
        if (scenario.crashLeaderAtNanos() >= 0) {
            queue.at(scenario.crashLeaderAtNanos(), scriptedCrash::scriptedLeaderCrash);
        }
        codingChanges.start();
        membershipChanges.start();
        watchers.start();
    }

    /** The traffic of the writes (measured when the first quiesce window ended, if one did). */
    SimTraffic trafficResult() {
        return trafficAtQuiesceEnd != null ? trafficAtQuiesceEnd : traffic.result(committedWriteSlots.size());
    }

    /** Local (lease) reads of every incarnation. */
    long localReads() {
        long total = localReadsOfCrashed;
        for (SimNode node : nodes) {
            total += node.isUp() ? node.replica.localReadsServed() : 0;
        }
        return total;
    }

    void collectViolations() {
        if (violation == null) {
            violation = safety.violation();
        }
        if (violation == null) {
            violation = clients.violation();
        }
    }

    void advancePhase() {
        if (phase == Phase.FAULTS && world.faultPhaseOpsInvoked()) {
            world.startLivenessPhase();
        } else if (phase == Phase.LIVENESS && clients.finished() && !leaderIsolation.isolating()) {
            // The quiesce window is fault-free: a lasting isolation still in force when the last operation ends
            // (its leader's CheckQuorum has not fired yet) would otherwise eat up to checkQuorumNanos of it.
            endOfSeed.startQuiesce();
        }
    }

    /**
     * How long the replicas get to converge after the last operation before the final checks:
     * {@link SimTiming#QUIESCE_NANOS} on a LAN; across a latency matrix, twice its largest RTT more. The
     * leader tells a follower the commit point with its next heartbeat, which takes half an RTT to the
     * farthest site, and a follower missing entries asks and gets them in one more round trip; 100 ms
     * alone is less than the one-way delay between the farthest sites of {@code ec2-five-sites}
     * (212 ms RTT), so a follower there could not even hear of the last commit in time. Twice the RTT
     * is also what the replicas' retransmission timer is scaled to ({@link #replicaConfig(int)}).
     */
    long quiesceNanos() {
        return scenario.latency() == null ? SimTiming.QUIESCE_NANOS
                : SimTiming.QUIESCE_NANOS + 2 * scenario.latency().maxRttNanos();
    }

    void startLivenessPhase() {
        phase = Phase.LIVENESS;
        trace.add(0x11FE, queue.now(), 0);
        network.healEverything();
        network.setQuality(0, 0, 0, 0);
        for (SimNode node : nodes) {
            node.log.crashDuringNextSync = false;
            node.crashAfterNextPromise = false;
            node.clock.setDrift(queue.now(), nodeRandom.uniform(-SimTiming.DRIFT_NORMAL_MAX_PPM, SimTiming.DRIFT_NORMAL_MAX_PPM));
            if (!node.isUp()) {
                queue.after(nodeRandom.uniform(0, 2 * SimTiming.MILLIS), () -> world.restartNode(node.id));
            }
        }
        oracle.stabilize();
        leaderIsolation.start();
        clients.startLivenessPhase();
    }

    void crash(SimNode node, int incarnation) {
        crash(node, incarnation, faultRandom.uniform(SimTiming.CRASH_DOWNTIME_MIN_NANOS, SimTiming.CRASH_DOWNTIME_MAX_NANOS));
    }

    /** Crashes {@code node}'s machine, every group on it ({@link SimGroups#crashNode}), if it still runs {@code incarnation}. */
    void crash(SimNode node, int incarnation, long downtimeNanos) {
        if (phase != Phase.FAULTS || !node.isUp() || node.incarnation != incarnation) {
            return;
        }
        world.crashNode(node.id, downtimeNanos);
    }

    /** This group's replica on a crashed machine stops (the node's log already dropped its unsynced tail). */
    void stopReplica(SimNode node) {
        localReadsOfCrashed += node.replica.localReadsServed();
        expiriesOfCrashed += node.driver.expiriesProposed();
        node.driver = null;
        node.replica = null;
        node.fsyncing = null;
        node.crashAfterNextPromise = false;
        node.pausedUntilNanos = 0;
        node.incarnation++;
        oracle.onCrash(node.id);
    }

    void restart(SimNode node) {
        if (node.isUp()) {
            return;
        }
        node.incarnation++;
        StateMachine machine = stateMachines.create(node.id);
        node.output = new SimNodeOutput(this, node);
        node.driver = new GroupDriver(driverConfig(node).withMembership(membershipChanges.initial()),
                new GroupDriver.Recovered(node.disk.state(), null, 0), machine,
                machine instanceof KvStateMachine kv ? KvState.of(kv::liveSessions, kv.watchLog()) : null, node.output,
                node.localNanos(queue.now()));
        node.replica = node.driver.replica();
        membershipChanges.onRestart(node);
        controls.defence(node.replica.defence());
        node.driver.start();
        epochWatch.onRestart(node);
        trace.add(0x5747, node.id, node.disk.entryCount());
        node.lastPromised = node.replica.promised();
        node.lastAppliedSlot = node.replica.appliedSlot();
        safety.onRestart(node.id);
        extension.onRestart(node.id);
        inputs.scheduleTick(node, node.incarnation);
        oracle.onRestart(node.id);
        inputs.drive(node);
    }

    /**
     * The group driver of one node's incarnation, as the server configures it but for the simulated parts: the
     * replica under the simulator's timers, its quorum and coding (either may carry a negative control), the lease
     * world's policy judged by the node's simulated clocks, and the driver's own negative control, if any.
     */
    private GroupDriverConfig driverConfig(SimNode node) {
        int id = node.id;
        ReadLease lease = leases == LeaseHooksFactory.NONE ? ReadLease.NONE
                : ReadLease.of(leaseWorld.name(), () -> leases.create(id, config.nodes()), followerReads);
        LeaseClock clock = local -> leaseWorld.reading(config.seed(), id, queue.now(), local);
        return new GroupDriverConfig(0, replicaConfig(id), coding, lease, clock, MAX_WAITERS, DriverMetrics.NONE,
                controls.driver(quorum));
    }

    /**
     * The environment's replica configuration; between sites of a latency matrix the retransmit and
     * phase 1 timers grow to twice and four times the largest RTT, so that answers can arrive in time.
     */
    private ReplicaConfig replicaConfig(int nodeId) {
        ReplicaConfig replicaConfig = environment.replicaConfig(nodeId, config.nodes());
        if (scenario.latency() != null) {
            long rtt = scenario.latency().maxRttNanos();
            replicaConfig = replicaConfig.withTimers(SimTiming.HEARTBEAT_NANOS, Math.max(SimTiming.RETRANSMIT_NANOS, 2 * rtt),
                    Math.max(SimTiming.PHASE1_TIMEOUT_NANOS, 4 * rtt)).withCheckQuorum(Math.max(SimTiming.CHECK_QUORUM_NANOS, 4 * rtt));
        }
        if (scenario.pipelineSlots() > 0) {
            replicaConfig = replicaConfig.withBatching(scenario.pipelineSlots(), 8, 64 * 1024, scenario.pipelineSlots());
        }
        if (snapshotInterval != null) {
            // The interval the caller fixed, in slots; the byte bound back at production's (a small-messages
            // environment's would snapshot after every few coded values).
            replicaConfig = replicaConfig.withSnapshotEverySlots(snapshotInterval[0], snapshotInterval[1])
                    .withSnapshotEveryBytes(ReplicaConfig.DEFAULT_SNAPSHOT_EVERY_BYTES, ReplicaConfig.DEFAULT_LOG_RETAIN_BYTES);
        }
        return controls.replicaConfig(replicaConfig);
    }

    void fail(SimViolation.Kind kind, String description) {
        if (violation == null) {
            violation = new SimViolation(kind, queue.now(), description);
        }
    }

}
