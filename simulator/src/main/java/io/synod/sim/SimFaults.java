package io.synod.sim;

import io.synod.core.paxos.Role;
import java.util.ArrayList;
import java.util.List;

/**
 * The fault phase's injector: every {@link SimTiming#FAULT_INTERVAL_MEAN_NANOS} on average (an
 * exponential draw from the seed's fault stream) it picks one fault the {@link FaultProfile} allows
 * and applies it to the nodes, the network, the clocks or the election oracle.
 */
final class SimFaults {
    /** What the injector needs from the simulation around it. */
    interface World {
        boolean inFaultPhase();

        /** Crashes {@code node} if it still runs {@code incarnation}; it comes back after a random downtime. */
        void crash(SimNode node, int incarnation);

        /**
         * A client that follows the oracle appends to a key at {@code writeNode}; once that is acknowledged,
         * another client, whose view of the oracle lags, reads the same key at {@code readNode}.
         */
        void probeStaleRead(int writeNode, int readNode);

        /** The node's process stops taking inputs until {@code untilNanos} (in every group it hosts). */
        void pause(SimNode node, long untilNanos);

        /** The node's replica starts a planned hand-over ({@code Replica.handOver()}); the slot of its end-lease entry, or -1. */
        long handOver(SimNode node);
    }

    private final FaultProfile profile;
    private final EventQueue queue;
    private final SimRandom faultRandom;
    private final TraceHash trace;
    private final ElectionOracle oracle;
    private final SimNetwork network;
    private final SimNode[] nodes;
    private final World world;
    private final SimLeases leases;

    SimFaults(FaultProfile profile, EventQueue queue, SimRandom faultRandom, TraceHash trace, ElectionOracle oracle,
            SimNetwork network, SimNode[] nodes, SimLeases leases, World world) {
        this.leases = leases;
        this.profile = profile;
        this.queue = queue;
        this.faultRandom = faultRandom;
        this.trace = trace;
        this.oracle = oracle;
        this.network = network;
        this.nodes = nodes;
        this.world = world;
    }

    private enum FaultKind {
        CRASH, CRASH_MAJORITY, CRASH_ALL, CRASH_DURING_FSYNC, CRASH_AFTER_PROMISE,
        SPLIT, BRIDGE_FAILOVER, ISOLATE_LEADER, ONE_WAY, BRIDGE, LOSSY_NETWORK, TWO_LEADERS, STALE_EPOCH, FLAP,
        DRIFT, CLOCK_JUMP, PAUSE, ISOLATE_AFTER_COMMIT, PLANNED_HANDOVER
    }

    void scheduleNextFault() {
        queue.after(faultRandom.exponential(SimTiming.FAULT_INTERVAL_MEAN_NANOS), () -> {
            if (world.inFaultPhase()) {
                injectFault();
                scheduleNextFault();
            }
        });
    }

