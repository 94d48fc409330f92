package io.synod.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * RS-Paxos coded accepts (Mu et al. 2014, §4) under every fault the simulator injects: a value-size
 * mix crossing the coding threshold, N = 5, F = 1, X = 3 and N = 7, F = 2, X = 3, 500 seeds each,
 * with deferred follower rebuild (the simulator's default), and 100 seeds of N = 5 with followers
 * rebuilding every value; no violation; the runs must really code values, do recovery reads (with
 * deferral: to rebuild values a read, a command or a snapshot needs) and see corrupted shards.
 */
class RsPaxosSimulationTest {
    static final int SEEDS = Integer.getInteger("synod.rspaxos.seeds", 500);

    @Test
    void fiveNodesOneFailureThreeDataShards() {
        sweep(SimCoding.rsPaxos(5, 1, 3), 5);
    }

    @Test
    void sevenNodesTwoFailuresThreeDataShards() {
        sweep(SimCoding.rsPaxos(7, 2, 3), 7);
    }

    /** Followers that rebuild every coded value to apply it (no deferral): the recovery-read path on every apply. */
    @Test
    void fiveNodesRebuildingEveryValue() {
        sweep(SimCoding.rsPaxosRebuilding(5, 1, 3), 5, SEEDS / 5);
    }

    private static void sweep(SimCoding coding, int nodes) {
        sweep(coding, nodes, SEEDS);
    }

    private static void sweep(SimCoding coding, int nodes, int seeds) {
        SimConfig base = SimConfig.defaults(nodes, FaultProfile.ALL).withCoding(coding);
        List<String> failures = new ArrayList<>();
        long recovery = 0;
        long corrupted = 0;
        long writes = 0;
        for (long seed = 1; seed <= seeds; seed++) {
            SimResult result = Simulation.run(base.withSeed(seed));
            if (!result.passed()) {
                failures.add(result.summaryLine());
            }
            recovery += result.traffic().recoveryBytes();
            corrupted += result.traffic().corruptedShards();
            writes += result.traffic().committedWrites();
        }
        assertEquals(List.of(), failures, failures.size() + " violating seed(s)");
        assertTrue(writes > seeds * 20L, "writes committed: " + writes);
        assertTrue(recovery > 0, "no recovery read happened");
        assertTrue(corrupted > 0, "no shard was corrupted in flight");
    }
}
