package io.synod.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The negative controls planted in the group driver's handlers ({@code io.synod.engine.DriverControls}): each must
 * fail a run within a few hundred seeds, caught by the check named for it, and the same seed without the bug must
 * pass (so what fails is the bug, not the seed). If one stops being caught, the simulator went blind to that part of
 * the server's runtime.
 */
class DriverNegativeControlTest {
    private static final int MAX_SEEDS = 300;

    @ParameterizedTest
    @EnumSource(value = Mutation.class, names = {"REPLY_BEFORE_FSYNC", "HOLDER_READ_EARLY", "WATCH_OUT_OF_ORDER"})
    void everyDriverBugIsCaughtAndTheHealthyRunPasses(Mutation mutation) {
        // The holder wait exists only under quorum leases (Moraru et al. 2014, §3, rule 4d).
        SimLeases leases = mutation == Mutation.HOLDER_READ_EARLY ? SimLeaseModes.world(SimLeaseModes.Mode.QUORUM)
                : SimLeases.NONE;
        SimViolation.Kind expected = switch (mutation) {
            case REPLY_BEFORE_FSYNC -> SimViolation.Kind.ACK_NOT_DURABLE; // Ready contract: no reply before its fsync
            case HOLDER_READ_EARLY -> SimViolation.Kind.NOT_LINEARIZABLE; // a stale read from a holder
            default -> SimViolation.Kind.WATCH_ORDER; // watch events in slot order, each once
        };
        SimConfig base = SimConfig.defaults(3, FaultProfile.ALL).withMutation(mutation);
        SimResult caught = null;
        for (long seed = 1; seed <= MAX_SEEDS && caught == null; seed++) {
            SimResult result = Simulation.run(base.withSeed(seed), leases);
            if (!result.passed()) {
                caught = result;
            }
        }
        assertNotNull(caught, mutation + " was not caught in " + MAX_SEEDS + " seeds");
        System.out.println(mutation.cliName() + " caught: " + caught.summaryLine().lines().findFirst().orElse(""));
        assertEquals(expected, caught.violations().get(0).kind(), caught.summaryLine());
        SimResult healthy = Simulation.run(caught.config().withMutation(Mutation.NONE), leases);
        assertTrue(healthy.passed(), "the same seed without " + mutation.cliName() + ": " + healthy.summaryLine());
        SimResult replay = Simulation.run(caught.config(), leases);
        assertEquals(caught.traceHash(), replay.traceHash(), "replaying the violating seed");
    }
}
