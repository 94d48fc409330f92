package io.synod.server.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.synod.core.kv.KvCommand;
import io.synod.core.paxos.ClientReply;
import io.synod.core.paxos.ElectionEvent;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.core.paxos.Role;
import io.synod.server.log.GroupStorage;
import io.synod.server.state.RocksKvStateMachine;
import io.synod.server.wire.WireFrame;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A one-replica group on real storage: it commits, and an fsync/write failure stops it for good (fsyncgate). */
class GroupLoopTest {
    @TempDir
    Path dir;

    static WireFrame.ClientResponse call(GroupLoop loop, long seq) throws Exception {
        CompletableFuture<WireFrame.ClientResponse> f = new CompletableFuture<>();
        loop.onClientCommand(new WireFrame.ClientCommand(seq, 9, seq, new KvCommand.Put("k" + seq, new byte[] {1}).encode()),
                f::complete);
        return f.get(20, TimeUnit.SECONDS);
    }

    @Test
    @Timeout(60)
    void commitsThenStopsForGoodWhenStorageFails() throws Exception {
        GroupStorage storage = GroupStorage.open(dir.resolve("g"), 1 << 16);
        RocksKvStateMachine sm = new RocksKvStateMachine(dir.resolve("rocks"));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        GroupLoop loop = new GroupLoop(0, ReplicaConfig.defaults(0, 1), storage, sm, sm, m -> { }, null,
                new GroupMetrics(registry, 0), 5_000_000L, 1024, 1024);
        try {
            loop.start();
            loop.onElection(new ElectionEvent.Elected(1));
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (loop.status().role() != Role.LEADER.ordinal() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            // A message the replica refuses (unknown sender) is dropped; the group keeps serving.
            loop.onPeerMessage(new io.synod.core.paxos.Message.Heartbeat(4, 0, new io.synod.core.paxos.Ballot(9, 4), 3));
            for (long seq = 1; seq <= 20; seq++) {
                assertEquals(ClientReply.Status.OK.ordinal(), call(loop, seq).status());
            }
            assertTrue(registry.get("synod.fsync.latency").timer().count() > 0);
            assertEquals(1, loop.droppedInputs(), "the refused message was dropped, not fatal");
            assertTrue(registry.get("synod.commit.latency").timer().count() >= 20);

            storage.log().close(); // The next append hits a closed file: a storage failure.
            assertEquals(WireFrame.ClientResponse.STATUS_NO_GROUP, call(loop, 21).status());
            assertEquals(WireFrame.GroupStatus.FAILED, loop.status().state());
            assertEquals(WireFrame.ClientResponse.STATUS_NO_GROUP, call(loop, 22).status(), "no retry: it stays stopped");
        } finally {
            loop.close();
        }
    }
}
