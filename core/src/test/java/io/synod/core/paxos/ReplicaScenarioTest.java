package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import org.junit.jupiter.api.Test;

/**
 * Scripted scenarios, each checking one rule of Multi-Paxos as stated in Lamport, "Paxos Made
 * Simple" (2001), §2.2 (choosing a value) and §3 (implementing a state machine).
 */
class ReplicaScenarioTest {
    private static final long MS = 1_000_000L;

    @Test
    void leaderReplicatesAndEveryReplicaAppliesTheSameSequence() {
        TestCluster cluster = new TestCluster(3);
        cluster.elect(0, 1);
        assertEquals(Role.LEADER, cluster.replicas[0].role());
        for (int i = 1; i <= 5; i++) {
            cluster.propose(0, 7, i, new KvCommand.Append("k", i));
            ClientReply reply = cluster.lastReply(7);
            assertEquals(ClientReply.Status.OK, reply.status());
            assertEquals(i, reply.slot(), "one command per slot, replies carry the slot");
        }
        cluster.tick(100 * MS); // heartbeat carries the commit point to the followers
        for (int node = 0; node < 3; node++) {
            assertArrayEquals(new long[] {1, 2, 3, 4, 5}, cluster.readList(node, "k"), "node " + node);
        }
    }

    @Test
    void aValueAcceptedByAMajorityIsReproposedByTheNextLeader() {
        // §2.2 P2c: a new leader must propose, in each slot, the value of the highest ballot
        // among a majority of promises; so a value accepted by a majority survives the leader.
        TestCluster cluster = new TestCluster(3);
        cluster.elect(0, 1);
        // Node 1 accepts but its answer is lost; node 2 never hears of the value.
        cluster.drop = m -> (m instanceof Message.Accepted) || (m.to() == 2 && m instanceof Message.Accept);
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 42));
        assertNull(cluster.lastReply(7), "not committed: the leader saw no acceptance");
        cluster.crash(0);
        cluster.drop = m -> false;
        cluster.elect(2, 2); // phase 1 with {1, 2}: node 1 reports slot 1
        assertEquals(Role.LEADER, cluster.replicas[2].role());
        cluster.tick(100 * MS);
        assertArrayEquals(new long[] {42}, cluster.readList(1, "k"));
        assertArrayEquals(new long[] {42}, cluster.readList(2, "k"));
    }

    @Test
    void takeoverFillsGapsWithNoopsAndKeepsLaterSlots() {
        // §3: a new leader learns slots 1..n; slots no promiser accepted get a no-op so the
        // log has no holes and later slots can be applied.
        TestCluster cluster = new TestCluster(3);
        cluster.elect(0, 1);
        cluster.drop = m -> m.to() == 2 || m instanceof Message.Accepted
                || (m instanceof Message.Accept a && a.entries().stream().anyMatch(e -> e.slot() < 3));
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 1));
        cluster.propose(0, 8, 1, new KvCommand.Append("k", 2));
        cluster.propose(0, 9, 1, new KvCommand.Append("k", 3));
        cluster.crash(0);
        cluster.drop = m -> false;
        cluster.elect(1, 2);
        cluster.tick(100 * MS);
        TestCluster.Disk disk = cluster.disks[1];
        assertTrue(disk.entries.get(1L).command().isNoop(), "gap at slot 1 filled with a no-op");
        assertTrue(disk.entries.get(2L).command().isNoop(), "gap at slot 2 filled with a no-op");
        assertFalse(disk.entries.get(3L).command().isNoop(), "slot 3 keeps the value node 1 accepted");
        assertArrayEquals(new long[] {3}, cluster.readList(1, "k"));
        assertArrayEquals(new long[] {3}, cluster.readList(2, "k"));
    }

    @Test
    void aDeposedLeaderCannotCommitAndStepsDown() {
        // §2.2 P1a: an acceptor that promised a higher ballot rejects the old leader's accepts.
        TestCluster cluster = new TestCluster(3);
        cluster.elect(0, 1);
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 1));
        // Node 0 is cut off while node 1 takes over with nodes 1 and 2.
        cluster.drop = m -> m.from() == 0 || m.to() == 0;
        cluster.elect(1, 2);
        cluster.propose(1, 8, 1, new KvCommand.Append("k", 2));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(8).status());
        // The old leader still believes it leads and proposes; the partition heals.
        cluster.drop = m -> false;
        cluster.propose(0, 9, 1, new KvCommand.Append("k", 99));
        assertEquals(Role.FOLLOWER, cluster.replicas[0].role(), "a Nack with a higher ballot deposes it");
        assertEquals(ClientReply.Status.UNKNOWN, cluster.lastReply(9).status(),
                "the client cannot know whether the command will be chosen later");
        assertTrue(cluster.resigned[0]);
        cluster.tick(100 * MS);
        cluster.tick(100 * MS);
        for (int node = 0; node < 3; node++) {
            assertArrayEquals(new long[] {1, 2}, cluster.readList(node, "k"), "node " + node);
        }
    }

    @Test
    void hostileOracleNamingTwoLeadersWithTheSameEpochLetsAtMostOneLead() {
        // The oracle is only a hint: ballots (epoch, node id) are distinct, and only a phase 1
        // with a majority of promises lets a candidate lead.
        TestCluster cluster = new TestCluster(3);
        cluster.replicas[0].onElection(new ElectionEvent.Elected(5));
        cluster.replicas[1].onElection(new ElectionEvent.Elected(5));
        cluster.settle();
        int leaders = 0;
        for (Replica replica : cluster.replicas) {
            leaders += replica.role() == Role.LEADER ? 1 : 0;
        }
        assertTrue(leaders <= 1, "at most one leader, got " + leaders);
        assertEquals(Role.LEADER, cluster.replicas[1].role(), "ballot 5.1 outranks 5.0");
        cluster.propose(1, 7, 1, new KvCommand.Append("k", 1));
        cluster.propose(0, 8, 1, new KvCommand.Append("k", 2));
        assertEquals(ClientReply.Status.NOT_LEADER, cluster.lastReply(8).status());
    }

    @Test
    void aStaleEpochIsRefusedAndTheReplicaResigns() {
        TestCluster cluster = new TestCluster(3);
        cluster.elect(1, 4);
        cluster.elect(0, 3); // node 0 already promised 4.1 > 3.0
        assertEquals(Role.FOLLOWER, cluster.replicas[0].role());
        assertTrue(cluster.resigned[0], "the replica asks for a fresh epoch instead of reusing a stale one");
    }

    @Test
    void aCandidateWithoutAQuorumNeverServesAndGivesUp() {
        TestCluster cluster = new TestCluster(3);
        cluster.crash(1);
        cluster.crash(2);
        cluster.elect(0, 1);
        assertEquals(Role.CANDIDATE, cluster.replicas[0].role());
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 1));
        assertNull(cluster.lastReply(7), "queued, not served");
        cluster.tick(3_000 * MS);
        assertEquals(Role.FOLLOWER, cluster.replicas[0].role());
        assertTrue(cluster.resigned[0]);
        assertEquals(ClientReply.Status.NOT_LEADER, cluster.lastReply(7).status(), "never logged: safe to retry");
    }

    @Test
    void aCandidateWhoseOwnFsyncOutlastsThePhase1TimeoutStillLeads() {
        // Phase 1's timeout measures the peers' silence, and its Prepares leave only with the Ready
        // that makes its own promise durable. Counted from the election instead, a candidate whose
        // fsync outlasts the timeout resigned just as its Prepares left and ignored the promises that
        // came back: with disks that slow, no candidate could ever lead (simulator seed 5858, 5 nodes,
        // all faults: a 100 ms fsync on the node the oracle elected after the faults ended).
        TestCluster cluster = new TestCluster(3);
        long timeout = cluster.baseConfig.phase1TimeoutNanos();
        cluster.slowDisk[0] = true;
        cluster.elect(0, 1);
        assertEquals(Role.CANDIDATE, cluster.replicas[0].role());
        assertTrue(cluster.network.isEmpty(), "the Prepares wait for the candidate's own promise to be durable");
        for (int i = 0; i < 4; i++) {
            cluster.tick(timeout);
        }
        assertEquals(Role.CANDIDATE, cluster.replicas[0].role(), "its own disk is not its peers' silence");
        assertFalse(cluster.resigned[0]);
        cluster.slowDisk[0] = false;
        cluster.finishFsync(0);
        assertEquals(Role.LEADER, cluster.replicas[0].role(), "the promises that came back make it leader");
        assertFalse(cluster.resigned[0]);
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 1));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
    }

    @Test
    void aCandidateWithASlowDiskStillGivesUpWhenItsPeersStaySilent() {
        // The timeout is not switched off by a slow disk, only started later: from the moment the
        // Prepares left, silent peers make the candidate give up after phase1TimeoutNanos.
        TestCluster cluster = new TestCluster(3);
        long timeout = cluster.baseConfig.phase1TimeoutNanos();
        cluster.crash(1);
        cluster.crash(2);
        cluster.slowDisk[0] = true;
        cluster.elect(0, 1);
        cluster.tick(2 * timeout);
        cluster.slowDisk[0] = false;
        cluster.finishFsync(0);
        assertEquals(Role.CANDIDATE, cluster.replicas[0].role());
        cluster.tick(timeout / 2);
        assertEquals(Role.CANDIDATE, cluster.replicas[0].role(), "half the timeout after its Prepares left");
        cluster.tick(timeout / 2);
        assertEquals(Role.FOLLOWER, cluster.replicas[0].role(), "the full timeout after its Prepares left");
        assertTrue(cluster.resigned[0]);
    }

    @Test
    void retriedCommandIsAppliedAtMostOnce() {
        TestCluster cluster = new TestCluster(3);
        cluster.elect(0, 1);
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 1));
        long slot = cluster.lastReply(7).slot();
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 1));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
        assertEquals(slot, cluster.lastReply(7).slot(), "the retry is answered with the original slot");
        // The same command retried through a new leader after a failover is still applied once.
        cluster.elect(1, 2);
        cluster.propose(1, 7, 1, new KvCommand.Append("k", 1));
        assertEquals(slot, cluster.lastReply(7).slot());
        cluster.propose(1, 7, 0, new KvCommand.Append("k", 1));
        assertEquals(ClientReply.Status.STALE_SEQUENCE, cluster.lastReply(7).status());
        cluster.tick(100 * MS);
        assertArrayEquals(new long[] {1}, cluster.readList(2, "k"));
    }

    @Test
    void crashedFollowerRecoversFromDiskAndCatchesUp() {
        TestCluster cluster = new TestCluster(3);
        cluster.elect(0, 1);
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 1));
        cluster.crash(2);
        for (int i = 2; i <= 10; i++) {
            cluster.propose(0, 7, i, new KvCommand.Append("k", i));
        }
        cluster.restart(2);
        cluster.tick(100 * MS);
        cluster.tick(100 * MS);
        assertArrayEquals(cluster.readList(0, "k"), cluster.readList(2, "k"));
        assertEquals(10, cluster.replicas[2].appliedSlot());
    }

    @Test
    void followerBehindTheCompactionPointGetsASnapshot() {
        ReplicaConfig config = ReplicaConfig.defaults(0, 3).withSnapshotEverySlots(5, 2);
        TestCluster cluster = new TestCluster(3, config);
        cluster.elect(0, 1);
        cluster.crash(2);
        for (int i = 1; i <= 23; i++) {
            cluster.propose(0, 7, i, new KvCommand.Append("k", i));
        }
        assertTrue(cluster.replicas[0].snapshotSlot() >= 20, "leader snapshotted");
        assertFalse(cluster.disks[0].entries.containsKey(1L), "leader compacted its log below the snapshot");
        cluster.restart(2);
        cluster.tick(100 * MS);
        cluster.tick(100 * MS);
        cluster.tick(100 * MS);
        assertArrayEquals(cluster.readList(0, "k"), cluster.readList(2, "k"));
        assertTrue(cluster.disks[2].snapshot.lastIncludedSlot() >= 20, "follower installed the snapshot");
        // The at-most-once table travels in the snapshot: a retry at the restarted node's term is deduplicated.
        cluster.crash(0);
        cluster.elect(2, 2);
        cluster.propose(2, 7, 23, new KvCommand.Append("k", 23));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
        cluster.tick(100 * MS);
        assertEquals(23, cluster.readList(2, "k").length, "not applied twice");
    }

    @Test
    void newLeaderRecoversStateFromAPeersSnapshotDuringPhaseOne() {
        ReplicaConfig config = ReplicaConfig.defaults(0, 3).withSnapshotEverySlots(4, 0);
        TestCluster cluster = new TestCluster(3, config);
        cluster.elect(0, 1);
        cluster.crash(2);
        for (int i = 1; i <= 9; i++) {
            cluster.propose(0, 7, i, new KvCommand.Append("k", i));
        }
        cluster.crash(0);
        cluster.restart(2);
        cluster.elect(2, 2); // node 2 knows nothing; node 1 compacted through slot 8
        assertEquals(Role.LEADER, cluster.replicas[2].role());
        cluster.propose(2, 8, 1, new KvCommand.Append("k", 100));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(8).status());
        assertArrayEquals(new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 100}, cluster.readList(2, "k"));
    }

    @Test
    void malformedOrOversizedCommandsAreRejectedAtTheDoor() {
        TestCluster cluster = new TestCluster(3);
        cluster.elect(0, 1);
        cluster.replicas[0].propose(new ClientRequest(new Command(7, 1, new byte[] {99, 0, 1, 'k'})));
        cluster.settle();
        ClientReply reply = cluster.lastReply(7);
        assertEquals(ClientReply.Status.REJECTED, reply.status());
        assertTrue(new String(reply.result()).contains("unknown kv command tag"), new String(reply.result()));
        cluster.replicas[0].propose(new ClientRequest(new Command(8, 1,
                new KvCommand.Put("k", new byte[2 << 20]).encode())));
        cluster.settle();
        assertEquals(ClientReply.Status.REJECTED, cluster.lastReply(8).status());
        assertEquals(0, cluster.replicas[0].lastSlot(), "nothing was logged");
    }

    @Test
    void readThroughTheLogReturnsTheSlotItReflects() {
        TestCluster cluster = new TestCluster(3);
        cluster.elect(0, 1);
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 5));
        cluster.propose(0, 8, 1, new KvCommand.ReadList("k"));
        ClientReply reply = cluster.lastReply(8);
        assertNotNull(reply);
        assertEquals(2, reply.slot());
        assertArrayEquals(new long[] {5}, ((KvResult.ListValue) KvResult.decode(reply.result())).elements());
    }

    @Test
    void singleNodeClusterCommitsOnItsOwnFsync() {
        TestCluster cluster = new TestCluster(1);
        cluster.elect(0, 1);
        cluster.propose(0, 7, 1, new KvCommand.Put("a", new byte[] {1}));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
    }
}
