package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.kv.KvStateMachine;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import org.junit.jupiter.api.Test;

/**
 * Membership changes through the log (docs/membership.md), scripted: each test checks one rule (M1..M7) and,
 * where a negative control switches the rule off, shows the unsafe outcome the rule prevents.
 */
class MembershipScenarioTest {
    private static final long TICK = 60_000_000L;

    /** Five replica ids: 0, 1, 2 vote, 3 and 4 are spares; node 0 leads with an entry of its ballot chosen. */
    private static TestCluster cluster(ReplicaConfig config) {
        TestCluster cluster = new TestCluster(5, config);
        cluster.startWith(GroupMembership.firstVoters(5, 3));
        cluster.elect(0, 1);
        cluster.propose(0, 7, 1, new KvCommand.Put("a", new byte[] {1}));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
        return cluster;
    }

    private static TestCluster cluster() {
        return cluster(ReplicaConfig.defaults(0, 5));
    }

    private static MembershipChanges changes(TestCluster cluster, int node) {
        return cluster.replicas[node].membership();
    }

    /** Adds {@code id} as a learner and promotes it, each change committed before the next (rules M4, M5). */
    private static void addVoter(TestCluster cluster, int leader, int id) {
        changes(cluster, leader).addLearner(id);
        cluster.settle();
        catchUp(cluster);
        changes(cluster, leader).promote(id);
        cluster.settle();
    }

    /**
     * Three heartbeat rounds past the retransmission interval: whatever a learner still misses (an Accept dropped by
     * the test) is sent again by then; slots proposed before it joined it gets at once (CatchUpScenarioTest). The
     * last round is the leader hearing it: the commit point of its catch-up goes once, and the reply to it reports
     * what the learner had applied before it learned that commit point, so the next heartbeat's reply says it caught up.
     */
    private static void catchUp(TestCluster cluster) {
        cluster.tick(TICK);
        cluster.tick(TICK);
        cluster.tick(TICK);
    }

    /** Rule M2: a learner receives the log but its acceptance never counts toward a quorum. */
    @Test
    void aLearnerGetsTheLogButIsNeverCounted() {
        TestCluster cluster = cluster();
        changes(cluster, 0).addLearner(3);
        cluster.settle();
        catchUp(cluster);
        assertTrue(changes(cluster, 3).applied().isLearner(3));
        assertEquals(cluster.replicas[0].appliedSlot(), cluster.replicas[3].appliedSlot(), "the learner applied the log");

        long committed = cluster.replicas[0].commitSlot();
        cluster.drop = m -> m instanceof Message.Accept && (m.to() == 1 || m.to() == 2);
        cluster.propose(0, 7, 2, new KvCommand.Put("a", new byte[] {2}));
        assertEquals(committed, cluster.replicas[0].commitSlot(), "the leader and the learner are no majority of {0,1,2}");
        cluster.drop = m -> false;
        cluster.tick(1_000_000_000L);
        assertEquals(committed + 1, cluster.replicas[0].commitSlot(), "a voter's acceptance commits it");

        // The negative control (membership-learner-votes): the learner's acceptance counts, and a value is chosen
        // by the leader and the learner, which the voters 1 and 2 (a majority) never saw.
        changes(cluster, 0).countLearners();
        cluster.drop = m -> m instanceof Message.Accept && (m.to() == 1 || m.to() == 2);
        cluster.propose(0, 7, 3, new KvCommand.Put("a", new byte[] {3}));
        assertEquals(committed + 2, cluster.replicas[0].commitSlot(), "without rule M2 the learner's vote chooses it");
    }

    /** Rule M6: a learner is promoted only once it has applied through the leader's commit point. */
    @Test
    void aLearnerIsPromotedOnlyOnceCaughtUp() {
        TestCluster cluster = cluster();
        changes(cluster, 0).addLearner(3);
        cluster.settle();
        cluster.drop = m -> m.to() == 3;
        for (int i = 2; i <= 6; i++) {
            cluster.propose(0, 7, i, new KvCommand.Put("k" + i, new byte[] {(byte) i}));
        }
        MembershipChanges.Refused behind = assertThrows(MembershipChanges.Refused.class, () -> changes(cluster, 0).promote(3));
        assertTrue(behind.getMessage().contains("rule M6"), behind.getMessage());
        cluster.drop = m -> false;
        catchUp(cluster);
        assertEquals(cluster.replicas[0].commitSlot(), cluster.replicas[3].appliedSlot(), "caught up");
        changes(cluster, 0).promote(3);
        cluster.settle();
        for (int node = 0; node < 5; node++) {
            assertTrue(changes(cluster, node).applied().isVoter(3) || node == 4, "node " + node);
        }
    }

