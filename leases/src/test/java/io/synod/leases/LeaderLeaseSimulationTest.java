package io.synod.leases;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.sim.FaultProfile;
import io.synod.core.sim.SimConfig;
import io.synod.core.sim.SimLeases;
import io.synod.core.sim.SimResult;
import io.synod.core.sim.Simulation;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Leader leases (LeaseGuard, SIGMOD 2026 §3–§4) in the fault simulator: hundreds of seeds with every
 * fault, zero violations, and many reads answered locally — each of them in the history the
 * linearizability checker verifies.
 */
class LeaderLeaseSimulationTest {
    record Sweep(int seeds, long operations, long ok, long localReads, List<String> failures) {}

    static Sweep sweep(SimConfig base, SimLeases leases, long firstSeed, int seeds) {
        long operations = 0;
        long ok = 0;
        long localReads = 0;
        List<String> failures = new ArrayList<>();
        for (long seed = firstSeed; seed < firstSeed + seeds; seed++) {
            SimResult result = Simulation.run(base.withSeed(seed), leases);
            operations += result.operations();
            ok += result.okOperations();
            localReads += result.localReads();
            if (!result.passed()) {
                failures.add(result.summaryLine());
            }
        }
        System.out.printf("lease sweep %s: %d nodes, faults %s, seeds %d..%d: %d ops, %d ok, %d local reads, %d violating seeds%n",
                leases.name(), base.nodes(), base.faults().cliName(), firstSeed, firstSeed + seeds - 1, operations, ok,
                localReads, failures.size());
        return new Sweep(seeds, operations, ok, localReads, failures);
    }

    private static void assertClean(Sweep sweep) {
        assertEquals(List.of(), sweep.failures(), "violating seeds (replay: synod simulate --lease ... --start-seed S --seeds 1)");
        assertTrue(sweep.ok() > sweep.operations() / 3, "too few operations succeeded: " + sweep);
        // Half the operations are reads; a good share of the successful ones must have been local.
        assertTrue(sweep.localReads() > sweep.ok() / 5, "too few local lease reads: " + sweep);
    }

    @Test
    void leaderLeaseFiveHundredSeedsAtThreeNodesWithAllFaults() {
        assertClean(sweep(SimConfig.defaults(3, FaultProfile.ALL), SimLeaseModes.world(SimLeaseModes.Mode.LEADER), 1, 500));
    }

    @Test
    void leaderLeaseFiveHundredSeedsAtFiveNodesWithAllFaults() {
        assertClean(sweep(SimConfig.defaults(5, FaultProfile.ALL), SimLeaseModes.world(SimLeaseModes.Mode.LEADER), 1, 500));
    }

    @Test
    void timerOnlyLeaderLeaseWithDriftMargin() {
        // Clocks drift up to ±20 % from the start (and under clock faults), never jump (§4).
        SimLeases timer = SimLeaseModes.world(SimLeaseModes.Mode.LEADER_TIMER);
        assertClean(sweep(SimConfig.defaults(3, FaultProfile.ALL), timer, 1, 200));
        assertClean(sweep(SimConfig.defaults(5, FaultProfile.ALL), timer, 1, 100));
    }

    @Test
    void withoutLeasesNoReadIsLocal() {
        Sweep sweep = sweep(SimConfig.defaults(3, FaultProfile.ALL), SimLeases.NONE, 1, 30);
        assertEquals(List.of(), sweep.failures());
        assertEquals(0, sweep.localReads());
    }
}