    private void injectFault() {
        List<FaultKind> kinds = new ArrayList<>();
                if (profile.crashes()) {
            kinds.addAll(List.of(FaultKind.CRASH, FaultKind.CRASH, FaultKind.CRASH_MAJORITY, FaultKind.CRASH_ALL,
                    FaultKind.CRASH_DURING_FSYNC, FaultKind.CRASH_AFTER_PROMISE));
        }
        if (profile.network()) {
            kinds.addAll(List.of(FaultKind.SPLIT, FaultKind.BRIDGE_FAILOVER, FaultKind.ISOLATE_LEADER, FaultKind.ONE_WAY, FaultKind.BRIDGE,
                    FaultKind.LOSSY_NETWORK, FaultKind.TWO_LEADERS, FaultKind.STALE_EPOCH, FaultKind.FLAP));
        }
        if (profile.clocks()) {
            kinds.addAll(List.of(FaultKind.DRIFT, FaultKind.CLOCK_JUMP, FaultKind.PAUSE));
        }
        if (profile.network() && leases.handoverFaults()) {
            kinds.add(FaultKind.ISOLATE_AFTER_COMMIT);
            kinds.add(FaultKind.PLANNED_HANDOVER);
        }
        FaultKind kind = kinds.get(faultRandom.nextInt(kinds.size()));
        trace.add(0xFA17, kind.ordinal(), queue.now());
        int n = nodes.length;
        switch (kind) {
            case CRASH -> {
                // Crashing the leader half of the time makes failovers, where the interesting bugs are.
                int leader = oracle.leader();
                SimNode node = nodes[leader >= 0 && faultRandom.chance(0.5) ? leader : faultRandom.nextInt(n)];
                if (node.isUp() && upCount() > 1) {
                    world.crash(node, node.incarnation);
                }
            }
            case CRASH_MAJORITY -> {
                // A correlated failure (a rack loses power): every node mid-fsync loses its unsynced writes at once.
                int start = faultRandom.nextInt(n);
                for (int i = 0; i < n / 2 + 1; i++) {
                    SimNode node = nodes[(start + i) % n];
                    world.crash(node, node.incarnation);
                }
            }
            case CRASH_ALL -> {
                // The whole cluster loses power; nodes come back one by one.
                for (SimNode node : nodes) {
                    world.crash(node, node.incarnation);
                }
            }
            case CRASH_DURING_FSYNC -> nodes[faultRandom.nextInt(n)].log.crashDuringNextSync = true;
            case CRASH_AFTER_PROMISE -> nodes[faultRandom.nextInt(n)].crashAfterNextPromise = true;
            case SPLIT -> {
                boolean[] side = new boolean[n];
                for (int i = 0; i < n; i++) {
                    side[i] = faultRandom.chance(0.5);
                }
                network.split(side);
                scheduleHeal();
            }
            case BRIDGE_FAILOVER -> {
                // The leader keeps its peer links on one side of a bridge but the oracle (its ZooKeeper
                // session) deposes it behind its back and elects a node on the other side: two leaders
                // whose quorums meet only at the bridge, which may also crash right after promising.
                int leader = oracle.leader();
                if (leader >= 0) {
                    int bridge = faultRandom.otherNode(n, leader);
                    int rival = faultRandom.otherNode(n, leader);
                    while (rival == bridge) {
                        rival = faultRandom.otherNode(n, leader);
                    }
                    boolean[] side = new boolean[n];
                    for (int i = 0; i < n; i++) {
                        side[i] = i == leader || (i != rival && i != bridge && faultRandom.chance(0.5));
                    }
                    network.split(side);
                    for (int i = 0; i < n; i++) {
                        network.healLink(bridge, i);
                        network.healLink(i, bridge);
                    }
                    nodes[bridge].crashAfterNextPromise = true;
                    oracle.electBehindBackOf(rival, leader);
                    scheduleHeal();
                }
            }
            case ISOLATE_LEADER -> {
                int leader = leases.isolationDeposes() ? servingLeader() : oracle.leader();
                if (leader >= 0) {
                    boolean[] side = new boolean[n];
                    side[leader] = true;
                    network.split(side);
                    scheduleHeal();
                    if (leases.isolationDeposes()) {
                        // It had lost its election session already (its ZooKeeper link went first): a node is
                        // elected behind its back within a few ms, while clients still reach the old leader.
                        int rival = faultRandom.otherNode(n, leader);
                        // The worst drift within the world's bound: the deposed leader's clock runs
                        // slowest and its successor's fastest. A timer lease without drift margin then
                        // outlives the successor's wait by the most the bound allows (no new random
                        // draws: every other fault of the seed stays as it was).
                        nodes[leader].clock.setDrift(queue.now(), -leases.driftFaultMaxPpm());
                        nodes[rival].clock.setDrift(queue.now(), leases.driftFaultMaxPpm());
                        queue.after(faultRandom.uniform(0, 5 * SimTiming.MILLIS), () -> {
                            if (world.inFaultPhase() && nodes[rival].isUp()) {
                                oracle.electBehindBackOf(rival, leader);
                            }
                        });
                    }
                }
            }
            case ONE_WAY -> {
                int from = faultRandom.nextInt(n);
                if (faultRandom.chance(0.5)) {
                    network.cutLink(from, faultRandom.otherNode(n, from));
                } else {
                    for (int to = 0; to < n; to++) {
                        network.cutLink(from, to);
                    }
                }
                scheduleHeal();
            }
            case BRIDGE -> {
                // Two halves that only the bridge node talks to: each half may elect a leader that reaches a majority through it.
                int bridge = faultRandom.nextInt(n);
                boolean[] side = new boolean[n];
                for (int i = 0; i < n; i++) {
                    side[i] = i != bridge && faultRandom.chance(0.5);
                }
                network.split(side);
                for (int i = 0; i < n; i++) {
                    network.healLink(bridge, i);
                    network.healLink(i, bridge);
                }
                scheduleHeal();
            }
            case LOSSY_NETWORK -> {
                network.setQuality(0.05 + 0.3 * faultRandom.nextDouble(), 0.1 * faultRandom.nextDouble(),
                        0.3 * faultRandom.nextDouble(), 0.05 * faultRandom.nextDouble());
                queue.after(faultRandom.uniform(SimTiming.PARTITION_MIN_NANOS, SimTiming.PARTITION_MAX_NANOS), () -> {
                    if (world.inFaultPhase()) {
                        network.setQuality(0.02, 0.02, 0.05, 0.01);
                    }
                });
            }
            case TWO_LEADERS -> oracle.nameTwoLeaders();
            case STALE_EPOCH -> oracle.handOutStaleEpoch();
            case FLAP -> oracle.flap();
            case DRIFT -> nodes[faultRandom.nextInt(n)].clock.setDrift(queue.now(),
                    faultRandom.uniform(-leases.driftFaultMaxPpm(), leases.driftFaultMaxPpm()));
            case CLOCK_JUMP -> {
                SimNode node = nodes[faultRandom.nextInt(n)];
                long jump = faultRandom.uniform(0, SimTiming.CLOCK_JUMP_MAX_NANOS);
                if (leases.monotonicJumps()) {
                    node.clock.jumpForward(queue.now(), jump);
                }
            }
            case PAUSE -> {
                SimNode node = nodes[faultRandom.nextInt(n)];
                world.pause(node, queue.now() + faultRandom.uniform(SimTiming.MILLIS, SimTiming.PAUSE_MAX_NANOS));
            }
            case ISOLATE_AFTER_COMMIT -> {
                int leader = servingLeader();
                if (leader >= 0 && nodes[leader].isUp()) {
                    SimNode node = nodes[leader];
                    awaitCommitThenIsolate(node, node.incarnation, node.replica.commitSlot(), 0);
                }
            }
            case PLANNED_HANDOVER -> {
                int leader = servingLeader();
                SimNode node = leader >= 0 ? nodes[leader] : null;
                if (node != null && node.isUp() && node.replica.role() == Role.LEADER) {
                    int successor = faultRandom.otherNode(n, leader);
                    boolean cutOff = faultRandom.chance(0.5);
                    long slot = world.handOver(node);
                    if (slot >= 0) {
                        awaitHandOverCommit(node, node.incarnation, nodes[successor], slot, cutOff, 0);
                    }
                }
            }
        }
    }

