package io.synod.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Coding changes through the log (docs/erasure.md "Coding changes") under every fault the simulator
 * injects: leaders propose a change between two codings of the same N every 1 to 15 ms of the fault
 * phase (F and X both change, so both the read quorum and the per-entry write quorums move), 300 seeds
 * per pair, no violation; the runs must really choose changes and commit writes.
 */
class CodingChangeSimulationTest {
    static final int SEEDS = Integer.getInteger("synod.codingchange.seeds", 300);

    /** 5,1,3 (Q_R = 4, coded Q_W = 4) and 5,2,1 (Q_R = 3, full copies, Q_W = 3). */
    @Test
    void fiveNodesBetweenOneAndTwoFailures() {
        sweep(SimCoding.rsPaxos(5, 1, 3).withChangesTo(2, 1), 5);
    }

    /** 7,2,3 (Q_R = 5, coded Q_W = 5) and 7,1,5 (Q_R = 6, coded Q_W = 6). */
    @Test
    void sevenNodesBetweenTwoAndOneFailures() {
        sweep(SimCoding.rsPaxos(7, 2, 3).withChangesTo(1, 5), 7);
    }

    private static void sweep(SimCoding coding, int nodes) {
        SimConfig base = SimConfig.defaults(nodes, FaultProfile.ALL).withCoding(coding);
        List<String> failures = new ArrayList<>();
        long proposed = 0;
        long applied = 0;
        long writes = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            Simulation.CodingChangeRun run = Simulation.runWithCodingChanges(base.withSeed(seed), SimLeases.NONE);
            if (!run.result().passed()) {
                failures.add(run.result().summaryLine());
            }
            proposed += run.proposed();
            applied += run.applied();
            writes += run.result().traffic().committedWrites();
        }
        System.out.printf("coding changes %s: %d seeds, %d changes proposed, %d applied, %d writes committed%n", coding, SEEDS,
                proposed, applied, writes);
        assertEquals(List.of(), failures, failures.size() + " violating seed(s)");
        assertTrue(applied > SEEDS * 3L, "coding changes applied: " + applied);
        assertTrue(writes > SEEDS * 20L, "writes committed: " + writes);
    }
}