    /** Rule M5: one change in flight, and none before an entry of the leader's own ballot is chosen (raft-dev 2015). */
    @Test
    void oneChangeAtATimeAndNoneBeforeAnEntryOfTheOwnBallot() {
        TestCluster cluster = cluster();
        cluster.elect(1, 2); // A new leader whose ballot has chosen nothing yet.
        MembershipChanges.Refused early = assertThrows(MembershipChanges.Refused.class, () -> changes(cluster, 1).addLearner(3));
        assertTrue(early.getMessage().contains("raft-dev 2015"), early.getMessage());
        cluster.settle(); // The refusal appended a no-op of its ballot; it is chosen now.
        cluster.drop = m -> m instanceof Message.Accept; // The first change stays in flight.
        changes(cluster, 1).addLearner(3);
        MembershipChanges.Refused second = assertThrows(MembershipChanges.Refused.class, () -> changes(cluster, 1).addLearner(4));
        assertTrue(second.getMessage().contains("in flight"), second.getMessage());
        cluster.drop = m -> false;
        cluster.tick(1_000_000_000L);
        changes(cluster, 1).addLearner(4);
        cluster.settle();
        assertTrue(changes(cluster, 0).applied().isLearner(3) && changes(cluster, 0).applied().isLearner(4));
    }