    /**
     * {@code PLANNED_HANDOVER} (leader-lease worlds): the leader appends its end-lease entry (an operator
     * drains the node); once the leader and the chosen successor both know it committed (or after
     * {@link #HANDOVER_MAX_COMMIT_POLLS} polls, whatever they know), the old leader gives up its election
     * node and the oracle elects the successor. Half of the time the old leader's network fails at that
     * moment (a machine being drained may lose its links at any time), so it hears of neither the election
     * nor the successor's ballot while clients still reach it; a client following the oracle then writes at
     * the successor and a lagging client reads the key at the old leader, as in {@code ISOLATE_AFTER_COMMIT}.
     */
    private void awaitHandOverCommit(SimNode leader, int incarnation, SimNode successor, long slot, boolean cutOff, int polls) {
        queue.after(HANDOVER_POLL_NANOS, () -> {
            if (!world.inFaultPhase() || !leader.isUp() || leader.incarnation != incarnation) {
                return;
            }
            boolean known = leader.replica.commitSlot() >= slot && successor.isUp() && successor.replica.commitSlot() >= slot;
            if (!known && polls < HANDOVER_MAX_COMMIT_POLLS) {
                awaitHandOverCommit(leader, incarnation, successor, slot, cutOff, polls + 1);
                return;
            }
            SimNode next = successor.isUp() ? successor : firstUpOtherThan(leader.id);
            trace.add(0xFA19, leader.id, next == null ? -1 : next.id);
            if (next == null) {
                return;
            }
            if (cutOff) {
                isolateForAWhile(leader.id);
            }
            // Without the cut every other node hears of the successor, the old leader included.
            oracle.electBehindBackOf(next.id, cutOff ? leader.id : -1);
            awaitCandidateThenProbe(next, next.incarnation, leader.id, 0);
        });
    }

    private static final int HANDOVER_MAX_COMMIT_POLLS = 300;

