package io.synod.core.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.paxos.Message;
import io.synod.core.paxos.Role;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Scenarios that pin one Paxos rule each (Lamport, "Paxos Made Simple", 2001) under the faults the
 * simulator models: messages delivered in an adversarial order, fsyncs held and torn by crashes, a
 * hostile oracle. Every scenario ends with the simulator's agreement check (one command per slot
 * across all replicas) and with every replica converged on the same list.
 */
class PaxosRuleScenarioTest {
    private static final long MS = ScriptedCluster.MS;
    private ScriptedCluster cluster;

    @AfterEach
    void agreementHolds() {
        if (cluster != null) {
            assertNull(cluster.safety.violation(), "agreement check");
        }
    }

    private static boolean between(Message m, int a, int b) {
        return (m.from() == a && m.to() == b) || (m.from() == b && m.to() == a);
    }

    @Test
    void aValueAcceptedByAMajorityIsReproposedByTheNextLeaderOverAnOlderBallotsValue() {
        // §2.2 P2c: the next leader proposes, per slot, the value of the highest ballot among a
        // majority of promises. X (ballot 2.0) was accepted by a majority and is chosen; Z (ballot
        // 1.3) was accepted by one acceptor only. A promise quorum that holds both must pick X.
        cluster = new ScriptedCluster(5);
        cluster.elect(3, 1);
        cluster.settle(m -> false);
        assertEquals(Role.LEADER, cluster.replicas[3].role());
        cluster.propose(3, 7, 1, new KvCommand.Append("k", 100)); // Z: its Accepts are all lost
        cluster.drop(m -> m instanceof Message.Accept);

        cluster.elect(0, 2);
        // Phase 1 of 2.0 with promises from 1 and 2 only; 3 and 4 never hear of it.
        cluster.drop(m -> m.to() == 3 || m.to() == 4);
        cluster.settle(m -> m.to() == 3 || m.to() == 4);
        assertEquals(Role.LEADER, cluster.replicas[0].role());
        cluster.propose(0, 8, 1, new KvCommand.Append("k", 200)); // X: accepted by 0, 1, 2
        cluster.deliver(m -> m instanceof Message.Accept && (m.to() == 1 || m.to() == 2));
        cluster.drop(m -> true); // every Accepted is lost: nobody knows X is chosen
        assertNull(cluster.lastReply(8), "the leader never learned that X was chosen");
        cluster.crash(0, 0);

        cluster.elect(4, 3);
        // Promises from 2 (X at 2.0) and 3 (Z at 1.3) complete phase 1 of 3.4; node 1's is lost.
        cluster.drop(m -> m.from() == 1 || m.to() == 1 || m.to() == 0);
        cluster.settle(m -> m.from() == 1 || m.to() == 1 || m.to() == 0);
        assertEquals(Role.LEADER, cluster.replicas[4].role());
        cluster.restart(0);
        cluster.runFor(50 * MS, m -> false);
        for (int node = 0; node < 5; node++) {
            assertArrayEquals(new long[] {200}, cluster.readList(node, "k"), "node " + node + " applied X, not Z");
        }
    }

    @Test
    void twoLeadersNamedByAHostileOracleWithTheSameEpochCannotBothCommit() {
        // The oracle is a hint. It names 0 and 2 with epoch 5; each finishes phase 1 (5.0 with node 1
        // before node 1 promises 5.2). Acceptor 1 then rejects 5.0 (P1a: never accept below a promise),
        // so only 5.2 can gather a majority and slot 1 gets exactly one value.
        cluster = new ScriptedCluster(3);
        cluster.elect(0, 5);
        cluster.elect(2, 5);
        cluster.drop(m -> between(m, 0, 2)); // 0 and 2 never hear of each other
        cluster.deliver(m -> m instanceof Message.Prepare && m.from() == 0);
        cluster.deliver(m -> m instanceof Message.Promise && m.to() == 0);
        assertEquals(Role.LEADER, cluster.replicas[0].role());
        cluster.deliver(m -> m instanceof Message.Prepare && m.from() == 2);
        cluster.deliver(m -> m instanceof Message.Promise && m.to() == 2);
        assertEquals(Role.LEADER, cluster.replicas[2].role(), "both lead: the oracle cannot be trusted");

        cluster.propose(0, 7, 1, new KvCommand.Append("k", 1));
        cluster.propose(2, 8, 1, new KvCommand.Append("k", 2));
        cluster.settle(m -> between(m, 0, 2));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(8).status(), "5.2 commits through node 1");
        assertEquals(ClientReply.Status.UNKNOWN, cluster.lastReply(7).status(), "5.0 was rejected and stepped down");
        assertEquals(Role.FOLLOWER, cluster.replicas[0].role());
        assertTrue(cluster.resigned[0], "the rejected leader asks the oracle for a fresh epoch");

