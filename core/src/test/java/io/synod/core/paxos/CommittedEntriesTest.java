package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.kv.KvStateMachine;
import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The replica hands committed entries out and never applies them (etcd-io/raft's CommittedEntries): the
 * state machine changes only when the runtime runs the {@link Applier} over a Ready, and the at-most-once
 * decision is made there, at apply time. One node, driven by hand (no {@link ReadyLoop}), so each step shows.
 */
class CommittedEntriesTest {
    private static final long CLIENT = 7;

    private final KvStateMachine machine = new KvStateMachine();
    private final Replica replica = new Replica(ReplicaConfig.defaults(0, 1), DurableState.EMPTY, machine,
            QuorumPolicy.MAJORITY, LeaseHooks.NONE, 0);

    /** Persists (nothing to do in memory), applies the committed entries, advances; returns the application's answers. */
    private List<ClientReply> handle(Ready ready) {
        List<ClientReply> answers = replica.applier().apply(ready);
        replica.applied(ready);
        replica.advance(ready);
        return answers;
    }

    private void lead() {
        replica.onElection(new ElectionEvent.Elected(1));
        while (replica.hasReady()) {
            handle(replica.ready());
        }
        assertEquals(Role.LEADER, replica.role());
    }

    private long[] list(String key) {
        return assertInstanceOf(KvResult.ListValue.class,
                KvResult.decode(machine.read(new KvCommand.ReadList(key).encode()))).elements();
    }

    @Test
    void committedEntriesLeaveInTheReadyAndOnlyTheApplierAppliesThem() {
        lead();
        long applied = replica.appliedSlot();
        replica.propose(new ClientRequest(new Command(CLIENT, 1, new KvCommand.Append("k", 5).encode())));
        handle(replica.ready()); // the entry is written; the leader counts its own acceptance: chosen
        assertTrue(replica.commitSlot() > applied, "chosen after the leader's own fsync in a group of one");
        Ready ready = replica.ready();
        Committed committed = ready.committed().get(ready.committed().size() - 1);
        assertEquals(CLIENT, committed.entry().command().clientId());
        assertTrue(committed.awaited(), "the client waits at this replica");
        assertArrayEquals(new long[0], list("k"), "handed out, not applied by the replica");
        assertEquals(applied, replica.appliedSlot(), "the applied slot waits for the application");

        List<ClientReply> answers = handle(ready);
        assertArrayEquals(new long[] {5}, list("k"));
        assertEquals(committed.slot(), replica.appliedSlot());
        assertEquals(1, answers.size());
        assertEquals(ClientReply.Status.OK, answers.get(0).status());
        assertEquals(committed.slot(), answers.get(0).slot());
    }

    /** The same (client, sequence) chosen in two slots and handed out in one Ready is applied once (at most once). */
    @Test
    void aCommandChosenInTwoSlotsIsAppliedOnceAtApplyTime() {
        lead();
        long slot = replica.appliedSlot() + 1;
        Command append = new Command(CLIENT, 1, new KvCommand.Append("k", 5).encode());
        Ballot ballot = replica.ownBallot();
        Ready ready = new Ready(null, List.of(), null, 0, List.of(),
                List.of(new Committed(new Entry(slot, ballot, append), true, null),
                        new Committed(new Entry(slot + 1, ballot, append), true, null)),
                List.of(), false);

        List<ClientReply> answers = replica.applier().apply(ready);

        assertArrayEquals(new long[] {5}, list("k"), "applied once");
        assertEquals(2, answers.size());
        assertEquals(slot, answers.get(0).slot());
        assertEquals(slot, answers.get(1).slot(), "the duplicate is answered from the session table: the first slot");
        assertEquals(ClientReply.Status.OK, answers.get(1).status());
    }
}
