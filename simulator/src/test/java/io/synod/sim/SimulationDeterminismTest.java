package io.synod.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A seed is a complete description of a run: replaying it must reproduce it exactly. */
class SimulationDeterminismTest {
    @ParameterizedTest
    @EnumSource(FaultProfile.class)
    void theSameSeedReplaysToTheSameTraceAndHistory(FaultProfile faults) {
        SimConfig config = SimConfig.defaults(5, faults).withSeed(4242);
        SimResult first = Simulation.run(config);
        SimResult second = Simulation.run(config);
        assertEquals(first.traceHash(), second.traceHash(), "trace hash of a replayed seed");
        assertEquals(first.history(), second.history(), "history of a replayed seed");
        assertEquals(first.events(), second.events());
        assertEquals(first.simulatedNanos(), second.simulatedNanos());
        assertEquals(first.violations(), second.violations());
        assertTrue(first.history().events().size() >= 2 * config.opsPerSeed() - config.workers(),
                "every operation was recorded: " + first.history().events().size() + " events");
    }

    @ParameterizedTest
    @EnumSource(FaultProfile.class)
    void differentSeedsTakeDifferentPaths(FaultProfile faults) {
        SimResult a = Simulation.run(SimConfig.defaults(3, faults).withSeed(1));
        SimResult b = Simulation.run(SimConfig.defaults(3, faults).withSeed(2));
        assertNotEquals(a.traceHash(), b.traceHash());
        assertNotEquals(a.history(), b.history());
    }

    @ParameterizedTest
    @EnumSource(Mutation.class)
    void aViolatingSeedReplaysToTheSameViolation(Mutation mutation) {
        SimConfig config = (mutation.needsCoding()
                ? SimConfig.defaults(5, FaultProfile.ALL).withCoding(SimCoding.rsPaxos(5, 1, 3))
                        .withMembershipChanges(mutation.needsMembershipChanges())
                : mutation.needsMembershipChanges() ? SimConfig.defaults(5, FaultProfile.ALL).withMembershipChanges(true)
                : SimConfig.defaults(3, FaultProfile.ALL)).withMutation(mutation).withSeed(7);
        SimResult first = Simulation.run(config);
        SimResult second = Simulation.run(config);
        assertEquals(first.traceHash(), second.traceHash());
        assertEquals(first.violations(), second.violations());
        assertEquals(first.summaryLine(), second.summaryLine());
    }

    @ParameterizedTest
    @EnumSource(FaultProfile.class)
    void aCodedSeedReplaysExactly(FaultProfile faults) {
        SimConfig config = SimConfig.defaults(5, faults).withCoding(SimCoding.rsPaxos(5, 1, 3)).withSeed(11);
        SimResult first = Simulation.run(config);
        SimResult second = Simulation.run(config);
        assertEquals(first.traceHash(), second.traceHash());
        assertEquals(first.history(), second.history());
        assertEquals(first.traffic(), second.traffic());
        assertNotEquals(first.traceHash(), Simulation.run(config.withSeed(12)).traceHash());
    }
}