        cluster.runFor(50 * MS, m -> false);
        for (int node = 0; node < 3; node++) {
            assertArrayEquals(new long[] {2}, cluster.readList(node, "k"), "node " + node);
        }
    }

    @Test
    void aStaleEpochLeaderCannotCommitThroughAnAcceptorThatCrashedAfterPromising() {
        // P1a with stable storage: the promise to 2.1 is on disk before it is sent, so acceptor 2,
        // crashed and restarted, still rejects the old leader's Accept in ballot 1.0.
        cluster = new ScriptedCluster(3);
        cluster.elect(0, 1);
        cluster.settle(m -> false);
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 1));
        cluster.settle(m -> false);
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());

        // Node 1 takes over through node 2 while node 0 is cut off and keeps believing it leads.
        cluster.elect(1, 2);
        cluster.settle(m -> m.from() == 0 || m.to() == 0);
        assertEquals(Role.LEADER, cluster.replicas[1].role());
        cluster.crash(2, 0);
        cluster.restart(2);
        assertEquals(2, cluster.replicas[2].promised().epoch(), "the promise survived the crash");

        cluster.propose(0, 8, 1, new KvCommand.Append("k", 99)); // the stale leader proposes
        cluster.deliver(m -> m.from() == 0 && m.to() == 2);
        cluster.deliver(m -> m.from() == 2 && m.to() == 0);
        assertEquals(Role.FOLLOWER, cluster.replicas[0].role(), "a Nack with a higher ballot deposes it");
        assertEquals(ClientReply.Status.UNKNOWN, cluster.lastReply(8).status());

        cluster.propose(1, 9, 1, new KvCommand.Append("k", 2));
        cluster.runFor(50 * MS, m -> false);
        for (int node = 0; node < 3; node++) {
            long[] list = cluster.readList(node, "k");
            assertEquals(1, list[0], "node " + node);
            assertTrue(list.length == 2 || (list.length == 3 && list[1] == 99), "node " + node + ": 2 is there and 99 "
                    + "only if the new leader recovered it in phase 1, before 2");
            assertEquals(2, list[list.length - 1], "node " + node);
        }
    }

    @Test
    void takeoverFillsTheGapBetweenValuesFromDifferentAcceptorsWithANoop() {
        // §3: phase 1 merges the promises of every acceptor in the quorum; a slot that none of them
        // accepted gets a no-op, so slots after it can be applied.
        cluster = new ScriptedCluster(3);
        cluster.elect(0, 1);
        cluster.settle(m -> false);
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 1));
        cluster.deliver(m -> m instanceof Message.Accept && m.to() == 1); // slot 1 only at node 1
        cluster.drop(m -> true);
        cluster.propose(0, 8, 1, new KvCommand.Append("k", 2)); // slot 2: lost everywhere
        cluster.drop(m -> true);
        cluster.propose(0, 9, 1, new KvCommand.Append("k", 3));
        cluster.deliver(m -> m instanceof Message.Accept && m.to() == 2); // slot 3 only at node 2
        cluster.drop(m -> true);
        cluster.crash(0, 0);

        cluster.elect(1, 2);
        cluster.settle(m -> m.to() == 0);
        assertEquals(Role.LEADER, cluster.replicas[1].role());
        cluster.runFor(20 * MS, m -> m.to() == 0);
        cluster.restart(0);
        cluster.runFor(50 * MS, m -> false);
        for (int node = 0; node < 3; node++) {
            assertArrayEquals(new long[] {1, 3}, cluster.readList(node, "k"), "node " + node + ": slot 2 is a no-op");
        }
        assertEquals(3, cluster.replicas[1].appliedSlot());
    }

    @Test
    void anAcceptanceTornOffByACrashWasNeverSentAndTheLeaderRetransmits() {
        // The Ready contract: an Accepted leaves only after its fsync. Node 1 crashes mid-fsync with
        // the entry torn off, so the leader, which also lost node 2's answer, cannot commit; after
        // node 1 restarts the leader's retransmission gets the value chosen.
        cluster = new ScriptedCluster(3);
        cluster.elect(0, 1);
        cluster.settle(m -> false);
        cluster.holdFsync[1] = true;
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 5));
        cluster.deliver(m -> m instanceof Message.Accept && m.to() == 1);
        cluster.drop(m -> m.to() == 2);
        assertEquals(0, cluster.inFlight.size(), "node 1 sent nothing before its fsync");
        cluster.crash(1, 0);
        cluster.holdFsync[1] = false;
        cluster.runFor(5 * MS, m -> m.to() == 2 || m.from() == 2 || m.to() == 1);
        assertNull(cluster.lastReply(7), "one acceptance (the leader's) is not a majority");
        assertEquals(0, cluster.replicas[0].commitSlot());

        cluster.restart(1);
        assertEquals(0, cluster.replicas[1].lastSlot(), "the torn entry is gone");
        cluster.runFor(50 * MS, m -> m.to() == 2 || m.from() == 2);
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
        cluster.runFor(50 * MS, m -> false);
        for (int node = 0; node < 3; node++) {
            assertArrayEquals(new long[] {5}, cluster.readList(node, "k"), "node " + node);
        }
    }

    @Test
    void theLeadersAcceptsLeaveBeforeItsOwnFsyncButItsOwnAcceptanceCountsOnlyAfterIt() {
        // Raft thesis (Ongaro 2014) section 10.2.1: the leader writes its log in parallel with
        // replicating it. Its Accepts leave when its fsync starts; with only one follower's
        // acceptance in, the slot must not commit until the leader's own write is durable.
        cluster = new ScriptedCluster(3);
        cluster.elect(0, 1);
        cluster.settle(m -> false);
        cluster.holdFsync[0] = true;
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 5));
        assertTrue(cluster.loops[0].persisting() != null, "the leader's fsync is held");
        assertEquals(2, cluster.inFlight.stream().filter(m -> m instanceof Message.Accept && m.from() == 0).count(),
                "both Accepts left before the leader's fsync");
        cluster.drop(m -> m.to() == 2);
        cluster.deliver(m -> m instanceof Message.Accept && m.to() == 1);
        assertEquals(1, cluster.deliver(m -> m instanceof Message.Accepted && m.from() == 1));
        assertEquals(0, cluster.replicas[0].commitSlot(), "node 1 alone is no majority: the leader's write is not durable");
        assertNull(cluster.lastReply(7));
        cluster.fsync(0);
        cluster.holdFsync[0] = false;
        assertEquals(1, cluster.replicas[0].commitSlot(), "durable at the leader and node 1: chosen");
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
        cluster.runFor(20 * MS, m -> false);
        for (int node = 0; node < 3; node++) {
            assertArrayEquals(new long[] {5}, cluster.readList(node, "k"), "node " + node);
        }
    }

    @Test
    void aValueTheFollowersAcceptedSurvivesTheLeaderCrashingBeforeItsOwnFsync() {
        // The other side of sending Accepts before the leader's fsync: the leader's disk loses the
        // entry, but a majority (the two followers) accepted it durably, so it is chosen and the
        // next leader must find it in phase 1 and keep it; the old leader learns it on restart.
        cluster = new ScriptedCluster(3);
        cluster.elect(0, 1);
        cluster.settle(m -> false);
        cluster.holdFsync[0] = true;
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 5));
        cluster.deliver(m -> m instanceof Message.Accept && m.from() == 0);
        cluster.drop(m -> true);
        cluster.crash(0, 0);
        cluster.holdFsync[0] = false;

        cluster.elect(1, 2);
        cluster.settle(m -> m.to() == 0);
        assertEquals(Role.LEADER, cluster.replicas[1].role());
        cluster.runFor(20 * MS, m -> m.to() == 0);
        cluster.restart(0);
        assertEquals(0, cluster.replicas[0].lastSlot(), "the old leader's entry never reached its disk");
        cluster.runFor(50 * MS, m -> false);
        for (int node = 0; node < 3; node++) {
            assertArrayEquals(new long[] {5}, cluster.readList(node, "k"), "node " + node);
        }
    }

    @Test
    void aRetransmittedAcceptIsAcknowledgedAfterTheFirstFsyncWithoutWritingTheEntryAgain() {
        cluster = new ScriptedCluster(3);
        cluster.elect(0, 1);
        cluster.settle(m -> false);
        cluster.holdFsync[1] = true;
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 5));
        Message accept = cluster.inFlight.stream().filter(m -> m instanceof Message.Accept && m.to() == 1).findFirst()
                .orElseThrow();
        cluster.deliver(m -> m == accept);
        assertTrue(cluster.loops[1].persisting() != null, "node 1's first fsync is held");
        cluster.inFlight.add(accept); // The leader's retransmission, while that fsync runs.
        cluster.deliver(m -> m == accept);
        assertEquals(0, cluster.inFlight.stream().filter(m -> m instanceof Message.Accepted).count(),
                "no acknowledgement before the fsync");
        cluster.fsync(1);
        assertNull(cluster.loops[1].persisting(), "the second Ready had nothing to write");
        assertEquals(2, cluster.inFlight.stream().filter(m -> m instanceof Message.Accepted && m.from() == 1).count(),
                "both Accepts are acknowledged once the entry is durable");
        cluster.holdFsync[1] = false;
        cluster.runFor(20 * MS, m -> false);
        for (int node = 0; node < 3; node++) {
            assertArrayEquals(new long[] {5}, cluster.readList(node, "k"), "node " + node);
        }
    }
}
