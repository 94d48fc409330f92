package io.synod.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The membership rules' negative controls (docs/membership.md): with one rule off, the membership world (five
 * nodes, three voting, leaders replacing voters under every fault) must show a safety violation within a few
 * hundred seeds, and the violating seed must replay. {@code membership-swap} and {@code membership-early-promote}
 * are not here: in this design they are availability rules, and the simulator finds no violation without them
 * (docs/membership.md says why).
 */
class MembershipNegativeControlTest {
    private static final int MAX_SEEDS = 300;

    @ParameterizedTest
    @EnumSource(value = Mutation.class, names = {"MEMBERSHIP_STALE_PHASE1", "MEMBERSHIP_LEARNER_VOTES", "MEMBERSHIP_RAFT_RULE",
            "MEMBERSHIP_REUSED_IDENTITY"})
    void everyMembershipRuleIsCaughtWhenSwitchedOff(Mutation mutation) {
        SimConfig base = SimConfig.defaults(5, FaultProfile.ALL).withMembershipChanges(true).withMutation(mutation);
        SimResult caught = null;
        for (long seed = 1; seed <= MAX_SEEDS && caught == null; seed++) {
            SimResult result = Simulation.runWithMembershipChanges(base.withSeed(seed), SimLeases.NONE).result();
            if (!result.passed()) {
                caught = result;
            }
        }
        assertNotNull(caught, mutation + " was not caught in " + MAX_SEEDS + " seeds");
        System.out.println(mutation.cliName() + " caught: " + caught.summaryLine().lines().findFirst().orElse(""));
        SimViolation violation = caught.violations().get(0);
        assertTrue(NegativeControlTest.SAFETY.contains(violation.kind()), mutation + " was caught, but not as a safety violation: " + caught.summaryLine());
        SimResult replay = Simulation.runWithMembershipChanges(caught.config(), SimLeases.NONE).result();
        assertEquals(caught.traceHash(), replay.traceHash(), "replaying the violating seed");
        assertEquals(caught.violations(), replay.violations());
    }
}
