package io.synod.sim;

import io.synod.core.history.History;
import java.util.ArrayList;
import java.util.List;

/**
 * One seed's world: G groups hosted by the same N simulated nodes ({@code synod simulate --groups G}), as the server
 * hosts them. Each group is a {@link Simulation} of its own: its replicas (one group driver per node, replica id =
 * node id), election oracle, peer links, clients and workload, fault injector and checks. The groups share what a
 * node shares in the server: simulated time, the trace, and per node its clock, its process (a crash or a pause
 * stops every group of the node; a restart brings them all back) and its log ({@link SimNodeLog}: one fsync for every
 * group's records, one unsynced tail lost at a crash).
 *
 * <p>The phases are the seed's: the liveness phase starts once every group's clients invoked their fault-phase
 * operations, and the final checks run once every group finished its quiesce phase; a violation names its group.
 * With one group this is the one-group simulator, event for event (same trace hashes).
 */
final class SimGroups {
    private final List<Simulation> groups = new ArrayList<>();

    void add(Simulation group) {
        groups.add(group);
    }

    int size() {
        return groups.size();
    }

    /** Whether every group's clients invoked their fault-phase operations. */
    boolean faultPhaseOpsInvoked() {
        for (Simulation group : groups) {
            if (!group.clients.faultPhaseOpsInvoked()) {
                return false;
            }
        }
        return true;
    }

    void startLivenessPhase() {
        for (Simulation group : groups) {
            group.startLivenessPhase();
        }
    }

    /**
     * Node {@code id} crashes: its log loses the unsynced tail of every group (but for a torn prefix), every group's
     * replica on it stops, and all of them come back together after {@code downtimeNanos}.
     */
    void crashNode(int id, long downtimeNanos) {
        Simulation first = groups.get(0);
        for (Simulation group : groups) {
            group.trace.add(0xC4A5, id, group.nodes[id].fsyncing == null ? 0 : 1);
        }
        first.nodes[id].log.crash(first.diskRandom);
        for (Simulation group : groups) {
            group.stopReplica(group.nodes[id]);
        }
        first.queue.after(downtimeNanos, () -> restartNode(id));
    }

    /** Node {@code id} restarts (every group it hosts), if it is down. */
    void restartNode(int id) {
        for (Simulation group : groups) {
            group.restart(group.nodes[id]);
        }
    }

    /** Node {@code id}'s process is paused until {@code untilNanos}: no group's replica on it takes inputs. */
    void pause(int id, long untilNanos) {
        for (Simulation group : groups) {
            SimNode node = group.nodes[id];
            node.pausedUntilNanos = Math.max(node.pausedUntilNanos, untilNanos);
        }
    }

    /** Every node log's fsyncs, the persist requests they covered, and the fsyncs shared by several groups, summed. */
    long[] logCounts() {
        long[] counts = new long[3];
        for (SimNode node : groups.get(0).nodes) {
            counts[0] += node.log.syncs;
            counts[1] += node.log.requestsSynced;
            counts[2] += node.log.sharedSyncs;
        }
        return counts;
    }

    /** Runs the seed to completion: the event loop over every group, then each group's final checks. */
    SimResult run() {
        for (Simulation group : groups) {
            group.begin();
        }
        Simulation first = groups.get(0);
        EventQueue queue = first.queue;
        long maxEvents = first.config.maxEvents() * groups.size();
        while (!done() && violation() == null) {
            if (queue.isEmpty()) {
                first.fail(SimViolation.Kind.BUDGET_EXHAUSTED, "the event queue ran dry in phase " + first.phase);
                break;
            }
            if (first.events >= maxEvents || queue.now() > first.config.maxSimulatedNanos()) {
                first.fail(SimViolation.Kind.BUDGET_EXHAUSTED, "seed did not finish within " + maxEvents + " events and "
                        + first.config.maxSimulatedNanos() / 1_000_000 + " simulated ms (phase " + first.phase + ", outstanding: "
                        + outstanding() + ")");
                break;
            }
            first.events++;
            try {
                queue.fireNext();
            } catch (EventQueue.OverflowException e) {
                first.fail(SimViolation.Kind.BUDGET_EXHAUSTED, e.getMessage() + " (phase " + first.phase + ")");
                break;
            } catch (RuntimeException e) {
                first.fail(SimViolation.Kind.REPLICA_FAILURE, describe(e));
                break;
            }
            for (Simulation group : groups) {
                group.collectViolations();
            }
            for (Simulation group : groups) {
                group.advancePhase();
            }
        }
        for (Simulation group : groups) {
            if (violation() != null) {
                break;
            }
            group.endOfSeed.finalChecks();
        }
        for (Simulation group : groups) {
            group.trace.add(group.clients.history().events().size());
        }
        return result(first);
    }

    private boolean done() {
        for (Simulation group : groups) {
            if (group.phase != Simulation.Phase.DONE) {
                return false;
            }
        }
        return true;
    }

    /** The first violation of any group, or null. */
    private SimViolation violation() {
        for (Simulation group : groups) {
            if (group.violation != null) {
                return group.violation;
            }
        }
        return null;
    }

    private String outstanding() {
        StringBuilder out = new StringBuilder();
        for (Simulation group : groups) {
            out.append(out.length() == 0 ? "" : "; ").append(groups.size() == 1 ? "" : "group " + group.group + ": ")
                    .append(group.clients.outstanding());
        }
        return out.toString();
    }

    /**
     * The seed's result: the first group's history (what {@code --export-history} writes), every group's operations,
     * traffic and counters summed, and every group's violation, named by its group when there are several.
     */
    private SimResult result(Simulation first) {
        List<SimViolation> violations = new ArrayList<>();
        int operations = 0;
        int ok = 0;
        int failed = 0;
        int info = 0;
        long promisePages = 0;
        long snapshotChunks = 0;
        long localReads = 0;
        long acksBeforeApply = 0;
        SimTraffic traffic = null;
        for (Simulation group : groups) {
            if (group.violation != null) {
                SimViolation v = group.violation;
                violations.add(groups.size() == 1 ? v : new SimViolation(v.kind(), v.timeNanos(), "group " + group.group + ": " + v.description()));
            }
            operations += group.clients.invoked();
            ok += group.clients.okCount();
            failed += group.clients.failCount();
            info += group.clients.infoCount();
            promisePages += group.promisePages;
            snapshotChunks += group.snapshotChunks;
            localReads += group.localReads();
            acksBeforeApply += group.safety.acksBeforeApply();
            traffic = sum(traffic, group.trafficResult());
        }
        History history = first.clients.history();
        return new SimResult(first.config, first.environment.name(), first.trace.value(), history, operations, ok, failed, info,
                first.queue.now(), first.events, promisePages, snapshotChunks, violations, traffic, localReads, acksBeforeApply);
    }

    private static SimTraffic sum(SimTraffic a, SimTraffic b) {
        return a == null ? b : new SimTraffic(a.replicationBytes() + b.replicationBytes(), a.catchUpBytes() + b.catchUpBytes(),
                a.recoveryBytes() + b.recoveryBytes(), a.otherBytes() + b.otherBytes(), a.logBytes() + b.logBytes(),
                a.committedWrites() + b.committedWrites(), a.corruptedShards() + b.corruptedShards());
    }

    private static String describe(RuntimeException e) {
        StringBuilder out = new StringBuilder(e.toString());
        StackTraceElement[] stack = e.getStackTrace();
        for (int i = 0; i < Math.min(6, stack.length); i++) {
            out.append("\n    at ").append(stack[i]);
        }
        return out.toString();
    }
}
