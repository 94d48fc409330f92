package io.synod.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Workload shape, sites and scripted events of {@link SimScenario}, and that the default changes nothing. */
class SimScenarioTest {

    @Test
    void theDefaultScenarioReplaysTheSameTraceAsAPlainRun() {
        for (long seed = 1; seed <= 5; seed++) {
            SimConfig config = SimConfig.defaults(3, FaultProfile.ALL).withSeed(seed);
            SimResult plain = Simulation.run(config, SimLeases.NONE);
            ScenarioResult scenario = Simulation.runScenario(config, SimLeases.NONE, SimScenario.DEFAULT);
            assertEquals(plain.traceHash(), scenario.result().traceHash(), "seed " + seed);
            assertTrue(scenario.ops().isEmpty(), "default runs record no operations");
        }
    }

    @Test
    void aLatencyMatrixParsesPresetsAndRejectsBadInputByName() {
        LatencyMatrix ec2 = LatencyMatrix.named("ec2-five-sites");
        assertEquals(List.of("JP", "CA", "OR", "VA", "IE"), ec2.sites());
        assertEquals(19_000_000L, ec2.rttNanos(1, 2));
        assertEquals(ec2, LatencyMatrix.parse(ec2.toText()));
        LatencyMatrix inline = LatencyMatrix.parse("A,B,C; 0,20,80; 20,0,70.5; 80,70,0 # comment");
        assertEquals(35_250_000L, inline.oneWayNanos(1, 2));
        assertEquals(80_000_000L, inline.maxRttNanos());
        assertThrows(IllegalArgumentException.class, () -> LatencyMatrix.named("mars"));
        String message = assertThrows(IllegalArgumentException.class, () -> LatencyMatrix.parse("A,B; 0,x; 1,0")).getMessage();
        assertTrue(message.contains("'x' is not a number"), message);
        message = assertThrows(IllegalArgumentException.class, () -> LatencyMatrix.parse("A,B; 0,1")).getMessage();
        assertTrue(message.contains("need 2 rows"), message);
        message = assertThrows(IllegalArgumentException.class, () -> LatencyMatrix.parse("A,B; 5,1; 1,0")).getMessage();
        assertTrue(message.contains("to itself must be 0"), message);
        message = assertThrows(IllegalArgumentException.class, () -> LatencyMatrix.parse("A,A; 0,1; 1,0")).getMessage();
        assertTrue(message.contains("distinct"), message);
    }

    @Test
    void geoClientsAtSitesSeeTheirSitesLatencyAndEachSiteHasItsOwnHotKeys() {
        LatencyMatrix matrix = LatencyMatrix.parse("A,B,C; 0,20,80; 20,0,70; 80,70,0");
        SimConfig config = SimConfig.defaults(3, FaultProfile.NONE).withSeed(3).withOpsPerSeed(600)
                .withWorkload(6, 50, false, 90, 1_000_000L);
        SimScenario scenario = SimScenario.DEFAULT.withZipf(1.5).withSites(matrix, 2, true)
                .withClientRetries(SimScenario.geoClientTimeoutNanos(matrix), 0).withElection(0, 0);
        ScenarioResult run = Simulation.runScenario(config, SimLeases.NONE, scenario);
        assertTrue(run.result().passed(), run.result().summaryLine());
        Map<Integer, Map<String, Integer>> keysBySite = new HashMap<>();
        for (SimOp op : run.ops()) {
            assertTrue(op.site() >= 0 && op.site() < 3, op.toString());
            keysBySite.computeIfAbsent(op.site(), s -> new HashMap<>()).merge(op.key(), 1, Integer::sum);
            if (op.outcome() == SimOp.Outcome.OK && op.write()) {
                // A write travels to the leader (node 0, preferred) and needs a majority: at least the
                // client's own distance to it and back, plus node 0's nearest follower round trip (20 ms).
                assertTrue(op.latencyNanos() >= matrix.rttNanos(op.site(), 0) + 20_000_000L, op.toString());
            }
        }
        assertEquals(3, keysBySite.size());
        String hotA = hottest(keysBySite.get(0));
        String hotB = hottest(keysBySite.get(1));
        String hotC = hottest(keysBySite.get(2));
        assertTrue(!hotA.equals(hotB) || !hotB.equals(hotC), "per-site permutations: " + hotA + " " + hotB + " " + hotC);
        // The same run replays exactly.
        assertEquals(run.result().traceHash(), Simulation.runScenario(config, SimLeases.NONE, scenario).result().traceHash());
        // And the per-site order is part of the run: without it, the trace differs.
        assertNotEquals(run.result().traceHash(), Simulation.runScenario(config, SimLeases.NONE,
                scenario.withSites(matrix, 2, false)).result().traceHash());
    }

