package io.synod.sim;

import java.util.List;

/**
 * What a scenario run ({@link Simulation#runScenario}) observed besides the checked {@link SimResult}.
 *
 * @param result          the seed's result (violations, trace hash, checked history)
 * @param ops             every completed client operation of the clients, in completion order
 * @param elections       every Elected announcement delivered to a node, in order
 * @param crashedNode     the node of the scripted leader crash, or -1 if none happened
 * @param crashNanos      when it crashed, or -1
 * @param limboAtCrash    entries past the crashed leader's commit point when it crashed
 */
public record ScenarioResult(SimResult result, List<SimOp> ops, List<Election> elections, int crashedNode, long crashNanos,
        long limboAtCrash) {
    /** A node was told it leads. */
    public record Election(long atNanos, int node, long epoch) {}

    public ScenarioResult {
        ops = List.copyOf(ops);
        elections = List.copyOf(elections);
    }

    /** The first election after {@code nanos}, or null. */
    public Election firstElectionAfter(long nanos) {
        for (Election election : elections) {
            if (election.atNanos() > nanos) {
                return election;
            }
        }
        return null;
    }
}
