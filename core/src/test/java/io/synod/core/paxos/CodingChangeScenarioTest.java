package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.kv.KvStateMachine;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import org.junit.jupiter.api.Test;

/**
 * Coding changes through the log (docs/erasure.md "Coding changes"), scripted on five replicas: a change
 * entry makes the slots after it commit with the new coding's quorums and new values take its X, every
 * replica applies it at the same slot, and the coding survives snapshots and restarts.
 */
class CodingChangeScenarioTest {
    private static final Coding CODING = Coding.rsPaxos(5, 1, 3, 64);

    private static byte[] value(int length, int seed) {
        byte[] value = new byte[length];
        for (int i = 0; i < length; i++) {
            value[i] = (byte) (i * 17 + seed);
        }
        return value;
    }

    private static TestCluster cluster(ReplicaConfig config) {
        TestCluster cluster = new TestCluster(5, config, node -> new KvStateMachine(), CODING, LeaseHooks.NONE);
        cluster.elect(0, 1);
        return cluster;
    }

    private static Entry lastEntry(TestCluster cluster, int node) {
        return cluster.disks[node].entries.lastEntry().getValue();
    }

    @Test
    void aChangeSetsTheCodingOfLaterValuesOnEveryReplica() {
        TestCluster cluster = cluster(ReplicaConfig.defaults(0, 5));
        cluster.propose(0, 7, 1, new KvCommand.Put("a", value(900, 1)));
        assertEquals(3, lastEntry(cluster, 1).coded().dataShards(), "coded with X = 3 before the change");

        assertTrue(cluster.replicas[0].proposeCodingChange(1, 2, 64));
        cluster.settle();
        cluster.tick(60_000_000L);
        for (int node = 0; node < 5; node++) {
            Coding now = cluster.replicas[node].coding();
            assertEquals(1, now.failures(), "node " + node);
            assertEquals(2, now.dataShards(), "node " + node);
        }
        cluster.propose(0, 7, 2, new KvCommand.Put("b", value(900, 2)));
        assertEquals(2, lastEntry(cluster, 1).coded().dataShards(), "coded with X = 2 after the change");

        assertTrue(cluster.replicas[0].proposeCodingChange(2, 1, 64)); // X = 1: full copies.
        cluster.settle();
        cluster.propose(0, 7, 3, new KvCommand.Put("c", value(900, 3)));
        assertNull(lastEntry(cluster, 1).coded(), "plain after the change to X = 1");
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
    }

    @Test
    void slotsAfterAChangeCommitWithItsWriteQuorum() {
        TestCluster cluster = cluster(ReplicaConfig.defaults(0, 5));
        // Only nodes 0 and 1 accept: Q_W(1) = F + 1 = 2 under F = 1 commits a small value.
        cluster.drop = m -> m instanceof Message.Accept && m.to() >= 2;
        cluster.propose(0, 7, 1, new KvCommand.Put("a", new byte[] {1}));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status(), "F = 1: two acceptances choose a plain value");
        long committed = cluster.replicas[0].commitSlot();

        cluster.drop = m -> false;
        assertTrue(cluster.replicas[0].proposeCodingChange(2, 1, 64));
        cluster.settle();
        assertEquals(committed + 1, cluster.replicas[0].commitSlot(), "the change committed");

        cluster.drop = m -> m instanceof Message.Accept && m.to() >= 2;
        cluster.propose(0, 7, 2, new KvCommand.Put("a", new byte[] {2}));
        cluster.tick(1_000_000L);
        assertEquals(committed + 1, cluster.replicas[0].commitSlot(), "F = 2 now: two acceptances do not choose it");
        cluster.drop = m -> false;
        cluster.tick(1_000_000_000L); // The Accept is retransmitted to the others.
        assertEquals(committed + 2, cluster.replicas[0].commitSlot(), "three acceptances do");
    }

    @Test
    void theCodingSurvivesSnapshotsAndRestarts() {
        TestCluster cluster = cluster(ReplicaConfig.defaults(0, 5).withSnapshotEverySlots(4, 1));
        assertTrue(cluster.replicas[0].proposeCodingChange(1, 2, 100));
        cluster.settle();
        for (int i = 1; i <= 8; i++) {
            cluster.propose(0, 7, i, new KvCommand.Put("k" + i, new byte[] {(byte) i}));
        }
        cluster.tick(60_000_000L);
        for (int node = 0; node < 5; node++) {
            assertTrue(cluster.disks[node].snapshot.lastIncludedSlot() >= 4, "node " + node + " took a snapshot");
            assertTrue(cluster.disks[node].entries.values().stream().noneMatch(e -> Coding.isChange(e.command())),
                    "node " + node + " compacted the change entry away");
            byte[] trailer = ClientSessions.trailerOf(cluster.disks[node].snapshot.sessions());
            assertNotNull(trailer, "node " + node + "'s snapshot records the coding");
        }
        for (int node = 0; node < 5; node++) {
            cluster.crash(node);
        }
        for (int node = 0; node < 5; node++) {
            cluster.restart(node);
            Coding restored = cluster.replicas[node].coding();
            assertEquals(2, restored.dataShards(), "node " + node);
            assertEquals(100, restored.thresholdBytes(), "node " + node);
        }
        cluster.elect(3, 2); // Phase 1 on restarted replicas; the new leader codes with X = 2.
        cluster.propose(3, 8, 1, new KvCommand.Put("big", value(500, 4)));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(8).status());
        assertEquals(2, lastEntry(cluster, 1).coded().dataShards());
    }

    @Test
    void badChangesAreRefused() {
        TestCluster cluster = cluster(ReplicaConfig.defaults(0, 5));
        IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
                () -> cluster.replicas[0].proposeCodingChange(2, 3, 64));
        assertTrue(tooMany.getMessage().contains("X <= N - 2F"), tooMany.getMessage());
        assertFalse(cluster.replicas[1].proposeCodingChange(1, 2, 64), "only a leader proposes");
        cluster.replicas[0].propose(new ClientRequest(new Command(Coding.CHANGE_CLIENT, 1, CODING.withChange(1, 2, 64)
                .changeCommand().payload())));
        cluster.settle();
        assertEquals(ClientReply.Status.REJECTED, cluster.lastReply(Coding.CHANGE_CLIENT).status(), "a client cannot forge one");
        assertEquals(3, cluster.replicas[0].coding().dataShards());
        assertThrows(IllegalStateException.class, () -> new TestCluster(3).replicas[0].proposeCodingChange(1, 1, 64),
                "no coding, nothing to change");
    }
}
