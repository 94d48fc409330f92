package io.synod.sim;

import io.synod.leases.KeyExtractor;
import io.synod.leases.LeaderLease;
import io.synod.leases.LeaderLeaseConfig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.sim.FaultProfile;
import io.synod.sim.SimConfig;
import io.synod.sim.SimLeases;
import io.synod.sim.SimResult;
import io.synod.sim.Simulation;
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
    void leaderLeaseSeed7971QuiescesAfterTheLastingIsolation() {
        // Regression (docs/simulator.md, "CheckQuorum"): the liveness phase's cut-off leader was still cut
        // 50 ms into the 100 ms quiesce window; that window now starts once the cut has ended.
        SimResult result = Simulation.run(SimConfig.defaults(5, FaultProfile.ALL).withSeed(7971),
                SimLeaseModes.world(SimLeaseModes.Mode.LEADER));
        assertTrue(result.passed(), result.summaryLine());
    }

    @Test
    void leaderLeaseSeed6804QuiescesAfterLeadershipSettles() {
        // Regression (docs/simulator.md, "Seed 6804"): the liveness phase's cut-off leader stepped down by
        // CheckQuorum and the cut ended, so the 100 ms quiesce window opened with no leader in office; the
        // re-election took 46 ms of it, and a follower 28 slots behind, catching up 8 slots per round trip
        // from the leader in office (Multi-Paxos: the leader brings followers up to date), ran out of window
        // (LIVENESS). The window now opens again when leadership changed during it.
        SimResult result = Simulation.run(SimConfig.defaults(5, FaultProfile.ALL).withSeed(6804),
                SimLeaseModes.world(SimLeaseModes.Mode.LEADER));
        assertTrue(result.passed(), result.summaryLine());
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

    /**
     * Planned hand-overs (the {@code PLANNED_HANDOVER} event of the leader-lease worlds, LeaseGuard's
     * end-lease entry): successors that find the entry at their commit point skip the deferred-commit wait,
     * and the history stays linearizable, with the old leader cut off half of the time and a lagging client
     * reading at it after a write at the successor.
     */
    @Test
    void plannedHandOversLetSuccessorsSkipTheWaitAndStaySafe() {
        for (SimLeaseModes.Mode mode : List.of(SimLeaseModes.Mode.LEADER, SimLeaseModes.Mode.LEADER_TIMER)) {
            List<LeaderLease> policies = new ArrayList<>();
            SimLeases world = SimLeaseModes.world(mode);
            LeaderLeaseConfig config = mode == SimLeaseModes.Mode.LEADER ? LeaderLeaseConfig.bounded(SimLeaseModes.LEASE_NANOS)
                    : LeaderLeaseConfig.timer(SimLeaseModes.LEASE_NANOS, SimLeaseModes.TIMER_DRIFT_PPM);
            SimLeases counted = new SimLeases(world.name(), (nodeId, clusterSize) -> {
                LeaderLease policy = new LeaderLease(config, KeyExtractor.KV);
                policies.add(policy);
                return policy;
            }, world.clockUncertaintyNanos(), world.driftFaultMaxPpm(), world.monotonicJumps(), world.initialDriftMaxPpm(),
                    world.isolationDeposes(), world.handoverFaults());
            Sweep sweep = sweep(SimConfig.defaults(3, FaultProfile.NET), counted, 1, 100);
            assertClean(sweep);
            long shortcuts = policies.stream().mapToLong(LeaderLease::handOverShortcuts).sum();
            System.out.printf("planned hand-overs (%s): %d successors skipped the deferred-commit wait%n", mode.cliName(), shortcuts);
            assertTrue(shortcuts > 0, "no successor ever found an end-lease entry at its commit point");
        }
    }

    @Test
    void withoutLeasesNoReadIsLocal() {
        Sweep sweep = sweep(SimConfig.defaults(3, FaultProfile.ALL), SimLeases.NONE, 1, 30);
        assertEquals(List.of(), sweep.failures());
        assertEquals(0, sweep.localReads());
    }
}
