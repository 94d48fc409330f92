package io.synod.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.sim.FaultProfile;
import io.synod.sim.SimCoding;
import io.synod.sim.SimConfig;
import io.synod.sim.SimLeases;
import io.synod.sim.SimResult;
import io.synod.sim.SimTraffic;
import io.synod.sim.Simulation;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * RS-Paxos (5, 1, 3) with quorum leases (issue 11: "quorum-lease holders receive full copies for the keys
 * they hold"): the leader sends each key's lease holders the whole value instead of a shard, so they serve
 * local reads of coded values without rebuilding them. 300 seeds with every fault, no violation, local reads
 * checked by the linearizability checker. With {@code -Dsynod.fullcopy.measure=true} the same seeds also run
 * without leases and the bytes per committed write of both are printed (docs/erasure.md).
 */
class CodedQuorumLeaseSimulationTest {
    private static final int SEEDS = Integer.getInteger("synod.fullcopy.seeds", 300);

    private record Totals(long seeds, long ok, long localReads, long phase2, long recovery, long wire, long log, long writes,
            List<String> failures) {
        String perWrite() {
            return String.format("%d phase 2, %d recovery reads, %d on the wire in all, %d in logs (%d writes, %d local reads)",
                    phase2 / writes, recovery / writes, wire / writes, log / writes, writes, localReads);
        }
    }

    private static Totals sweep(SimLeases leases, int seeds) {
        SimConfig base = SimConfig.defaults(5, FaultProfile.ALL).withCoding(SimCoding.rsPaxos(5, 1, 3));
        long ok = 0, local = 0, phase2 = 0, recovery = 0, wire = 0, log = 0, writes = 0;
        List<String> failures = new ArrayList<>();
        for (long seed = 1; seed <= seeds; seed++) {
            SimResult result = Simulation.run(base.withSeed(seed), leases);
            if (!result.passed()) {
                failures.add(result.summaryLine());
            }
            SimTraffic traffic = result.traffic();
            ok += result.okOperations();
            local += result.localReads();
            phase2 += traffic.replicationBytes();
            recovery += traffic.recoveryBytes();
            wire += traffic.wireBytes();
            log += traffic.logBytes();
            writes += traffic.committedWrites();
        }
        return new Totals(seeds, ok, local, phase2, recovery, wire, log, writes, failures);
    }

    @Test
    void codedValuesWithQuorumLeasesAtFiveNodesWithAllFaults() {
        Totals quorum = sweep(SimLeaseModes.world(SimLeaseModes.Mode.QUORUM), SEEDS);
        System.out.println("coded 5,1,3 with quorum leases, " + SEEDS + " seeds, per committed write: " + quorum.perWrite());
        assertEquals(List.of(), quorum.failures(), "violating seeds (replay: synod simulate --coding 5,1,3 --lease quorum "
                + "--start-seed S --seeds 1)");
        assertTrue(quorum.writes() > SEEDS * 20L, "writes committed: " + quorum.writes());
        assertTrue(quorum.localReads() > 0, "no local lease read");
        if (Boolean.getBoolean("synod.fullcopy.measure")) {
            Totals none = sweep(SimLeases.NONE, SEEDS);
            System.out.println("coded 5,1,3 without leases,   " + SEEDS + " seeds, per committed write: " + none.perWrite());
        }
    }
}
