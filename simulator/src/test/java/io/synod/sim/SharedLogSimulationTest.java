package io.synod.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;

/**
 * Several groups per node over one node log ({@link SimGroups}, {@link SimNodeLog}): the groups' checks pass under
 * every fault, one fsync covers several groups' records, one group is the one-group simulator, and the negative
 * control only a shared log can show is caught (docs/simulator.md, "Groups and the node log").
 */
class SharedLogSimulationTest {
    private static final int GROUPS = 3;
    private static final int MAX_SEEDS = 100;

    @Test
    void severalGroupsOnOneLogPassEveryCheckAndShareFsyncs() {
        long syncs = 0;
        long requests = 0;
        long shared = 0;
        for (long seed = 1; seed <= 8; seed++) {
            SimGroups world = Simulation.world(SimConfig.defaults(5, FaultProfile.ALL).withSeed(seed), SimLeases.NONE, GROUPS);
            SimResult result = world.run();
            assertTrue(result.passed(), result.summaryLine());
            long[] counts = world.logCounts();
            syncs += counts[0];
            requests += counts[1];
            shared += counts[2];
        }
        System.out.println(GROUPS + " groups, seeds 1..8: " + syncs + " node-log fsyncs made " + requests
                + " persist requests durable; " + shared + " of them covered several groups");
        // Group commit across groups: some fsyncs made several groups' requests durable at once.
        assertTrue(shared > 0, "no fsync covered requests of two groups (" + syncs + " fsyncs)");
        assertTrue(requests > syncs, requests + " requests in " + syncs + " fsyncs");
    }

    @Test
    void oneGroupIsTheOneGroupSimulatorAndMoreGroupsTakeOtherPaths() {
        SimConfig config = SimConfig.defaults(3, FaultProfile.ALL).withSeed(5);
        SimResult single = Simulation.run(config, SimLeases.NONE);
        SimResult oneGroup = Simulation.run(config, SimLeases.NONE, 1);
        assertEquals(single.traceHash(), oneGroup.traceHash());
        assertEquals(single.history(), oneGroup.history());
        SimResult three = Simulation.run(config, SimLeases.NONE, GROUPS);
        SimResult again = Simulation.run(config, SimLeases.NONE, GROUPS);
        assertNotEquals(single.traceHash(), three.traceHash());
        assertEquals(three.traceHash(), again.traceHash(), "replaying a seed of three groups");
        assertTrue(three.operations() > 2 * single.operations(), "every group's clients ran: " + three.operations() + " ops");
    }

    /**
     * The node log's fsync completes requests appended after it started: a group acknowledges what the next crash
     * loses (Ready contract: nothing that depends on an entry leaves before the fsync that covers it). With one group
     * no request waits for another's fsync, so the same seed passes.
     */
    @Test
    void anFsyncThatCompletesUncoveredRequestsIsCaught() {
        SimConfig base = SimConfig.defaults(3, FaultProfile.ALL).withMutation(Mutation.SHARED_FSYNC_SKIPS_GROUP);
        SimResult caught = firstViolation(base);
        assertEquals(SimViolation.Kind.ACK_NOT_DURABLE, caught.violations().get(0).kind(), caught.summaryLine());
        assertTrue(caught.violations().get(0).description().startsWith("group "), "the violation names its group");
        SimResult healthy = Simulation.run(caught.config().withMutation(Mutation.NONE), SimLeases.NONE, GROUPS);
        assertTrue(healthy.passed(), "the same seed without the control: " + healthy.summaryLine());
        SimResult oneGroup = Simulation.run(caught.config(), SimLeases.NONE, 1);
        assertTrue(oneGroup.passed(), "the control with one group: " + oneGroup.summaryLine());
        assertEquals(caught.traceHash(), Simulation.run(caught.config(), SimLeases.NONE, GROUPS).traceHash());
    }

    @Test
    void sendBeforeFsyncIsStillCaughtWithSeveralGroups() {
        SimResult caught = firstViolation(SimConfig.defaults(3, FaultProfile.ALL).withMutation(Mutation.SEND_BEFORE_FSYNC));
        assertTrue(NegativeControlTest.SAFETY.contains(caught.violations().get(0).kind()), caught.summaryLine());
        SimResult healthy = Simulation.run(caught.config().withMutation(Mutation.NONE), SimLeases.NONE, GROUPS);
        assertTrue(healthy.passed(), "the same seed without the control: " + healthy.summaryLine());
    }

    private static SimResult firstViolation(SimConfig base) {
        for (long seed = 1; seed <= MAX_SEEDS; seed++) {
            SimResult result = Simulation.run(base.withSeed(seed), SimLeases.NONE, GROUPS);
            if (!result.passed()) {
                System.out.println(base.mutation().cliName() + " with " + GROUPS + " groups caught: "
                        + result.summaryLine().lines().findFirst().orElse(""));
                return result;
            }
        }
        return fail(base.mutation().cliName() + " was not caught in " + MAX_SEEDS + " seeds of " + GROUPS + " groups");
    }
}
