package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.kv.KvStateMachine;
import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.KvCommand;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The application's answers for a Ready's committed entries leave when the Ready is taken, not after its own writes:
 * a leader's Ready carries the commits of one batch and the new entries of the next, and the first batch (chosen
 * already) must not wait for the second batch's fsync. One node (a group of one commits on its own fsync), persisted
 * asynchronously by hand.
 */
class ReadyLoopAnswersTest {
    private final Replica replica = new Replica(ReplicaConfig.defaults(0, 1), DurableState.EMPTY, new KvStateMachine(),
            QuorumPolicy.MAJORITY, LeaseHooks.NONE, 0);
    private final List<ClientReply> replies = new ArrayList<>();
    private Ready pending;

    private final ReadyLoop loop = new ReadyLoop(replica, new ReadyLoop.Sink() {
        @Override
        public boolean persist(Ready ready) {
            pending = ready;
            return false; // durable later, when the test says so
        }

        @Override
        public void compactThrough(long slot) {}

        @Override
        public void send(Message message) {}

        @Override
        public void reply(ClientReply reply) {
            replies.add(reply);
        }

        @Override
        public void resign() {}
    });

    private void persistPending() {
        Ready ready = pending;
        pending = null;
        loop.persisted(ready);
    }

    /** A command of its own client (one outstanding command per client id). */
    private static ClientRequest append(long client, long value) {
        return new ClientRequest(new Command(client, 1, new KvCommand.Append("k", value).encode()));
    }

    @Test
    void answersOfCommittedEntriesLeaveBeforeTheWritesOfTheReadyThatCarriesThem() {
        replica.onElection(new ElectionEvent.Elected(1));
        loop.drive();
        while (pending != null) {
            persistPending();
        }
        assertEquals(Role.LEADER, replica.role());

        replica.propose(append(1, 5));
        loop.drive();
        Ready first = pending;
        assertNotNull(first, "the first command's entry is being written");
        replica.propose(append(2, 6)); // arrives while the first entry's fsync runs
        persistPending(); // the first entry is durable: chosen in a group of one; the next Ready takes it
        Ready second = pending;
        assertNotNull(second, "the second command's entry is being written");
        assertTrue(second.committed().stream().anyMatch(c -> c.entry().command().clientId() == 1),
                "the Ready being written also hands out the first command's commit");
        assertEquals(1, replies.stream().filter(r -> r.clientId() == 1 && r.status() == ClientReply.Status.OK).count(),
                "the first command is answered before the second entry's fsync");
        assertTrue(replies.stream().noneMatch(r -> r.clientId() == 2), "the second command is not chosen yet");

        persistPending();
        while (pending != null) {
            persistPending();
        }
        assertEquals(1, replies.stream().filter(r -> r.clientId() == 2 && r.status() == ClientReply.Status.OK).count());
    }
}
