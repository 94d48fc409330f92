package io.synod.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Membership changes (docs/membership.md) under every fault the simulator injects: five nodes, three voting
 * and two spares, and leaders replacing voters (add a learner, promote it, remove a voter, a crashed one
 * first) through the fault phase; no violation, and the runs must really change the membership and commit
 * writes. The same with quorum leases (rules QL1–QL4), Megastore, quorum-auto (QL5) and timer leader leases (LL1),
 * and with RS-Paxos coding 5,1,3 (four voters and one
 * spare, X re-derived from the voters, rule M8), also with more nodes than the code length (rule M9).
 */
class MembershipSimulationTest {
    static final int SEEDS = Integer.getInteger("synod.membership.seeds", 200);
    /** The lease and coding worlds cost several times a plain seed; fewer of them here, 10,000 from the command line. */
    static final int WORLD_SEEDS = Integer.getInteger("synod.membership.world.seeds", 40);

    @Test
    void fiveNodesReplaceVotersUnderEveryFault() {
        SimConfig base = SimConfig.defaults(5, FaultProfile.ALL).withMembershipChanges(true)
                .withMutation(Mutation.fromCliName(System.getProperty("synod.membership.mutation", "none")));
        sweep(base, SimLeases.NONE, SEEDS, 3);
    }

    @Test
    void quorumLeasesFollowTheMembershipUnderEveryFault() {
        SimConfig base = SimConfig.defaults(5, FaultProfile.ALL).withMembershipChanges(true);
        sweep(base, SimLeaseModes.world(SimLeaseModes.Mode.QUORUM), WORLD_SEEDS, 3);
    }

    /** Megastore (rule QL1 with every voter a holder), quorum-auto (QL5) and timer leader leases (LL1). */
    @ParameterizedTest
    @EnumSource(value = SimLeaseModes.Mode.class, names = {"MEGASTORE", "QUORUM_AUTO", "LEADER_TIMER"})
    void everyOtherLeaseModeFollowsTheMembershipUnderEveryFault(SimLeaseModes.Mode mode) {
        SimConfig base = SimConfig.defaults(5, FaultProfile.ALL).withMembershipChanges(true);
        sweep(base, SimLeaseModes.world(mode), WORLD_SEEDS / 2, 2);
    }

    @Test
    void codedGroupsChangeTheirVotersUnderEveryFault() {
        SimConfig base = SimConfig.defaults(5, FaultProfile.ALL).withCoding(SimCoding.rsPaxos(5, 1, 3)).withMembershipChanges(true);
        sweep(base, SimLeases.NONE, WORLD_SEEDS, 1);
    }

    /**
     * Rule M9: seven nodes and coding 5,1,3, so ids 5 and 6 are past the code length and get full copies; six vote
     * from the start (id 5 among them) and the spare, id 6, is added, promoted, and a voter removed.
     */
    @Test
    void idsBeyondTheCodeGetFullCopiesUnderEveryFault() {
        SimConfig base = SimConfig.defaults(7, FaultProfile.ALL).withCoding(SimCoding.rsPaxos(5, 1, 3)).withMembershipChanges(true);
        sweep(base, SimLeases.NONE, WORLD_SEEDS / 2, 1);
    }

    private static void sweep(SimConfig base, SimLeases leases, int seeds, int changesPerSeed) {
        List<String> failures = new ArrayList<>();
        long proposed = 0;
        long refused = 0;
        long applied = 0;
        long writes = 0;
        for (long seed = 1; seed <= seeds; seed++) {
            SimMembershipChanges.Run run = Simulation.runWithMembershipChanges(base.withSeed(seed), leases);
            if (!run.result().passed()) {
                failures.add(run.result().summaryLine());
            }
            proposed += run.proposed();
            refused += run.refused();
            applied += run.applied();
            writes += run.result().traffic().committedWrites();
        }
        System.out.printf("membership changes (%s, coding %s): %d seeds, %d changes proposed, %d refused, %d applied, %d writes committed%n",
                leases.name(), base.coding(), seeds, proposed, refused, applied, writes);
        assertEquals(List.of(), failures, failures.size() + " violating seed(s)");
        assertTrue(applied > (long) seeds * changesPerSeed, "membership changes applied: " + applied);
        assertTrue(writes > seeds * 20L, "writes committed: " + writes);
    }
}
