package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.erasure.ValueShard;
import io.synod.core.kv.KvStateMachine;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import org.junit.jupiter.api.Test;

/**
 * Rule M9 (docs/membership.md, "Coding with membership changes"), scripted: a group of seven replica ids coded
 * with RS-Paxos (5, 1, 3), so ids 5 and 6 lie past the code length. Replica i &lt; 5 gets shard i; ids 5 and 6 get
 * the whole value; a new leader that holds only its shard rebuilds a chosen value from the promises.
 */
class IdsBeyondTheCodeScenarioTest {
    private static final Coding CODING = Coding.rsPaxos(5, 1, 3, 64);

    private static byte[] value(int length) {
        byte[] value = new byte[length];
        for (int i = 0; i < length; i++) {
            value[i] = (byte) (i * 31 + 7);
        }
        return value;
    }

    @Test
    void idsBelowTheCodeGetTheirShardAndIdsBeyondItTheWholeValue() {
        TestCluster cluster = new TestCluster(7, ReplicaConfig.defaults(0, 7), node -> new KvStateMachine(), CODING, LeaseHooks.NONE);
        cluster.elect(0, 1);
        cluster.propose(0, 7, 1, new KvCommand.Put("k", value(3000)));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
        long slot = cluster.replicas[0].commitSlot();
        for (int node = 1; node < 7; node++) {
            Entry held = cluster.disks[node].entries.get(slot);
            assertNotNull(held, "node " + node + " accepted slot " + slot);
            assertNotNull(held.coded(), "a coded value");
            assertEquals(5, held.coded().totalShards(), "the code length stays 5 with 7 ids");
            if (node >= 5) {
                assertTrue(held.isComplete(), "node " + node + " is past the code: a full copy, got " + held);
            } else {
                assertFalse(held.isComplete(), "node " + node + " holds a shard, got " + held);
                assertEquals(node, ValueShard.fromBytes(held.coded().shard()).index(), "node " + node + " holds its own shard");
            }
        }
    }

    @Test
    void aNewLeaderRebuildsAChosenValueFromDistinctShardsAndFullCopies() {
        TestCluster cluster = new TestCluster(7, ReplicaConfig.defaults(0, 7), node -> new KvStateMachine(), CODING, LeaseHooks.NONE);
        cluster.elect(0, 1);
        byte[] big = value(2500);
        // Chosen by {0, 1, 2, 5, 6}: two shards besides the leader's and the two full copies.
        cluster.drop = m -> m instanceof Message.Accept && (m.to() == 3 || m.to() == 4);
        cluster.propose(0, 7, 1, new KvCommand.Put("k", big));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
        cluster.drop = m -> false;
        cluster.crash(0); // The leader, whose cache holds the whole value, is gone.
        cluster.elect(1, 2);
        cluster.propose(1, 8, 1, new KvCommand.Get("k"));
        ClientReply reply = cluster.lastReply(8);
        assertEquals(ClientReply.Status.OK, reply.status());
        assertArrayEquals(big, ((KvResult.Value) KvResult.decode(reply.result())).value());
    }
}
