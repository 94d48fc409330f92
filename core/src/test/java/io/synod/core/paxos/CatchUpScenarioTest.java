package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.synod.protocol.KvCommand;
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
}
