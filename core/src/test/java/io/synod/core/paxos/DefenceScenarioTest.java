package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.KvCommand;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Defence in depth in the replica (docs/security.md): the epoch bound keeps a forged ballot from taking
 * a promise (Paxos Made Simple §2.2: a promise only grows, so one forged promise would lock every later
 * leader out), and a different value for a chosen slot is refused (§2.3: only a chosen value is learned).
 */
class DefenceScenarioTest {
    private static final long MS = 1_000_000L;

    private static void seeEpoch(TestCluster cluster, long epoch) {
        for (Replica replica : cluster.replicas) {
            replica.onElection(new ElectionEvent.EpochSeen(epoch));
        }
    }

    @Test
    void aBallotBeyondTheEpochSeenPlusTheSlackTakesNoPromise() {
        TestCluster cluster = new TestCluster(3);
        cluster.elect(0, 1);
        seeEpoch(cluster, 1);
        Ballot before = cluster.replicas[1].promised();
        long slack = ReplicaDefence.epochSlack();
        cluster.replicas[1].step(new Message.Prepare(2, 1, new Ballot(1 + slack + 1, 2), 1));
        cluster.settle();
        assertEquals(before, cluster.replicas[1].promised(), "the huge ballot was not promised");
        assertEquals(1, cluster.replicas[1].defence().refusedBallots());
        cluster.replicas[1].step(new Message.Prepare(2, 1, new Ballot(1L << 62, 2), 1));
        cluster.settle();
        assertEquals(before, cluster.replicas[1].promised());
        // Within the slack a ballot is an ordinary higher ballot (§2.2).
        cluster.replicas[1].step(new Message.Prepare(2, 1, new Ballot(1 + slack, 2), 1));
        cluster.settle();
        assertEquals(new Ballot(1 + slack, 2), cluster.replicas[1].promised());
    }

    @Test
    void aFreshAcceptorRefusesAHugeBallotBeforeItSawAnyEpoch() {
        TestCluster cluster = new TestCluster(3);
        cluster.replicas[1].step(new Message.Prepare(2, 1, new Ballot(1L << 62, 2), 1));
        cluster.settle();
        assertEquals(Ballot.ZERO, cluster.replicas[1].promised());
    }

    @Test
    void aLeaderBeyondAStaleViewIsFollowedOnceTheViewCatchesUp() {
        TestCluster cluster = new TestCluster(3);
        seeEpoch(cluster, 1);
        long epoch = 2 + ReplicaDefence.epochSlack(); // allocated while the others' watches lagged
        cluster.elect(2, epoch);
        assertEquals(Role.CANDIDATE, cluster.replicas[2].role(), "nobody promises beyond its view plus the slack");
        seeEpoch(cluster, epoch);
        cluster.tick(100 * MS); // phase 1 retransmission (the retransmit interval)
        assertEquals(Role.LEADER, cluster.replicas[2].role());
        cluster.propose(2, 7, 1, new KvCommand.Append("k", 1));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
    }

    @Test
    void aForgedAcceptNeitherRewritesAChosenSlotNorCommitsWhatItWrites() {
        TestCluster cluster = new TestCluster(3);
        cluster.elect(0, 1);
        seeEpoch(cluster, 1);
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 1));
        cluster.tick(100 * MS);
        assertEquals(1, cluster.replicas[1].commitSlot());
        Ballot ballot = new Ballot(1, 0);
        Command forged = new Command(99, 1, new KvCommand.Append("k", 666).encode());
        // The next slot, claimed committed by the same message: accepted at most, not applied.
        cluster.replicas[1].step(new Message.Accept(0, 1, ballot, List.of(new Entry(2, ballot, forged)), 2));
        // The chosen slot with another value: refused and counted.
        cluster.replicas[1].step(new Message.Accept(0, 1, ballot, List.of(new Entry(1, ballot, forged)), 2));
        cluster.settle();
        assertEquals(1, cluster.replicas[1].commitSlot(), "no commit point from a forged Accept");
        assertEquals(1, cluster.replicas[1].defence().divergences());
        // The leader's own value for slot 2 replaces the forged one (counted: two values in one ballot).
        cluster.propose(0, 7, 2, new KvCommand.Append("k", 2));
        cluster.tick(100 * MS);
        assertEquals(2, cluster.replicas[1].defence().divergences());
        for (int node = 0; node < 3; node++) {
            assertArrayEquals(new long[] {1, 2}, cluster.readList(node, "k"), "node " + node);
        }
    }
}
