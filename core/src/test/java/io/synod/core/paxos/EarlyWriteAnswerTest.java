package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.synod.core.kv.KvStateMachine;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A leader whose lease policy answers writes before they apply ({@link LeaseHooks#answersWritesBeforeApply},
 * quorum leases, Moraru §3): a write whose own slot may commit is answered although a slot ahead of it
 * still waits for an acceptor the policy requires for another key; a write whose result is not certain
 * is not; a policy that does not opt in answers nothing before the slots ahead commit. 3 nodes, node 0
 * leads; writes of key "far" need node 2's acceptance, which the network withholds at first.
 */
class EarlyWriteAnswerTest {
    private static final long MS = 1_000_000L;

    /** Requires node 2 for writes of "far" (a quorum-lease holder of it); reads nothing locally. */
    private static LeaseHooks farNeedsNode2(boolean answersEarly) {
        return new LeaseHooks() {
            @Override
            public boolean mayServeLocalRead(Role role, Command read, long nowNanos) {
                return false;
            }

            @Override
            public boolean mayCommit(Entry entry, long nowNanos) {
                return true;
            }

            @Override
            public long requiredAcceptors(Entry entry) {
                if (entry.command().isNoop()) {
                    return 0;
                }
                return KvCommand.decode(entry.command().payload()).key().equals("far") ? 1L << 2 : 0;
            }

            @Override
            public boolean answersWritesBeforeApply() {
                return answersEarly;
            }
        };
    }

    private static TestCluster cluster(boolean answersEarly) {
        TestCluster cluster = new TestCluster(3, ReplicaConfig.defaults(0, 3), node -> new KvStateMachine(),
                node -> farNeedsNode2(answersEarly));
        cluster.elect(0, 1);
        cluster.drop = m -> m.to() == 2 && m instanceof Message.Accept; // node 2 does not hear of the writes yet
        return cluster;
    }

    private static long replies(TestCluster cluster, long clientId) {
        return cluster.replies.stream().filter(r -> r.clientId() == clientId).count();
    }

    @Test
    void aWriteWhoseSlotMayCommitIsAnsweredBeforeTheSlotAheadOfIt() {
        TestCluster cluster = cluster(true);
        cluster.propose(0, 7, 1, new KvCommand.Append("far", 1));
        assertNull(cluster.lastReply(7), "slot 1 waits for node 2");
        cluster.propose(0, 8, 1, new KvCommand.Append("near", 2));
        ClientReply early = cluster.lastReply(8);
        assertNotNull(early, "slot 2 needs only a majority: answered although slot 1 waits");
        assertEquals(ClientReply.Status.OK, early.status());
        assertEquals(2, early.slot());
        assertInstanceOf(KvResult.Done.class, KvResult.decode(early.result()));
        assertEquals(0, cluster.replicas[0].commitSlot(), "nothing committed: the commit point still waits for slot 1");
        assertEquals(0, cluster.replicas[0].appliedSlot());

        // Not certain: a put of a key an earlier chosen slot appends to would be an error if that slot
        // applies first (and it does). Not answered early; answered with the error when it applies.
        cluster.propose(0, 9, 1, new KvCommand.Put("near", new byte[] {1}));
        assertNull(cluster.lastReply(9));
        // A retry of the write answered early waits for the apply (its first answer may have been lost).
        cluster.propose(0, 8, 1, new KvCommand.Append("near", 2));
        assertEquals(1, replies(cluster, 8));

        cluster.drop = m -> false;
        cluster.tick(200 * MS); // retransmission reaches node 2; everything commits in order
        assertEquals(3, cluster.replicas[0].commitSlot());
        assertEquals(1, cluster.lastReply(7).slot());
        assertInstanceOf(KvResult.Error.class, KvResult.decode(cluster.lastReply(9).result()),
                "the put applied after an append of its key: the error the prediction refused to guess");
        assertEquals(2, replies(cluster, 8), "the retry is answered when the write applies, with the same slot");
        assertEquals(2, cluster.lastReply(8).slot());
        assertArrayEquals(new long[] {2}, cluster.readList(0, "near"));
    }

    @Test
    void withoutTheOptInTheWriteWaitsForTheSlotAheadOfIt() {
        TestCluster cluster = cluster(false);
        cluster.propose(0, 7, 1, new KvCommand.Append("far", 1));
        cluster.propose(0, 8, 1, new KvCommand.Append("near", 2));
        assertNull(cluster.lastReply(8), "in-order commit: slot 2 waits for slot 1's holder");
        cluster.drop = m -> false;
        cluster.tick(200 * MS);
        assertEquals(2, cluster.lastReply(8).slot());
        assertEquals(1, replies(cluster, 8));
    }

    @Test
    void theKeyValueMachinePredictsOnlyDoneAndOnlyWhenCertain() {
        KvStateMachine machine = new KvStateMachine();
        byte[] done = new KvResult.Done().encode();
        byte[] appendA = new KvCommand.Append("a", 1).encode();
        byte[] putA = new KvCommand.Put("a", new byte[] {1}).encode();
        assertArrayEquals(done, machine.resultBeforeApply(appendA, List.of()));
        assertArrayEquals(done, machine.resultBeforeApply(appendA, List.of(appendA, new KvCommand.Put("b", new byte[0]).encode())));
        assertArrayEquals(done, machine.resultBeforeApply(appendA, List.of(new KvCommand.ReadList("a").encode())));
        assertNull(machine.resultBeforeApply(appendA, List.of(putA)), "a put ahead makes the append an error");
        assertNull(machine.resultBeforeApply(appendA, List.of(new KvCommand.Delete("a").encode())));
        assertNull(machine.resultBeforeApply(putA, List.of(appendA)), "an append ahead makes the put an error");
        assertNull(machine.resultBeforeApply(new KvCommand.CompareAndSet("a", null, new byte[] {1}).encode(), List.of()),
                "compare-and-set depends on the state");
        assertNull(machine.resultBeforeApply(new KvCommand.ReadList("a").encode(), List.of()));
        assertNull(machine.resultBeforeApply(new byte[] {(byte) 0xEE}, List.of()), "undecodable");
        machine.apply(1, putA);
        assertNull(machine.resultBeforeApply(appendA, List.of()), "the key holds a value: the append is an error");
        assertArrayEquals(done, machine.resultBeforeApply(putA, List.of()));
    }
}
