package io.synod.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Sessions, ephemeral keys and leader-decided expiry under the simulator's faults ({@link SessionWorkload}): clean
 * seeds must pass every check (session invariants on every node after every batch, the same sessions and owned keys
 * at the same slot on every replica, identical final snapshots, a linearizable list-append history beside them);
 * the negative control, followers expiring sessions on their own clocks, must be caught.
 */
class SessionSimulationTest {

    @Test
    void sessionsStayConsistentUnderEveryFaultProfile() {
        int grants = 0;
        int expiries = 0;
        int ended = 0;
        for (FaultProfile profile : FaultProfile.values()) {
            for (long seed = 1; seed <= 30; seed++) {
                SessionWorkload workload = new SessionWorkload(SessionWorkload.Options.defaults());
                SimResult result = Simulation.runWithSessions(SimConfig.defaults(3, profile).withSeed(seed), workload);
                assertTrue(result.passed(), profile + " seed " + seed + ": " + result.summaryLine());
                SessionWorkload.Stats stats = workload.stats();
                assertEquals(0, stats.localExpiries());
                grants += stats.grants();
                expiries += stats.expiriesProposed();
                ended += stats.sessionsEndedUnderClient();
            }
        }
        System.out.println("session sweep: 150 seeds passed; " + grants + " grants, " + expiries
                + " expiries proposed by leaders, " + ended + " sessions found ended by their clients");
        // The checks above must have had something to check: sessions granted, and expired by the leader while
        // their clients were silent (clients then find their session gone).
        assertTrue(grants > 50, "grants: " + grants);
        assertTrue(expiries > 10, "expiries proposed: " + expiries);
        assertTrue(ended > 5, "sessions found ended by their clients: " + ended);
    }

    @Test
    void seedsReplayExactly() {
        SimConfig config = SimConfig.defaults(3, FaultProfile.ALL).withSeed(7);
        SimResult first = Simulation.runWithSessions(config, new SessionWorkload(SessionWorkload.Options.defaults()));
        SimResult second = Simulation.runWithSessions(config, new SessionWorkload(SessionWorkload.Options.defaults()));
        assertEquals(first.traceHash(), second.traceHash());
    }

    @Test
    void followersExpiringSessionsOnTheirOwnClocksAreCaught() {
        SimResult caught = null;
        SessionWorkload caughtWorkload = null;
        for (long seed = 1; seed <= 100 && caught == null; seed++) {
            SessionWorkload workload = new SessionWorkload(SessionWorkload.Options.defaults().withFollowerLocalExpiry());
            SimResult result = Simulation.runWithSessions(SimConfig.defaults(3, FaultProfile.ALL).withSeed(seed), workload);
            if (!result.passed()) {
                caught = result;
                caughtWorkload = workload;
            }
        }
        assertNotNull(caught, "a follower expiring sessions off the log was not caught in 100 seeds");
        System.out.println("follower-local expiry caught: " + caught.summaryLine().lines().findFirst().orElse(""));
        assertTrue(caughtWorkload.stats().localExpiries() > 0);
        assertEquals(SimViolation.Kind.STATE_DIVERGENCE, caught.violations().get(0).kind(), caught.summaryLine());
    }
}
