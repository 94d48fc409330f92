package io.synod.core.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.LeaseHooks;
import io.synod.core.paxos.Role;
import io.synod.protocol.KvCommand;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The simulator's own checks must be able to fire: each is provoked here once. */
class SimulationChecksTest {
    private static Entry entry(long slot, long clientId, long sequence) {
        return new Entry(slot, new Ballot(1, 0), new Command(clientId, sequence, new KvCommand.Append("k", sequence).encode()));
    }

    @Test
    void twoCommandsAppliedInOneSlotAreASlotConflict() {
        SafetyMonitor safety = new SafetyMonitor(3);
        safety.onApplied(0, List.of(entry(1, 7, 1), entry(2, 7, 2)), 10);
        safety.onApplied(1, List.of(entry(1, 7, 1)), 20);
        assertNull(safety.violation());
        safety.onApplied(2, List.of(entry(1, 8, 1)), 30);
        assertEquals(SimViolation.Kind.SLOT_CONFLICT, safety.violation().kind());
        assertTrue(safety.violation().description().contains("slot 1"), safety.violation().description());
    }

    @Test
    void aSlotAppliedTwiceInOneIncarnationIsAnOrderViolationButNotAfterARestart() {
        SafetyMonitor safety = new SafetyMonitor(3);
        safety.onApplied(0, List.of(entry(1, 7, 1), entry(2, 7, 2)), 10);
        safety.onRestart(0);
        safety.onApplied(0, List.of(entry(1, 7, 1)), 20);
        assertNull(safety.violation(), "a restarted replica replays its log");
        safety.onApplied(0, List.of(entry(1, 7, 1)), 30);
        assertEquals(SimViolation.Kind.APPLY_ORDER, safety.violation().kind());
    }

    @Test
    void anAcknowledgementForAnotherCommandsSlotIsAMismatch() {
        SafetyMonitor safety = new SafetyMonitor(3);
        safety.onApplied(0, List.of(entry(1, 7, 1)), 10);
        safety.onWriteAcknowledged(0, 7, 1, 1, 20);
        assertNull(safety.violation());
        safety.onWriteAcknowledged(0, 9, 1, 1, 30);
        assertEquals(SimViolation.Kind.ACK_MISMATCH, safety.violation().kind());
    }

    @Test
    void anAcknowledgementForASlotNoReplicaEverAppliesIsAMismatch() {
        SafetyMonitor safety = new SafetyMonitor(3);
        safety.onWriteAcknowledged(1, 7, 1, 5, 20);
        assertNull(safety.violation(), "a quorum-lease leader may answer a chosen write before any replica applies it");
        safety.checkNoUnappliedAcks(40);
        assertEquals(SimViolation.Kind.ACK_MISMATCH, safety.violation().kind());
    }

    @Test
    void anAcknowledgementBeforeTheApplyIsCheckedWhenTheSlotApplies() {
        SafetyMonitor fine = new SafetyMonitor(3);
        fine.onWriteAcknowledged(1, 7, 1, 1, 20);
        fine.onApplied(2, List.of(entry(1, 7, 1)), 30);
        fine.checkNoUnappliedAcks(40);
        assertNull(fine.violation());

        SafetyMonitor wrong = new SafetyMonitor(3);
        wrong.onWriteAcknowledged(1, 7, 1, 1, 20);
        wrong.onApplied(2, List.of(entry(1, 9, 1)), 30);
        assertEquals(SimViolation.Kind.ACK_MISMATCH, wrong.violation().kind());
    }

    @Test
    void aLivenessBoundNoOperationCanMeetIsReported() {
        SimConfig base = SimConfig.defaults(3, FaultProfile.NONE);
        SimConfig impatient = new SimConfig(3, 5, FaultProfile.NONE, Mutation.NONE, base.opsPerSeed(), base.workers(),
                base.keys(), base.zipfKeys(), base.readPercent(), base.meanOpIntervalNanos(), 1_000L,
                base.maxSimulatedNanos(), base.maxEvents(), SimCoding.OFF);
        SimResult result = Simulation.run(impatient);
        assertEquals(SimViolation.Kind.LIVENESS, result.violations().get(0).kind(), result.summaryLine());
    }

