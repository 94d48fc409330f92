package io.synod.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The membership rules' negative controls (docs/membership.md): with one rule off, the membership world (five
 * nodes, three voting, leaders replacing voters under every fault) must show a safety violation within a few
 * hundred seeds, and the violating seed must replay. {@code membership-swap} and {@code membership-early-promote}
 * are not here: in this design they are availability rules, and the simulator finds no violation without them
 * (docs/membership.md says why).
 */
class MembershipNegativeControlTest {
    private static final int MAX_SEEDS = 300;

    @ParameterizedTest
    @EnumSource(value = Mutation.class, names = {"MEMBERSHIP_STALE_PHASE1", "MEMBERSHIP_LEARNER_VOTES", "MEMBERSHIP_RAFT_RULE",
            "MEMBERSHIP_REUSED_IDENTITY"})
    void everyMembershipRuleIsCaughtWhenSwitchedOff(Mutation mutation) {
        SimConfig base = SimConfig.defaults(5, FaultProfile.ALL).withMembershipChanges(true).withMutation(mutation);
        assertCaught(base, SimLeases.NONE, mutation.cliName());
    }

    /**
     * Rule M8 off on a coded group (5,1,3; four voters and a spare promoted to the fifth): phase 1 counts a plain
     * majority of the voters. First caught at seed 12 (a value chosen with F + X = 4 shards, phase 1 found 2 of the
     * 3 it needs among 3 promises and filled the slot with a no-op), then 19, 52 (2026-11-27).
     */
    @Test
    void codedReadQuorumIsCaughtWhenCountedAsAMajority() {
        SimConfig base = SimConfig.defaults(5, FaultProfile.ALL).withCoding(SimCoding.rsPaxos(5, 1, 3)).withMembershipChanges(true)
                .withMutation(Mutation.MEMBERSHIP_CODED_MAJORITY_READ);
        assertCaught(base, SimLeases.NONE, "membership-coded-majority-read");
    }

    /**
     * Rule M9 off on a coded group with more nodes than the code length (7 nodes, coding 5,1,3: ids 5 and 6 are past
     * the code): replica id i &ge; 5 gets shard {@code i mod 5}, which replica i - 5 holds too, so F + X = 4 acceptances
     * may hold 2 distinct shards where X = 3 are needed. First caught at seed 16 (a slot conflict: a later phase 1 found
     * too few distinct shards of a chosen value and filled the slot with a no-op), then 82, 124; 8 of 300 seeds
     * (2026-11-27).
     */
    @Test
    void sharedShardBeyondTheCodeIsCaught() {
        SimConfig base = SimConfig.defaults(7, FaultProfile.ALL).withCoding(SimCoding.rsPaxos(5, 1, 3)).withMembershipChanges(true)
                .withMutation(Mutation.MEMBERSHIP_SHARED_SHARD);
        assertCaught(base, SimLeases.NONE, "membership-shared-shard");
    }

    /**
     * Rules QL1–QL2 off ({@code ql-ignores-membership}): a holder reads as if all five replicas voted, counting
     * promises of spares and of removed replicas and reading on after its own removal, while writes wait only for
     * the voters. First caught at seed 13, then 66 and 106 (a stale read, 2026-11-27).
     */
    @Test
    void quorumLeaseIgnoringTheMembershipIsCaught() {
        SimConfig base = SimConfig.defaults(5, FaultProfile.ALL).withMembershipChanges(true);
        assertCaught(base, SimLeaseModes.world(SimLeaseModes.Mode.QUORUM, SimLeaseModes.Control.QL_IGNORES_MEMBERSHIP),
                "ql-ignores-membership");
    }

