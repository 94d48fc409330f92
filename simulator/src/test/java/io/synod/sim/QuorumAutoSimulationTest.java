package io.synod.sim;

import io.synod.leases.AutoAssignment;
import io.synod.leases.KeyExtractor;
import io.synod.leases.QuorumLease;
import io.synod.leases.QuorumLeaseConfig;

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
 * Quorum leases whose configurations go through the log, assigned from read statistics
 * ({@code simulate --lease quorum-auto}), in the fault simulator: 500 seeds at 3 and at 5 nodes with
 * every fault, zero violations, configuration changes in the seeds (counted, so a mode that silently
 * stayed static would fail), and reads answered locally under them, each one checked.
 */
class QuorumAutoSimulationTest {
    private static void sweep(int nodes) {
        int seeds = Integer.getInteger("synod.qlAutoSeeds", 500);
        QuorumLeaseConfig config = SimLeaseModes.quorumAutoConfig(SimLeaseModes.LEASE_NANOS);
        AutoAssignment auto = SimLeaseModes.autoAssignment();
        List<QuorumLease> instances = new ArrayList<>();
        SimLeases world = SimLeases.of("quorum-auto", (nodeId, clusterSize) -> {
            QuorumLease lease = new QuorumLease(config, KeyExtractor.KV, QuorumLease.ReadObserver.NONE, auto);
            instances.add(lease);
            return lease;
        }).withDriftWithin(SimLeaseModes.QUORUM_DRIFT_PPM, false);
        SimConfig base = SimConfig.defaults(nodes, FaultProfile.ALL);
        long operations = 0;
        long ok = 0;
        long localReads = 0;
        long proposed = 0;
        long seedsWithChanges = 0;
        List<String> failures = new ArrayList<>();
        for (long seed = 1; seed <= seeds; seed++) {
            instances.clear();
            SimResult result = Simulation.run(base.withSeed(seed), world);
            operations += result.operations();
            ok += result.okOperations();
            localReads += result.localReads();
            long seedProposed = 0;
            boolean applied = false;
            for (QuorumLease lease : instances) {
                seedProposed += lease.configurationsProposed();
                applied |= lease.configuration() != null && lease.configuration().version() > 0;
            }
            proposed += seedProposed;
            seedsWithChanges += applied ? 1 : 0;
            if (!result.passed()) {
                failures.add(result.summaryLine());
            }
        }
        instances.clear();
        System.out.printf("quorum-auto sweep: %d nodes, all faults, seeds 1..%d: %d ops, %d ok, %d local reads, %d configuration"
                + " entries proposed, %d seeds ended under a configuration from the log, %d violating seeds%n", nodes, seeds, operations,
                ok, localReads, proposed, seedsWithChanges, failures.size());
        assertEquals(List.of(), failures, "violating seeds (replay: synod simulate --lease quorum-auto --start-seed S --seeds 1)");
        assertTrue(ok > operations / 3, "too few operations succeeded: " + ok + " of " + operations);
        assertTrue(localReads > ok / 20, "too few local lease reads: " + localReads + " of " + ok + " ok operations");
        assertTrue(proposed >= 2L * seeds, "configurations must change repeatedly, got " + proposed + " proposals in " + seeds + " seeds");
        assertTrue(seedsWithChanges >= seeds * 9L / 10, "most seeds must end under a configuration from the log: " + seedsWithChanges);
    }

    @Test
    void quorumAutoAtThreeNodesWithAllFaults() {
        sweep(3);
    }

    @Test
    void quorumAutoAtFiveNodesWithAllFaults() {
        sweep(5);
    }
}