    /** Rule M4: {A,B,C} -> {A,B,D} in one step is refused; the replacement goes add, promote, remove. */
    @Test
    void aVoterIsReplacedInSingleStepsNeverSwapped() {
        TestCluster cluster = cluster();
        GroupMembership m = changes(cluster, 0).committed();
        IllegalArgumentException swap = assertThrows(IllegalArgumentException.class,
                () -> changes(cluster, 0).propose(m.swapped(2, 3)));
        assertTrue(swap.getMessage().contains("rule M4"), swap.getMessage());

        addVoter(cluster, 0, 3);
        changes(cluster, 0).remove(2);
        cluster.settle();
        cluster.tick(TICK);
        for (int node = 0; node < 5; node++) {
            GroupMembership now = changes(cluster, node).applied();
            if (node != 2 && node != 4) {
                assertEquals("voters {0,1,3} learners {} retired {2}", now.toString(), "node " + node);
            }
        }
        cluster.crash(2);
        cluster.propose(0, 7, 9, new KvCommand.Put("after", new byte[] {9}));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status(), "{0,1,3} commits without the removed node");
    }

    /** Rule M7: a removed id never comes back; a replica that lost its disk returns as a new id. */
    @Test
    void aRemovedIdNeverComesBack() {
        TestCluster cluster = cluster();
        addVoter(cluster, 0, 3);
        changes(cluster, 0).remove(2);
        cluster.settle();
        cluster.tick(TICK);
        IllegalArgumentException again = assertThrows(IllegalArgumentException.class, () -> changes(cluster, 0).addLearner(2));
        assertTrue(again.getMessage().contains("new incarnation"), again.getMessage());
    }

    /**
     * Rule M3: a candidate that missed changes must win a majority of every membership a change entry it learns of
     * may have put in force. Node 2 is cut off while {0,1,2} becomes {2,3,4}; a value is then chosen by 3 and 4
     * alone. Reaching only node 1 (removed meanwhile), node 2 learns the changes from 1's promise and does not lead;
     * with the rule off it leads on {1,2}, a majority of the membership it applied, blind to that value.
     */
    @Test
    void aCandidateThatMissedChangesNeedsAMajorityOfEveryMembership() {
        for (boolean ruleOn : new boolean[] {true, false}) {
            TestCluster cluster = cluster();
            cluster.drop = m -> m.to() == 2 || m.from() == 2;
            addVoter(cluster, 0, 3);
            changes(cluster, 0).remove(1);
            cluster.settle();
            addVoter(cluster, 0, 4);
            changes(cluster, 0).remove(0); // The leader removes itself and goes on leading (it need not vote).
            cluster.settle();
            assertEquals("voters {2,3,4} learners {} retired {0,1}", changes(cluster, 0).committed().toString());
            cluster.propose(0, 7, 5, new KvCommand.Put("v", new byte[] {5}));
            assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status(), "chosen by 3 and 4");
            long chosen = cluster.replicas[3].commitSlot();

            cluster.crash(0);
            cluster.drop = m -> (m.to() == 2 || m.from() == 2) && (m.to() >= 3 || m.from() >= 3);
            if (!ruleOn) {
                changes(cluster, 2).disableEveryConfigurationRead();
            }
            cluster.elect(2, 2);
            if (ruleOn) {
                assertNotEquals(Role.LEADER, cluster.replicas[2].role(), "{1,2} is no majority of {0,1,2,3}");
                cluster.drop = m -> false;
                catchUp(cluster); // The Prepares to 3 and 4 are re-sent.
                assertEquals(Role.LEADER, cluster.replicas[2].role(), "with 3 and 4 it is");
                cluster.tick(TICK);
                assertTrue(cluster.replicas[2].commitSlot() >= chosen, "and it learned the chosen value");
            } else {
                assertEquals(Role.LEADER, cluster.replicas[2].role(), "without rule M3 it leads, blind to slot " + chosen);
            }
        }
    }

    /** Rule M7 (durable): the membership survives compaction of its change entries, and restarts. */
    @Test
    void theMembershipSurvivesSnapshotsAndRestarts() {
        TestCluster cluster = cluster(ReplicaConfig.defaults(0, 5).withSnapshotEverySlots(4, 1));
        addVoter(cluster, 0, 3);
        for (int i = 2; i <= 10; i++) {
            cluster.propose(0, 7, i, new KvCommand.Put("k" + i, new byte[] {(byte) i}));
        }
        cluster.tick(TICK);
        for (int node = 0; node < 4; node++) {
            assertTrue(cluster.disks[node].entries.values().stream().noneMatch(e -> GroupMembership.isChange(e.command())),
                    "node " + node + " compacted the change entries away");
        }
        for (int node = 0; node < 5; node++) {
            cluster.crash(node);
        }
        for (int node = 0; node < 5; node++) {
            cluster.restart(node);
        }
        for (int node = 0; node < 4; node++) {
            assertEquals("voters {0,1,2,3} learners {}", changes(cluster, node).applied().toString(), "node " + node);
        }
    }

    /** A client cannot forge a change; a coded group refuses a change that would leave 2F voters or fewer (rule M8). */
    @Test
    void forgedAndUnsupportedChangesAreRefused() {
        TestCluster cluster = cluster();
        cluster.replicas[0].propose(new ClientRequest(new Command(GroupMembership.CHANGE_CLIENT, 1,
                GroupMembership.allVoters(5).changeCommand().payload())));
        cluster.settle();
        assertEquals(ClientReply.Status.REJECTED, cluster.lastReply(GroupMembership.CHANGE_CLIENT).status());
        assertThrows(MembershipChanges.Refused.class, () -> changes(cluster, 1).addLearner(3), "only a leader proposes");

        TestCluster coded = new TestCluster(5, ReplicaConfig.defaults(0, 5), node -> new KvStateMachine(),
                Coding.rsPaxos(5, 2, 1, 64), LeaseHooks.NONE);
        coded.elect(0, 1);
        MembershipChanges.Refused refused = assertThrows(MembershipChanges.Refused.class, () -> changes(coded, 0).remove(4));
        assertTrue(refused.getMessage().contains("rule M8"), refused.getMessage());
    }

    /** With coding, X follows the voters: 5 voters code 5,1,3 values into 3 data shards, 4 voters into 2 (rule M8). */
    @Test
    void codedGroupRederivesXFromTheVoters() {
        Coding coding = Coding.rsPaxos(5, 1, 3, 64);
        assertEquals(3, coding.dataShardsFor(5));
        assertEquals(2, coding.dataShardsFor(4));
        assertEquals(1, coding.dataShardsFor(3));
        TestCluster coded = new TestCluster(5, ReplicaConfig.defaults(0, 5), node -> new KvStateMachine(), coding, LeaseHooks.NONE);
        coded.elect(0, 1);
        try {
            changes(coded, 0).remove(4);
        } catch (MembershipChanges.Refused notYet) {
            coded.settle(); // The refusal appended a no-op of the ballot (rule M5); it is chosen now.
            changes(coded, 0).remove(4);
        }
        coded.settle();
        for (int node = 0; node < 4; node++) {
            assertEquals("voters {0,1,2,3} learners {} retired {4}", changes(coded, node).applied().toString(), "node " + node);
        }
    }
}
