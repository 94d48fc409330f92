package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.kv.KvStateMachine;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Full copies for quorum-lease holders (issue 11), scripted on five replicas with RS-Paxos (5, 1, 3) and
 * deferred rebuild: the acceptors the lease policy requires for an entry (the holders of its key) are sent
 * the whole value instead of their shard, so they apply it whole and serve local reads of it without a
 * recovery read; the others keep a shard; and F + 1 full copies choose a value.
 */
class FullCopyForHoldersScenarioTest {
    private static final Coding CODING = Coding.rsPaxos(5, 1, 3, 64).withDeferredRebuild();
    /** Nodes 1 and 2 hold every key. */
    private static final long HOLDERS = (1L << 1) | (1L << 2);

    private static final class Holders implements LeaseHooks {
        @Override
        public boolean mayServeLocalRead(Role role, Command read, long nowNanos) {
            return role == Role.FOLLOWER;
        }

        @Override
        public boolean mayCommit(Entry entry, long nowNanos) {
            return true;
        }

        @Override
        public long requiredAcceptors(Entry entry) {
            return entry.command().isNoop() ? 0L : HOLDERS;
        }
    }

    private final List<Message.ShardRequest> shardRequests = new ArrayList<>();
    private final List<Message.Accept> accepts = new ArrayList<>();

    private TestCluster cluster() {
        TestCluster cluster = new TestCluster(5, ReplicaConfig.defaults(0, 5), node -> new KvStateMachine(), CODING, new Holders());
        cluster.drop = m -> {
            if (m instanceof Message.ShardRequest request) {
                shardRequests.add(request);
            }
            if (m instanceof Message.Accept accept) {
                accepts.add(accept);
            }
            return false;
        };
        cluster.elect(0, 1);
        return cluster;
    }

    private static byte[] value(int length) {
        byte[] value = new byte[length];
        for (int i = 0; i < length; i++) {
            value[i] = (byte) (i * 13 + 5);
        }
        return value;
    }

    @Test
    void holdersGetTheWholeValueAndServeItLocallyWithoutARecoveryRead() {
        TestCluster cluster = cluster();
        byte[] big = value(3000);
        cluster.propose(0, 7, 1, new KvCommand.Put("k", big));
        cluster.tick(60_000_000L);
        long slot = cluster.replicas[0].commitSlot();
        for (int node = 1; node < 5; node++) {
            Entry held = cluster.disks[node].entries.get(slot);
            boolean holder = (HOLDERS & (1L << node)) != 0;
            assertEquals(holder, held.isComplete(), "node " + node + " holds " + held);
            assertEquals(holder ? 0 : 1, cluster.replicas[node].unresolvedSlots(), "node " + node);
        }
        for (int holder = 1; holder <= 2; holder++) {
            cluster.propose(holder, 8, holder, new KvCommand.Get("k"));
            ClientReply reply = cluster.lastReply(8);
            assertEquals(ClientReply.Status.OK, reply.status(), "holder " + holder + " serves it locally");
            assertArrayEquals(big, ((KvResult.Value) KvResult.decode(reply.result())).value());
        }
        assertEquals(List.of(), shardRequests, "no recovery read at the holders (or anywhere)");
        cluster.propose(3, 9, 1, new KvCommand.Get("k"));
        assertEquals(ClientReply.Status.NOT_LEADER, cluster.lastReply(9).status(), "a non-holder must rebuild it first");
        assertFalse(shardRequests.isEmpty());
        assertTrue(shardRequests.stream().allMatch(r -> r.from() == 3));
    }

    @Test
    void fPlusOneFullCopiesChooseAValue() {
        TestCluster cluster = cluster();
        // Only the holders (full copies) and the leader accept: 3 acceptances, below Q_W(3) = 4, but the two
        // full copies are F + 1 = 2: any read quorum of 4 holds one of them.
        cluster.drop = m -> m instanceof Message.Accept && m.to() >= 3;
        cluster.propose(0, 7, 1, new KvCommand.Put("k", value(2000)));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
        long slot = cluster.replicas[0].commitSlot();
        assertTrue(cluster.disks[1].entries.get(slot).isComplete() && cluster.disks[2].entries.get(slot).isComplete());

        // A non-holder alone among the followers would not do: drop the holders' Accepts and nothing commits.
        cluster.drop = m -> m instanceof Message.Accept && (m.to() == 1 || m.to() == 2);
        cluster.propose(0, 7, 2, new KvCommand.Put("k", value(2100)));
        assertEquals(slot, cluster.replicas[0].commitSlot(), "the holders are required");
    }
}
