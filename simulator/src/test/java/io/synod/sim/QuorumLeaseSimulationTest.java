package io.synod.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.sim.FaultProfile;
import io.synod.sim.SimConfig;
import io.synod.sim.SimLeases;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Quorum leases (Moraru et al., SoCC 2014, §3) and Megastore leases in the fault simulator: hundreds
 * of seeds with every fault, zero violations, and reads answered locally by lease holders (followers
 * included), each one in the history the linearizability checker verifies.
 */
class QuorumLeaseSimulationTest {
    private static void assertClean(LeaderLeaseSimulationTest.Sweep sweep) {
        assertEquals(List.of(), sweep.failures(), "violating seeds (replay: synod simulate --lease ... --start-seed S --seeds 1)");
        assertTrue(sweep.ok() > sweep.operations() / 3, "too few operations succeeded: " + sweep);
        // The simulated clients stick to the leader once a follower sent them there, and a static
        // hashed configuration leaves the leader without a lease on some keys: fewer local reads than
        // with leader leases, but many (docs/leases.md has the counts).
        assertTrue(sweep.localReads() > sweep.ok() / 20, "too few local lease reads: " + sweep);
    }

    private static SimLeases world(SimLeaseModes.Mode mode) {
        return SimLeaseModes.world(mode);
    }

    @Test
    void quorumLeaseAtThreeNodesWithAllFaults() {
        assertClean(LeaderLeaseSimulationTest.sweep(SimConfig.defaults(3, FaultProfile.ALL), world(SimLeaseModes.Mode.QUORUM), 1,
                Integer.getInteger("synod.qlSeeds", 500)));
    }

    @Test
    void quorumLeaseAtFiveNodesWithAllFaults() {
        assertClean(LeaderLeaseSimulationTest.sweep(SimConfig.defaults(5, FaultProfile.ALL), world(SimLeaseModes.Mode.QUORUM), 1,
                Integer.getInteger("synod.qlSeeds", 500)));
    }

    @Test
    void megastoreLeaseAtThreeNodesWithAllFaults() {
        assertClean(LeaderLeaseSimulationTest.sweep(SimConfig.defaults(3, FaultProfile.ALL), world(SimLeaseModes.Mode.MEGASTORE),
                1, Integer.getInteger("synod.qlSeeds", 500)));
    }

    @Test
    void megastoreLeaseAtFiveNodesWithAllFaults() {
        assertClean(LeaderLeaseSimulationTest.sweep(SimConfig.defaults(5, FaultProfile.ALL), world(SimLeaseModes.Mode.MEGASTORE),
                1, Integer.getInteger("synod.qlSeeds", 500)));
    }
}
