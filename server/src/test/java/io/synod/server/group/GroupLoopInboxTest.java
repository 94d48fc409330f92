package io.synod.server.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import io.synod.protocol.RoutedCommand;
import io.synod.server.group.driver.GroupDriverConfig;
import io.synod.server.group.driver.GroupMetrics;
import io.synod.server.log.GroupStorage;
import io.synod.server.state.RocksKvStateMachine;
import io.synod.server.wire.WireFrame;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Peer messages have their own bounded queue, drained first (docs/security.md, "Limits"): a client flood
 * that fills a group's client queue gets BUSY answers and costs no peer message. The group's progress
 * needs every Promise and Accept (Paxos Made Simple, §2.2-2.3); a shed one is only recovered by a
 * retransmission interval later, so client load must never be able to shed them.
 */
class GroupLoopInboxTest {
    private static final int CAPACITY = 16;

    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void aFloodedClientQueueAnswersBusyAndEveryPeerMessageIsStillAccepted() throws Exception {
        GroupStorage storage = GroupStorage.open(dir.resolve("g"), 1 << 16);
        RocksKvStateMachine sm = new RocksKvStateMachine(dir.resolve("rocks"));
        List<WireFrame.PeerMessage> sent = new CopyOnWriteArrayList<>();
        List<ClientFrame.Response> answers = new CopyOnWriteArrayList<>();
        // Node 0 of three; the loop is not started yet, so nothing drains and the queues fill as under a flood.
        GroupLoop loop = new GroupLoop(GroupDriverConfig.of(0, ReplicaConfig.defaults(0, 3), 1024,
                new GroupMetrics(new SimpleMeterRegistry(), 0)), storage, sm, sm, sent::add, null, 5_000_000L, CAPACITY);
        try {
            int flood = 3 * CAPACITY;
            for (long seq = 1; seq <= flood; seq++) {
                byte[] payload = new KvCommand.Put("k" + seq, new byte[] {1}).encode();
                loop.onClientCommand(new ClientFrame.Command(seq, 9, seq, payload), RoutedCommand.of(payload), answers::add);
            }
            assertEquals(flood - CAPACITY, loop.clientInputsBusy(), "the client queue holds its capacity, no more");
            assertEquals(flood - CAPACITY, answers.size(), "the surplus is answered at once");
            for (ClientFrame.Response r : answers) {
                assertEquals(ClientReply.Status.BUSY.ordinal(), r.status());
            }

            for (int epoch = 1; epoch <= CAPACITY; epoch++) {
                loop.onPeerMessage(new Message.Prepare(1, 0, new Ballot(epoch, 1), 1));
            }
            assertEquals(CAPACITY, loop.peerMessagesQueued(), "every peer message is accepted while clients flood");
            assertEquals(0, loop.droppedInputs(), "no peer message shed");

            loop.start();
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (!promised(sent, CAPACITY) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(promised(sent, CAPACITY), "the replica answered the highest Prepare: " + sent);
            while (answers.size() < flood && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(flood, answers.size(), "the queued client commands are answered too (not leader here)");
        } finally {
            loop.close();
        }
    }

    private static boolean promised(List<WireFrame.PeerMessage> sent, long epoch) {
        return sent.stream().anyMatch(m -> m.message() instanceof Message.Promise p && p.ballot().epoch() == epoch);
    }
}
