package io.synod.core.sim;

import io.synod.protocol.ElectionEvent;

/**
 * The simulator's stand-in for ZooKeeper leader election: a failure detector and epoch allocator
 * that the replica must not trust for safety. It elects a node after noticing (with a detection
 * delay) that the leader crashed or resigned. When {@code hostile} it also names two leaders at
 * once (sometimes with the same epoch), hands out stale epochs, announces late and flaps.
 *
 * <p>When the fault phase ends it turns {@link #stabilize() stable}: announcements still in flight
 * from earlier generations are discarded (as a fresh ZooKeeper session would), a fresh epoch above
 * every epoch issued so far is handed to one live node, and resignations lead to a re-election.
 */
final class ElectionOracle {
    /** How the oracle reaches the nodes; implemented by the simulation. */
    interface Notifier {
        void announce(int node, ElectionEvent event, long delayNanos, long generation);

        boolean isUp(int node);
    }

    private final int nodes;
    private final SimRandom random;
    private final Notifier notifier;
    private final EventQueue queue;
    private boolean hostile;
    private long nextEpoch = 1;
    private int leader = -1;
    private long generation;
    /** True while a re-election is already scheduled, so repeated triggers do not pile up. */
    private boolean electionPending;
    /** Elections held so far (every {@code elect}), so a watcher can tell a new one happened. */
    private long elections;
    /** Scenario runs: a fixed detection delay (0: drawn in 10-40 ms) and a node to elect whenever it is up (-1: any). */
    private long fixedDetectNanos;
    private int preferred = -1;

    ElectionOracle(int nodes, SimRandom random, Notifier notifier, EventQueue queue, boolean hostile) {
        this.nodes = nodes;
        this.random = random;
        this.notifier = notifier;
        this.queue = queue;
        this.hostile = hostile;
    }

    /** A scenario's election timeout and preferred leader (see {@link SimScenario}). */
    void configure(long detectNanos, int preferredNode) {
        this.fixedDetectNanos = detectNanos;
        this.preferred = preferredNode;
    }

    int leader() {
        return leader;
    }

    /** The newest epoch issued so far (0 before the first), what the epoch watch reports. */
    long issuedEpoch() {
        return nextEpoch - 1;
    }

    long generation() {
        return generation;
    }

    long elections() {
        return elections;
    }

    void start() {
        scheduleElection();
    }

    /** The node's replica resigned: it could not finish phase 1, or learned its epoch is stale. */
    void onResign(int node) {
        if (node == leader) {
            scheduleElection();
        }
    }

    void onCrash(int node) {
        if (node == leader) {
            scheduleElection();
        }
    }

    /** A restarted node learns who leads (a ZooKeeper watch set on session start). */
    void onRestart(int node) {
        if (leader >= 0 && leader != node) {
            notifier.announce(node, new ElectionEvent.LeaderIs(leader), notifyDelay(), generation);
        }
    }

    /** Faults are over: forget in-flight announcements and elect once with a fresh epoch. */
    void stabilize() {
        hostile = false;
        generation++;
        electionPending = false;
        scheduleElection();
    }

    /** Hostile: two nodes told they lead, with the same epoch half of the time. */
    void nameTwoLeaders() {
        int first = random.nextInt(nodes);
        int second = random.otherNode(nodes, first);
        long epoch = nextEpoch++;
        long secondEpoch = random.chance(0.5) ? epoch : nextEpoch++;
        notifier.announce(first, new ElectionEvent.Elected(epoch), notifyDelay(), generation);
        notifier.announce(second, new ElectionEvent.Elected(secondEpoch), notifyDelay(), generation);
        leader = random.chance(0.5) ? first : second;
    }

    /**
     * Hostile: {@code node} is elected with a fresh epoch, and everyone but {@code deposed} hears of
     * it; the deposed leader goes on believing it leads (its session looked alive to it).
     */
    void electBehindBackOf(int node, int deposed) {
        leader = node;
        long epoch = nextEpoch++;
        notifier.announce(node, new ElectionEvent.Elected(epoch), notifyDelay(), generation);
        for (int other = 0; other < nodes; other++) {
            if (other != node && other != deposed) {
                notifier.announce(other, new ElectionEvent.LeaderIs(node), notifyDelay(), generation);
            }
        }
    }

    /** Hostile: a node is handed an epoch that was issued before (a stale read of the epoch counter). */
    void handOutStaleEpoch() {
        if (nextEpoch <= 1) {
            return;
        }
        int node = random.nextInt(nodes);
        notifier.announce(node, new ElectionEvent.Elected(1 + random.nextInt((int) Math.min(nextEpoch - 1, 1 << 20))),
                notifyDelay(), generation);
    }

    /** Hostile: leadership moves for no reason, and some nodes hear about it late or are told nobody leads. */
    void flap() {
        elect(random.nextInt(nodes));
        int confused = random.nextInt(nodes);
        notifier.announce(confused, new ElectionEvent.LeaderIs(-1), notifyDelay(), generation);
    }

    private void scheduleElection() {
        if (electionPending) {
            return;
        }
        electionPending = true;
        long scheduledGeneration = generation;
        long detect = fixedDetectNanos > 0 ? fixedDetectNanos
                : random.uniform(SimTiming.ORACLE_DETECT_MIN_NANOS, SimTiming.ORACLE_DETECT_MAX_NANOS);
        queue.after(detect, () -> {
            if (scheduledGeneration != generation) {
                return;
            }
            electionPending = false;
            int candidate = pickLiveNode();
            if (candidate >= 0) {
                elect(candidate);
            } else {
                leader = -1;
                // Nobody is up: look again later rather than electing a dead node.
                scheduleElection();
            }
        });
    }

    private void elect(int node) {
        elections++;
        leader = node;
        long epoch = nextEpoch++;
        notifier.announce(node, new ElectionEvent.Elected(epoch), notifyDelay(), generation);
        for (int other = 0; other < nodes; other++) {
            if (other != node) {
                notifier.announce(other, new ElectionEvent.LeaderIs(node), notifyDelay(), generation);
            }
        }
    }

    private int pickLiveNode() {
        if (preferred >= 0 && notifier.isUp(preferred)) {
            return preferred;
        }
        int start = random.nextInt(nodes);
        for (int i = 0; i < nodes; i++) {
            int node = (start + i) % nodes;
            if (notifier.isUp(node)) {
                return node;
            }
        }
        return -1;
    }

    private long notifyDelay() {
        if (hostile && random.chance(0.2)) {
            return random.uniform(SimTiming.ORACLE_NOTIFY_MAX_NANOS, SimTiming.ORACLE_LATE_MAX_NANOS);
        }
        return random.uniform(SimTiming.MICROS * 100, SimTiming.ORACLE_NOTIFY_MAX_NANOS);
    }
}
