package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.kv.KvStateMachine;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Deferred follower rebuild (docs/erasure.md), scripted on five replicas with RS-Paxos (5, 1, 3): a
 * follower applies a coded Put without rebuilding it (no recovery read), and rebuilds it only before a
 * local read of the key, a command that reads it, or a snapshot.
 */
class DeferredRebuildScenarioTest {
    private static final Coding CODING = Coding.rsPaxos(5, 1, 3, 64).withDeferredRebuild();

    /** Followers may read locally (as a quorum-lease holder would) when {@code followerReads} is set. */
    private static final class Hooks implements LeaseHooks {
        boolean followerReads;

        @Override
        public boolean mayServeLocalRead(Role role, Command read, long nowNanos) {
            return followerReads && role == Role.FOLLOWER;
        }

        @Override
        public boolean mayCommit(Entry entry, long nowNanos) {
            return true;
        }

        @Override
        public long requiredAcceptors(Entry entry) {
            return 0L;
        }
    }

    private final Hooks hooks = new Hooks();
    private final List<Message.ShardRequest> shardRequests = new ArrayList<>();

    private TestCluster cluster(ReplicaConfig config) {
        TestCluster cluster = new TestCluster(5, config, node -> new KvStateMachine(), CODING, hooks);
        cluster.drop = m -> {
            if (m instanceof Message.ShardRequest request) {
                shardRequests.add(request);
            }
            return false;
        };
        cluster.elect(0, 1);
        return cluster;
    }

    private static byte[] value(int length, int seed) {
        byte[] value = new byte[length];
        for (int i = 0; i < length; i++) {
            value[i] = (byte) (i * 31 + seed);
        }
        return value;
    }

    private static byte[] valueRead(ClientReply reply) {
        return ((KvResult.Value) KvResult.decode(reply.result())).value();
    }

    @Test
    void followersApplyCodedPutsWithoutRecoveryReadsAndRebuildForALocalRead() {
        TestCluster cluster = cluster(ReplicaConfig.defaults(0, 5));
        byte[] big = value(3000, 1);
        cluster.propose(0, 7, 1, new KvCommand.Put("k", big));
        cluster.tick(60_000_000L); // A heartbeat carries the commit point to every follower.
        for (int node = 1; node < 5; node++) {
            assertEquals(cluster.replicas[0].appliedSlot(), cluster.replicas[node].appliedSlot(), "node " + node);
            assertEquals(1, cluster.replicas[node].unresolvedSlots(), "node " + node + " applied the put deferred");
        }
        assertEquals(0, cluster.replicas[0].unresolvedSlots(), "the leader applies from its cache");
        assertEquals(List.of(), shardRequests, "no recovery read to apply a deferred put");

        hooks.followerReads = true;
        cluster.propose(2, 8, 1, new KvCommand.Get("k"));
        assertEquals(ClientReply.Status.NOT_LEADER, cluster.lastReply(8).status(), "not served before it is rebuilt");
        assertTrue(shardRequests.stream().allMatch(r -> r.from() == 2) && !shardRequests.isEmpty(), "node 2 rebuilds it");
        assertEquals(0, cluster.replicas[2].unresolvedSlots());
        cluster.propose(2, 8, 2, new KvCommand.Get("k"));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(8).status());
        assertArrayEquals(big, valueRead(cluster.lastReply(8)));
        assertEquals(1, cluster.replicas[1].unresolvedSlots(), "the other followers still have not rebuilt it");
    }

    @Test
    void aCommandThatReadsADeferredKeyWaitsForItsRebuild() {
        TestCluster cluster = cluster(ReplicaConfig.defaults(0, 5));
        byte[] big = value(2000, 2);
        cluster.propose(0, 7, 1, new KvCommand.Put("k", big));
        cluster.tick(60_000_000L);
        assertEquals(List.of(), shardRequests);
        cluster.propose(0, 7, 2, new KvCommand.CompareAndSet("k", big, new byte[] {1}));
        cluster.tick(60_000_000L);
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
        for (int node = 1; node < 5; node++) {
            assertEquals(0, cluster.replicas[node].unresolvedSlots(), "node " + node);
            assertEquals(cluster.replicas[0].appliedSlot(), cluster.replicas[node].appliedSlot(), "node " + node);
            assertArrayEquals(cluster.replicas[0].stateMachine().snapshot(), cluster.replicas[node].stateMachine().snapshot(),
                    "node " + node + " swapped like the leader");
            assertTrue(shardRequests.stream().anyMatch(r -> r.from() != 0), "followers rebuilt the value the CAS compares");
        }
    }

    @Test
    void everySnapshotHoldsRebuiltValues() {
        TestCluster cluster = cluster(ReplicaConfig.defaults(0, 5).withSnapshotEverySlots(4, 1));
        byte[] a = value(1500, 3);
        cluster.propose(0, 7, 1, new KvCommand.Put("a", a));
        cluster.propose(0, 7, 2, new KvCommand.Put("b", value(1500, 4)));
        cluster.propose(0, 7, 3, new KvCommand.Put("b", value(1500, 5))); // Overwrites b: only its last value is rebuilt.
        cluster.propose(0, 7, 4, new KvCommand.Put("c", new byte[] {9})); // Small: not coded.
        cluster.tick(60_000_000L);
        for (int node = 1; node < 5; node++) {
            Replica follower = cluster.replicas[node];
            assertEquals(0, follower.unresolvedSlots(), "node " + node);
            assertTrue(follower.snapshotSlot() >= 4, "node " + node + " snapshot at " + follower.snapshotSlot());
            KvStateMachine restored = new KvStateMachine();
            restored.restore(cluster.disks[node].snapshot.stateMachineBytes());
            assertArrayEquals(a, ((KvResult.Value) KvResult.decode(restored.read(new KvCommand.Get("a").encode()))).value());
        }
        long rebuiltSlots = shardRequests.stream().mapToLong(Message.ShardRequest::slot).distinct().count();
        assertEquals(2, rebuiltSlots, "followers rebuilt a and the last b, not the overwritten b: " + shardRequests);
    }
}