    private SimNode firstUpOtherThan(int node) {
        for (SimNode other : nodes) {
            if (other.id != node && other.isUp()) {
                return other;
            }
        }
        return null;
    }

    /**
     * Cuts {@code node} off from every peer for a partition's duration (at least 2Δ of the lease worlds), a
     * cut that the heals of other, earlier partitions do not end.
     */
    private void isolateForAWhile(int node) {
        int token = network.isolate(node);
        queue.after(faultRandom.uniform(HANDOVER_ISOLATION_MIN_NANOS, SimTiming.PARTITION_MAX_NANOS),
                () -> network.endIsolation(node, token));
    }

    private static final long HANDOVER_ISOLATION_MIN_NANOS = 40 * SimTiming.MILLIS;

    /** Polls for the leader's next commit, every this long, at most {@link #HANDOVER_MAX_POLLS} times. */
    private static final long HANDOVER_POLL_NANOS = 100 * SimTiming.MICROS;
    private static final int HANDOVER_MAX_POLLS = 100;

    /**
     * {@code ISOLATE_AFTER_COMMIT}, the leader-lease race at its widest (docs/leases.md, "Simulator"):
     * the moment the serving leader's commit point advances (its lease entry is as young as it gets) the
     * network cuts it off, it has already lost its election session, and the oracle elects a successor
     * at once; the clocks take the worst drift the world's bound allows (the old leader's slowest, the
     * successor's fastest). A client that watches the oracle writes a key at the successor as soon as it
     * stands for election, and when that write is acknowledged a client whose view of the oracle lags
     * reads the key at the old leader. Every step is something a deployment sees: a partition may start
     * at any instant, a ZooKeeper session can expire before the node notices, and two clients' watches
     * fire at different times. A lease is correct only if that read is not answered from the old state.
     */
    private void awaitCommitThenIsolate(SimNode node, int incarnation, long fromSlot, int polls) {
        queue.after(HANDOVER_POLL_NANOS, () -> {
            if (!world.inFaultPhase() || !node.isUp() || node.incarnation != incarnation
                    || node.replica.role() != Role.LEADER) {
                return;
            }
            if (node.replica.commitSlot() == fromSlot && polls < HANDOVER_MAX_POLLS) {
                awaitCommitThenIsolate(node, incarnation, fromSlot, polls + 1);
                return;
            }
            int n = nodes.length;
            int leader = node.id;
            isolateForAWhile(leader);
            int rival = faultRandom.otherNode(n, leader);
            nodes[leader].clock.setDrift(queue.now(), -leases.driftFaultMaxPpm());
            nodes[rival].clock.setDrift(queue.now(), leases.driftFaultMaxPpm());
            trace.add(0xFA18, leader, rival);
            if (nodes[rival].isUp()) {
                oracle.electBehindBackOf(rival, leader);
                awaitCandidateThenProbe(nodes[rival], nodes[rival].incarnation, leader, 0);
            }
        });
    }

    /** Once {@code successor} stands for election (it heard from the oracle), the two clients act. */
    private void awaitCandidateThenProbe(SimNode successor, int incarnation, int oldLeader, int polls) {
        queue.after(HANDOVER_POLL_NANOS, () -> {
            if (!world.inFaultPhase() || !successor.isUp() || successor.incarnation != incarnation) {
                return;
            }
            if (successor.replica.role() == Role.FOLLOWER) {
                if (polls < HANDOVER_MAX_POLLS) {
                    awaitCandidateThenProbe(successor, incarnation, oldLeader, polls + 1);
                }
                return;
            }
            world.probeStaleRead(successor.id, oldLeader);
        });
    }

    private void scheduleHeal() {
        queue.after(faultRandom.uniform(SimTiming.PARTITION_MIN_NANOS, SimTiming.PARTITION_MAX_NANOS), network::healAll);
    }

    /** The node that leads in the highest ballot right now (the one serving lease reads), or the oracle's leader. */
    private int servingLeader() {
        int best = -1;
        for (SimNode node : nodes) {
            if (node.isUp() && node.replica.role() == Role.LEADER
                    && (best < 0 || node.replica.ownBallot().isAbove(nodes[best].replica.ownBallot()))) {
                best = node.id;
            }
        }
        return best >= 0 ? best : oracle.leader();
    }

    private int upCount() {
        int up = 0;
        for (SimNode node : nodes) {
            up += node.isUp() ? 1 : 0;
        }
        return up;
    }
}