    @Test
    void aScriptedLeaderCrashLeavesTheAskedLimboRegion() {
        SimConfig config = SimConfig.defaults(3, FaultProfile.NONE).withSeed(5).withOpsPerSeed(2000)
                .withWorkload(400, 100, false, 50, 1_000_000L);
        SimScenario scenario = SimScenario.DEFAULT.withClientRetries(100_000_000L, 40).withElection(50_000_000L, -1)
                .withLeaderCrash(300_000_000L, 40, 0).withPipelineSlots(200).withInvokeUntil(900_000_000L);
        ScenarioResult run = Simulation.runScenario(config, SimLeases.NONE, scenario);
        assertTrue(run.result().passed(), run.result().summaryLine());
        assertTrue(run.crashedNode() >= 0 && run.crashNanos() >= 300_000_000L, "crashed " + run.crashedNode() + " at " + run.crashNanos());
        assertTrue(run.limboAtCrash() >= 40, "limbo " + run.limboAtCrash());
        ScenarioResult.Election next = run.firstElectionAfter(run.crashNanos());
        assertTrue(next != null && next.node() != run.crashedNode(), String.valueOf(next));
        // Exactly the election timeout after the crash, plus the oracle's announcement delay (at most 2 ms).
        long delay = next.atNanos() - run.crashNanos();
        assertTrue(delay >= 50_000_000L && delay <= 53_000_000L, "elected " + delay + " ns after the crash");
    }

    @Test
    void aScriptedCrashOfANamedNonLeaderTakesThatNodeDownAndNoElectionFollows() {
        SimConfig config = SimConfig.defaults(3, FaultProfile.NONE).withSeed(5).withOpsPerSeed(600)
                .withWorkload(40, 20, false, 50, 1_000_000L);
        SimScenario scenario = SimScenario.DEFAULT.withClientRetries(100_000_000L, 40).withElection(50_000_000L, 0)
                .withNodeCrash(200_000_000L, 2, 100_000_000L).withInvokeUntil(500_000_000L);
        ScenarioResult run = Simulation.runScenario(config, SimLeases.NONE, scenario);
        assertTrue(run.result().passed(), run.result().summaryLine());
        assertEquals(2, run.crashedNode());
        assertEquals(200_000_000L, run.crashNanos());
        ScenarioResult.Election next = run.firstElectionAfter(run.crashNanos());
        assertTrue(next == null || next.atNanos() >= 500_000_000L, "the leader (node 0) kept leading through the fault phase: " + next);
        assertThrows(IllegalArgumentException.class, () -> SimScenario.DEFAULT.withNodeCrash(1, -1, 0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Simulation.runScenario(config,
                SimLeases.NONE, SimScenario.DEFAULT.withNodeCrash(1, 3, 0)));
        assertTrue(e.getMessage().contains("crashed node 3 is not a node of 3"), e.getMessage());
    }

    @Test
    void scenarioArgumentsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> SimScenario.DEFAULT.withZipf(-1));
        assertThrows(IllegalArgumentException.class, () -> SimScenario.DEFAULT.withSites(null, 2, false));
        assertThrows(IllegalArgumentException.class, () -> SimScenario.DEFAULT.withLeaderCrash(-1, 5, 0));
        LatencyMatrix five = LatencyMatrix.named("ec2-five-sites");
        SimConfig three = SimConfig.defaults(3, FaultProfile.NONE);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Simulation.runScenario(three, SimLeases.NONE, SimScenario.DEFAULT.withSites(five, 0, false)));
        assertTrue(e.getMessage().contains("5 sites but the group has 3 nodes"), e.getMessage());
    }

    @Test
    void theQuiescePhaseGivesTheFarthestSiteTimeToHearOfTheLastCommit() {
        // ec2-five-sites: 212 ms RTT between Japan and Ireland, so the leader's heartbeat carrying the last
        // commit takes more than 100 ms to reach the farthest follower. With the LAN's 100 ms quiesce these
        // seeds ended with a follower one to four slots behind (LIVENESS, 10 of the first 20 seeds);
        // with two RTTs more every replica converges (after at most 110 ms in 100 seeds).
        LatencyMatrix ec2 = LatencyMatrix.named("ec2-five-sites");
        SimScenario scenario = SimScenario.DEFAULT.withSites(ec2, 0, false)
                .withClientRetries(SimScenario.geoClientTimeoutNanos(ec2), 0);
        for (long seed : new long[] {1, 3}) {
            ScenarioResult run = Simulation.runScenario(SimConfig.defaults(5, FaultProfile.ALL).withSeed(seed), SimLeases.NONE,
                    scenario);
            assertTrue(run.result().passed(), run.result().summaryLine());
        }
    }

    private static String hottest(Map<String, Integer> counts) {
        return counts.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    }
}
