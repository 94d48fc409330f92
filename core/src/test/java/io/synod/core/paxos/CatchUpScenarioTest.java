package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.KvCommand;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Catch-up of a follower whose applied slot goes back while the same leader stays in office. Rule
 * checked: Lamport, "Paxos Made Simple" (2001), §3: a replica that does not know a slot's chosen
 * value must be able to learn it from the leader, so every replica eventually executes every chosen
 * command; re-sending a chosen value in the leader's ballot is safe by §2.2, P2c.
 */
class CatchUpScenarioTest {
    private static final long MS = 1_000_000L;

    @Test
    void aFollowerThatRestartsBehindWhatItReportedAppliedStillCatchesUp() {
        TestCluster cluster = new TestCluster(3);
        cluster.elect(0, 1);
        for (int i = 1; i <= 5; i++) {
            cluster.propose(0, 7, i, new KvCommand.Append("k", i));
        }
        cluster.tick(100 * MS); // the heartbeat carries the commit point: every replica applies 1..5
        assertEquals(5, cluster.replicas[2].appliedSlot());
        cluster.crash(0);
        cluster.elect(1, 2); // phase 1 from slot 6: slots 1..5 stay in ballot 1 on every disk
        cluster.tick(100 * MS); // node 2 tells the new leader it applied through 5
        // Node 2 restarts with no snapshot: its state machine starts empty and it knows no commit point,
        // though its log still holds 1..5, accepted in ballot 1.
        cluster.crash(2);
        cluster.restart(2);
        assertEquals(0, cluster.replicas[2].appliedSlot());
        for (int i = 6; i <= 8; i++) {
            cluster.propose(1, 7, i, new KvCommand.Append("k", i)); // nodes 1 and 2 are the quorum
        }
        // The leader's heartbeats alone cannot commit slots 1..5 for node 2 (they are in an older
        // ballot): the leader must send them again, although node 2 once reported them applied.
        for (int round = 0; round < 10 && cluster.replicas[2].appliedSlot() < 8; round++) {
            cluster.tick(100 * MS);
        }
        assertEquals(8, cluster.replicas[2].appliedSlot(), "the restarted follower caught up with the same leader");
        assertArrayEquals(cluster.readList(1, "k"), cluster.readList(2, "k"));
    }

    /**
     * A learner added after slots were proposed never got their Accepts (the leader sends the log only to the members
     * in reach): it is sent them as catch-up at once, not a retransmission interval later as if an Accept to it were
     * still on its way. Rules: Paxos Made Simple §3 (every replica learns every chosen value from the leader), and
     * docs/membership.md M6 (a learner is promoted once it has applied through the commit point, so the time it takes
     * to catch up is the time its promotion waits).
     */
    @Test
    void aLearnerAddedAfterSlotsWereProposedGetsThemAtOnce() {
        TestCluster cluster = new TestCluster(5);
        cluster.startWith(GroupMembership.firstVoters(5, 3)); // 0, 1, 2 vote; 3 and 4 are spares
        cluster.elect(0, 1);
        for (int i = 1; i <= 5; i++) {
            cluster.propose(0, 7, i, new KvCommand.Append("k", i));
        }
        assertEquals(0, cluster.replicas[3].appliedSlot(), "a spare hears nothing");
        cluster.replicas[0].membership().addLearner(3);
        cluster.settle(); // no time passes: no retransmission interval, no heartbeat
        long commit = cluster.replicas[0].commitSlot();
        assertEquals(commit, cluster.replicas[3].appliedSlot(), "the new learner applied through the commit point");
        assertArrayEquals(cluster.readList(0, "k"), cluster.readList(3, "k"));
        assertEquals(commit, cluster.replicas[0].membership().peerAppliedSlot(3), "and the leader heard it (rule M6)");
    }

    /**
     * A learner far behind is sent its next batch together with the commit point of the one it just accepted, before
     * it reports having applied it: one round trip per batch, not two. Batches are bounded by bytes, not by the entry
     * count of a proposal batch, and several leave at once (a turn). Rules as above (Paxos Made Simple §3; §2.2, P2c
     * for re-sending chosen values).
     */
    @Test
    void aLearnerFarBehindGetsItsNextBatchWithTheCommitPointOfTheLast() {
        ReplicaConfig config = ReplicaConfig.defaults(0, 5).toBuilder().maxBatchEntries(16).maxBatchBytes(4096).build();
        TestCluster cluster = new TestCluster(5, config);
        cluster.startWith(GroupMembership.firstVoters(5, 3));
        cluster.elect(0, 1);
        for (int i = 1; i <= 300; i++) {
            cluster.propose(0, 7, i, new KvCommand.Append("k", i));
        }
        List<long[]> batches = new ArrayList<>(); // per catch-up Accept to 3: first slot, entries, 3's last report
        long[] reported = {0};
        int[] inARow = {0, 0}; // catch-up Accepts delivered to 3 with no Accepted of 3's between them: now, most
        cluster.drop = m -> {
            if (m.to() == 3 && m instanceof Message.Accept a && a.entries().get(0).slot() <= 300) {
                inARow[1] = Math.max(inARow[1], ++inARow[0]);
            }
            if (m.from() == 3 && m instanceof Message.Accepted a) {
                inARow[0] = 0;
                reported[0] = a.appliedSlot();
            } else if (m.from() == 3 && m instanceof Message.HeartbeatReply r) {
                reported[0] = r.appliedSlot();
            } else if (m.to() == 3 && m instanceof Message.Accept a && a.entries().get(0).slot() <= 300) {
                batches.add(new long[] {a.entries().get(0).slot(), a.entries().size(), reported[0]});
            }
            return false;
        };
        cluster.replicas[0].membership().addLearner(3);
        cluster.settle();
        assertEquals(cluster.replicas[0].commitSlot(), cluster.replicas[3].appliedSlot(), "caught up with no timer");
        assertArrayEquals(cluster.readList(0, "k"), cluster.readList(3, "k"));
        assertTrue(batches.size() >= 3, "several batches: " + batches.size());
        assertTrue(batches.stream().anyMatch(b -> b[1] > 16), "a catch-up batch is bounded by bytes, not by 16 entries");
        assertTrue(batches.stream().anyMatch(b -> b[2] < b[0] - 1),
                "a batch left before the learner reported applying the one before it (pipelined)");
        assertEquals(CatchUp.BATCHES_PER_TURN, inARow[1], "a turn of batches left at once, before the learner "
                + "acknowledged any of them, and no more");
    }
}
