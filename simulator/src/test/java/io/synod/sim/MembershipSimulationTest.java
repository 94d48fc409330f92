package io.synod.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Membership changes (docs/membership.md) under every fault the simulator injects: five nodes, three voting
 * and two spares, and leaders replacing voters (add a learner, promote it, remove a voter, a crashed one
 * first) through the fault phase; no violation, and the runs must really change the membership and commit
 * writes.
 */
class MembershipSimulationTest {
    static final int SEEDS = Integer.getInteger("synod.membership.seeds", 200);

    @Test
    void fiveNodesReplaceVotersUnderEveryFault() {
        SimConfig base = SimConfig.defaults(5, FaultProfile.ALL).withMembershipChanges(true)
                .withMutation(Mutation.fromCliName(System.getProperty("synod.membership.mutation", "none")));
        List<String> failures = new ArrayList<>();
        long proposed = 0;
        long refused = 0;
        long applied = 0;
        long writes = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            SimMembershipChanges.Run run = Simulation.runWithMembershipChanges(base.withSeed(seed), SimLeases.NONE);
            if (!run.result().passed()) {
                failures.add(run.result().summaryLine());
            }
            proposed += run.proposed();
            refused += run.refused();
            applied += run.applied();
            writes += run.result().traffic().committedWrites();
        }
        System.out.printf("membership changes: %d seeds, %d changes proposed, %d refused, %d applied, %d writes committed%n",
                SEEDS, proposed, refused, applied, writes);
        assertEquals(List.of(), failures, failures.size() + " violating seed(s)");
        assertTrue(applied > SEEDS * 3L, "membership changes applied: " + applied);
        assertTrue(writes > SEEDS * 20L, "writes committed: " + writes);
    }
}
