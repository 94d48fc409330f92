package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import org.junit.jupiter.api.Test;

/**
 * CheckQuorum ({@link QuorumContact}; etcd/raft's rule that a leader which has not heard from a quorum
 * within an election timeout steps down): a leader whose peers stop answering, while the election
 * service goes on naming it, steps down and resigns after {@link ReplicaConfig#checkQuorumNanos()}, so
 * that the service can elect a node that reaches a quorum. It is a liveness rule; Paxos' safety never
 * depended on it (a deposed leader cannot commit, Paxos Made Simple §2.2).
 */
class CheckQuorumScenarioTest {
    private static final long MS = 1_000_000L;

    private static TestCluster cluster(long checkQuorumNanos) {
        return new TestCluster(3, ReplicaConfig.defaults(0, 3).withTimers(10 * MS, 20 * MS, 200 * MS)
                .withCheckQuorum(checkQuorumNanos));
    }

    @Test
    void aLeaderCutOffFromEveryPeerStepsDownAndResignsAfterTheWindow() {
        TestCluster cluster = cluster(100 * MS);
        cluster.elect(0, 1);
        assertEquals(Role.LEADER, cluster.replicas[0].role());
        cluster.drop = m -> m.from() == 0 || m.to() == 0; // its peer links are down, its election session is not
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 1));
        assertNull(cluster.lastReply(7), "cannot commit without its peers");
        for (int i = 0; i < 9; i++) {
            cluster.tick(10 * MS);
        }
        assertEquals(Role.LEADER, cluster.replicas[0].role(), "90 ms of silence: still inside the 100 ms window");
        assertFalse(cluster.resigned[0]);
        cluster.tick(10 * MS);
        cluster.tick(10 * MS);
        assertEquals(Role.FOLLOWER, cluster.replicas[0].role(), "a whole window without a quorum's answer");
        assertTrue(cluster.resigned[0], "it tells the election service to pick another node");
        assertEquals(ClientReply.Status.UNKNOWN, cluster.lastReply(7).status(),
                "the waiting client learns the outcome is open: its entry was proposed and may still be chosen");
    }

    @Test
    void aLeaderThatHearsOnePeerOfThreeKeepsLeading() {
        TestCluster cluster = cluster(100 * MS);
        cluster.elect(0, 1);
        cluster.drop = m -> (m.from() == 0 && m.to() == 2) || (m.from() == 2 && m.to() == 0);
        for (int i = 0; i < 50; i++) {
            cluster.tick(10 * MS);
        }
        assertEquals(Role.LEADER, cluster.replicas[0].role(), "itself and node 1 are a quorum of 3");
        assertFalse(cluster.resigned[0]);
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 1));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
    }

    @Test
    void aFreshLeaderIsNotJudgedBySilenceFromBeforeItsElection() {
        TestCluster cluster = cluster(100 * MS);
        cluster.tick(500 * MS); // nobody leads for five windows
        cluster.elect(1, 1);
        cluster.tick(10 * MS);
        assertEquals(Role.LEADER, cluster.replicas[1].role());
        assertFalse(cluster.resigned[1]);
    }

    @Test
    void withTheCheckOffACutOffLeaderLeadsForever() {
        // The negative control: what the simulator's no-check-quorum mutation plants.
        TestCluster cluster = cluster(0);
        cluster.elect(0, 1);
        cluster.drop = m -> m.from() == 0 || m.to() == 0;
        for (int i = 0; i < 100; i++) {
            cluster.tick(10 * MS);
        }
        assertEquals(Role.LEADER, cluster.replicas[0].role());
        assertFalse(cluster.resigned[0]);
    }

    @Test
    void aResumedPausedLeaderCommitsNothingInItsOldBallot() {
        // A leader stopped (SIGSTOP) past its ZooKeeper session: the service elects another node, which
        // runs phase 1 with the remaining majority and commits. Resumed, the old leader's first tick is
        // not judged by CheckQuorum (the silence was its own pause), but the higher ballot it meets ends
        // its leadership; the write it had in flight was accepted by nobody else and is never chosen,
        // and what it applies afterwards is what the new leader chose (Paxos Made Simple §2.2: acceptors
        // that promised a higher ballot refuse the old one).
        TestCluster cluster = cluster(100 * MS);
        cluster.elect(0, 1);
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 1));
        ClientReply first = cluster.lastReply(7);
        assertEquals(ClientReply.Status.OK, first.status());
        cluster.drop = m -> m instanceof Message.Accept && m.from() == 0;
        cluster.propose(0, 7, 2, new KvCommand.Append("k", 2));
        assertSame(first, cluster.lastReply(7), "append 2 is in flight, unanswered");
        cluster.pause(0);
        cluster.drop = m -> false;
        cluster.tick(3_000 * MS); // longer than the session timeout: the service names node 1
        cluster.elect(1, 2);
        assertEquals(Role.LEADER, cluster.replicas[1].role());
        cluster.propose(1, 8, 1, new KvCommand.Append("k", 3));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(8).status());

        cluster.resume(0);
        cluster.tick(10 * MS);
        assertEquals(Role.FOLLOWER, cluster.replicas[0].role(), "the higher ballot ended its leadership");
        assertFalse(cluster.resigned[0], "deposed by the ballot, not by CheckQuorum: its own pause is not its peers' silence");
        cluster.propose(0, 7, 3, new KvCommand.Append("k", 4));
        assertEquals(ClientReply.Status.NOT_LEADER, cluster.lastReply(7).status());
        cluster.tick(100 * MS);
        for (int node = 0; node < 3; node++) {
            assertArrayEquals(new long[] {1, 3}, cluster.readList(node, "k"), "node " + node + ": append 2 was never chosen");
        }
    }

    @Test
    void theWindowMustNotBeNegative() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReplicaConfig.defaults(0, 3).withCheckQuorum(-1));
        assertTrue(e.getMessage().contains("checkQuorumNanos"), e.getMessage());
    }
}