    @Test
    void aSeedThatNeedsMoreEventsThanItsBudgetIsReported() {
        SimConfig base = SimConfig.defaults(3, FaultProfile.ALL);
        SimConfig tight = new SimConfig(3, 5, FaultProfile.ALL, Mutation.NONE, base.opsPerSeed(), base.workers(),
                base.keys(), base.zipfKeys(), base.readPercent(), base.meanOpIntervalNanos(), base.livenessBoundNanos(),
                base.maxSimulatedNanos(), 1_000, SimCoding.OFF);
        SimResult result = Simulation.run(tight);
        assertEquals(SimViolation.Kind.BUDGET_EXHAUSTED, result.violations().get(0).kind(), result.summaryLine());
        assertEquals(1_000, result.events());
    }

    @Test
    void aLeasePolicyIsBuiltForEveryIncarnationAndItsLocalReadsAreChecked() {
        int[] built = new int[1];
        // A "lease" that lets the leader read locally whenever it believes it leads: unsafe without a lease.
        LeaseHooksFactory trusting = (node, clusterSize) -> {
            built[0]++;
            return new LeaseHooks() {
                @Override
                public boolean mayServeLocalRead(Role role, Command read, long nowNanos) {
                    return role == Role.LEADER;
                }

                @Override
                public boolean mayCommit(Entry entry, long nowNanos) {
                    return true;
                }

                @Override
                public long requiredAcceptors(Entry entry) {
                    return 0L;
                }
            };
        };
        SimResult caught = null;
        for (long seed = 1; seed <= 100 && caught == null; seed++) {
            SimResult result = Simulation.run(SimConfig.defaults(3, FaultProfile.ALL).withSeed(seed), trusting);
            caught = result.passed() ? null : result;
        }
        assertTrue(caught != null, "stale local reads went unnoticed for 100 seeds");
        assertEquals(SimViolation.Kind.NOT_LINEARIZABLE, caught.violations().get(0).kind(), caught.summaryLine());
        assertTrue(built[0] > 3, "a policy per incarnation, crashes included: built " + built[0]);
    }

    @Test
    void theSweepPagesPromisesAndChunksSnapshots() {
        // The small-messages environments (SimEnvironment) must really exercise paged phase 1 and
        // chunked snapshot transfer, under faults, or the sweep would not test them at all.
        long pages = 0;
        long chunks = 0;
        int smallEnvironments = 0;
        for (long seed = 1; seed <= 100; seed++) {
            SimResult result = Simulation.run(SimConfig.defaults(3, FaultProfile.ALL).withSeed(seed));
            assertTrue(result.passed(), result.summaryLine());
            pages += result.promisePages();
            chunks += result.snapshotChunks();
            smallEnvironments += result.environment().contains("small-messages") ? 1 : 0;
        }
        System.out.printf("seeds 1..100 at 3 nodes: %d small-messages environments, %d promise pages beyond the last, %d snapshot chunks%n",
                smallEnvironments, pages, chunks);
        assertTrue(smallEnvironments >= 10, "small-messages environments drawn: " + smallEnvironments);
        assertTrue(pages >= 100, "promise pages beyond the last: " + pages);
        assertTrue(chunks >= 100, "snapshot chunks delivered: " + chunks);
    }

    @Test
    void theReplicasRunTheStateMachineTheFactoryBuilds() {
        int[] created = new int[1];
        SimStateMachine counting = new SimStateMachine() {
            @Override
            public io.synod.core.paxos.StateMachine create(int nodeId) {
                created[0]++;
                return SimStateMachine.KV.create(nodeId);
            }

            @Override
            public boolean isWriteResult(byte[] result) {
                return SimStateMachine.KV.isWriteResult(result);
            }
        };
        SimConfig config = SimConfig.defaults(3, FaultProfile.CRASH).withSeed(5);
        SimResult withFactory = Simulation.run(config, LeaseHooksFactory.NONE, counting);
        assertTrue(created[0] > 3, "one state machine per incarnation, and crashes restart nodes: " + created[0]);
        assertEquals(Simulation.run(config).traceHash(), withFactory.traceHash(), "the same machine, the same run");
    }
}
