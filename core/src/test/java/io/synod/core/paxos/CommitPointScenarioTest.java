package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.KvCommand;
import org.junit.jupiter.api.Test;

/**
 * How the commit point reaches followers. Rule: Lamport, "Paxos Made Simple" (2001), §3 — every replica learns every
 * chosen value from the leader; a follower takes a slot as chosen only from a commit point carried by a later
 * message of the leader's ballot (the Accept that wrote the slot does not count, ReplicaGuard). The commit point a
 * follower lacks goes once per step of the leader, and not alone at all when an Accept of that step carries it.
 */
class CommitPointScenarioTest {
    private static final int FOLLOWER = 2;

    private static int[] heartbeatsTo(TestCluster cluster, Runnable load) {
        int[] counts = new int[cluster.replicas.length];
        cluster.drop = m -> {
            if (m instanceof Message.Heartbeat) {
                counts[m.to()]++;
            }
            return false;
        };
        load.run();
        cluster.drop = m -> false;
        return counts;
    }

    /** One write at a time: each follower is told its commit point by one Heartbeat per write, not one per rule. */
    @Test
    void aFollowerGetsTheCommitPointOnceAWrite() {
        TestCluster cluster = new TestCluster(3);
        cluster.elect(0, 1);
        int[] heartbeats = heartbeatsTo(cluster, () -> {
            for (int i = 1; i <= 10; i++) {
                cluster.propose(0, 7, i, new KvCommand.Append("k", i));
            }
        });
        // Before, the slower follower's Accepted found its slots committed and got two: catch-up's and the leader's.
        assertEquals(10, heartbeats[1], "follower 1");
        assertEquals(10, heartbeats[FOLLOWER], "follower 2");
        for (int node = 1; node < 3; node++) {
            assertEquals(cluster.replicas[0].commitSlot(), cluster.replicas[node].appliedSlot(), "node " + node);
            assertArrayEquals(cluster.readList(0, "k"), cluster.readList(node, "k"));
        }
    }

    /**
     * A stream of writes, each proposed while the previous one's Accepted from follower 2 arrives: the next Accept
     * carries the commit point, so no Heartbeat goes until the stream ends, and the followers still apply everything.
     */
    @Test
    void anAcceptOfTheSameStepCarriesTheCommitPoint() {
        TestCluster cluster = new TestCluster(3);
        cluster.elect(0, 1);
        int writes = 20;
        int[] next = {2};
        int[] heartbeats = new int[3];
        cluster.drop = m -> {
            if (m instanceof Message.Heartbeat) {
                heartbeats[m.to()]++;
            }
            if (m instanceof Message.Accepted && m.to() == 0 && m.from() == FOLLOWER && next[0] <= writes) {
                // Stepped right after this, before the leader's next Ready: a proposal and an acknowledgement in one step.
                int i = next[0]++;
                cluster.replicas[0].propose(new ClientRequest(new Command(7, i, new KvCommand.Append("k", i).encode())));
            }
            return false;
        };
        cluster.propose(0, 7, 1, new KvCommand.Append("k", 1));
        cluster.drop = m -> false;
        assertEquals(writes, cluster.replicas[0].commitSlot(), "every write committed");
        // Follower 2's acknowledgement shares a step with the next proposal: only the end of the stream goes alone to
        // it (its commit point, and again after the reply that reported what it applied before learning it; 40 before).
        // Follower 1's commits each write in a step of its own (this network delivers one message per step): one
        // Heartbeat per write, where the catch-up rule and the leader's rule sent one each before.
        assertTrue(heartbeats[FOLLOWER] <= 2, "follower 2 got " + heartbeats[FOLLOWER]);
        assertEquals(writes, heartbeats[1], "follower 1");
        for (int node = 1; node < 3; node++) {
            assertEquals(cluster.replicas[0].commitSlot(), cluster.replicas[node].appliedSlot(), "node " + node);
            assertArrayEquals(cluster.readList(0, "k"), cluster.readList(node, "k"));
        }
    }
}