    /**
     * Rules QL1, QL2 and QL5 off under quorum-auto ({@code ql-auto-ignores-membership}): holders read under every
     * replica id, counting promises of spares and removed replicas, while writes wait only for the configuration's
     * holders among the voters. First caught at seed 28, then 64 and 91 (a stale read, 2026-11-27).
     */
    @Test
    void quorumAutoIgnoringTheMembershipIsCaught() {
        SimConfig base = SimConfig.defaults(5, FaultProfile.ALL).withMembershipChanges(true);
        assertCaught(base, SimLeaseModes.world(SimLeaseModes.Mode.QUORUM_AUTO,
                SimLeaseModes.Control.QL_AUTO_IGNORES_MEMBERSHIP), "ql-auto-ignores-membership");
    }

    /**
     * Megastore §4.4.1 as QL1–QL3 carry it, off ({@code megastore-ignores-membership}): a removed replica keeps
     * reading on its leases while the writes after its removal wait only for the voters. First caught at seed 62,
     * then 126 (a stale read, 2026-11-27).
     */
    @Test
    void megastoreIgnoringTheMembershipIsCaught() {
        SimConfig base = SimConfig.defaults(5, FaultProfile.ALL).withMembershipChanges(true);
        assertCaught(base, SimLeaseModes.world(SimLeaseModes.Mode.MEGASTORE,
                SimLeaseModes.Control.MEGASTORE_IGNORES_MEMBERSHIP), "megastore-ignores-membership");
    }

    /**
     * Rule LL1 rests on M3: a timer leader lease is safe across a change only because every quorum that chose an
     * older ballot's entry meets the new leader's phase 1. With M3 off ({@code membership-stale-phase1}) under
     * {@code --lease leader-timer} the unsafe variant is caught, first at seed 122, then 125 (a slot conflict: the
     * new leader's phase 1 missed a chosen value, 2026-11-27).
     */
    @Test
    void timerLeaderLeaseWithAStalePhase1IsCaught() {
        SimConfig base = SimConfig.defaults(5, FaultProfile.ALL).withMembershipChanges(true)
                .withMutation(Mutation.MEMBERSHIP_STALE_PHASE1);
        assertCaught(base, SimLeaseModes.world(SimLeaseModes.Mode.LEADER_TIMER), "membership-stale-phase1 (leader-timer)");
    }

    /**
     * Rule LL1's own control, the lease alone broken ({@code ll-skips-wait-for-removed-leader}): a new leader whose
     * predecessor is no voter of the membership it applied skips its wait of Δ(1+ε), while the removed predecessor,
     * which need not have applied its removal, still leads and reads on its lease. Phase 1 is intact (M3 on), so what
     * is caught is a stale lease read: first at seed 54, then 207 (of 300, {@code NOT_LINEARIZABLE}, 2026-11-27).
     */
    @Test
    void timerLeaderLeaseSkippingTheWaitForARemovedLeaderIsCaught() {
        SimConfig base = SimConfig.defaults(5, FaultProfile.ALL).withMembershipChanges(true);
        assertCaught(base, SimLeaseModes.world(SimLeaseModes.Mode.LEADER_TIMER,
                SimLeaseModes.Control.LL_SKIPS_WAIT_FOR_REMOVED_LEADER), "ll-skips-wait-for-removed-leader");
    }

    private static void assertCaught(SimConfig base, SimLeases leases, String name) {
        SimResult caught = null;
        for (long seed = 1; seed <= MAX_SEEDS && caught == null; seed++) {
            SimResult result = Simulation.runWithMembershipChanges(base.withSeed(seed), leases).result();
            if (!result.passed()) {
                caught = result;
            }
        }
        assertNotNull(caught, name + " was not caught in " + MAX_SEEDS + " seeds");
        System.out.println(name + " caught: " + caught.summaryLine().lines().findFirst().orElse(""));
        assertTrue(NegativeControlTest.SAFETY.contains(caught.violations().get(0).kind()),
                name + " was caught, but not as a safety violation: " + caught.summaryLine());
        SimResult replay = Simulation.runWithMembershipChanges(caught.config(), leases).result();
        assertEquals(caught.traceHash(), replay.traceHash(), "replaying the violating seed");
        assertEquals(caught.violations(), replay.violations());
    }
}
