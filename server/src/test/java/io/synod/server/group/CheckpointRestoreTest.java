package io.synod.server.group;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.core.paxos.Role;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import io.synod.protocol.RoutedCommand;
import io.synod.server.group.driver.GroupDriverConfig;
import io.synod.server.group.driver.GroupMetrics;
import io.synod.server.log.GroupStorage;
import io.synod.server.state.RocksKvStateMachine;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group whose log is being repaired does not trust RocksDB's slot: it starts from its newest
 * snapshot, whose checkpoint (kept across the reopen of its snapshot store) is swapped in as RocksDB.
 */
class CheckpointRestoreTest {
    @TempDir
    Path dir;

    @Test
    @org.junit.jupiter.api.Timeout(60)
    void aRepairingGroupSwapsInItsSnapshotsCheckpoint() throws Exception {
        ReplicaConfig config = ReplicaConfig.defaults(0, 1).withSnapshotEverySlots(8, 2);
        GroupStorage storage = GroupStorage.open(dir.resolve("g"), 1 << 16);
        RocksKvStateMachine sm = new RocksKvStateMachine(dir.resolve("rocksdb"), dir.resolve("g").resolve("snapshot"));
        GroupLoop loop = new GroupLoop(GroupDriverConfig.of(0, config, 1024, new GroupMetrics(new SimpleMeterRegistry(), 0)), storage, sm, sm,
                m -> { }, null, 5_000_000L, 1024);
        loop.start();
        loop.onElection(new ElectionEvent.Elected(1));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (loop.status().role() != Role.LEADER.ordinal() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        for (long seq = 1; seq <= 20; seq++) {
            CompletableFuture<ClientFrame.Response> f = new CompletableFuture<>();
            byte[] append = new KvCommand.Append("l", seq).encode();
            loop.onClientCommand(new ClientFrame.Command(seq, 9, seq, append), RoutedCommand.of(append), f::complete);
            f.get(10, TimeUnit.SECONDS);
        }
        loop.halt();
        loop.close();
        storage = GroupStorage.open(dir.resolve("g"), 1 << 16);
        sm = new RocksKvStateMachine(dir.resolve("rocksdb"), dir.resolve("g").resolve("snapshot"));
        sm.ignoreDurableState();
        loop = new GroupLoop(GroupDriverConfig.of(0, config, 1024, new GroupMetrics(new SimpleMeterRegistry(), 0)), storage, sm, sm,
                m -> { }, null, 5_000_000L, 1024);
        try {
            long snapshot = loop.status().snapshotSlot();
            org.junit.jupiter.api.Assertions.assertTrue(snapshot >= 8, "a checkpoint snapshot exists: " + loop.status());
            org.junit.jupiter.api.Assertions.assertEquals(snapshot, loop.status().appliedSlot(), "started from the snapshot");
            org.junit.jupiter.api.Assertions.assertEquals(snapshot, sm.appliedSlot(), "its checkpoint is RocksDB now");
            KvResult.ListValue list = (KvResult.ListValue) KvResult.decode(
                    sm.read(new KvCommand.ReadList("l").encode()));
            org.junit.jupiter.api.Assertions.assertTrue(list.elements().length >= snapshot - 2 && list.elements().length < 20,
                    "the checkpoint's data: " + list.elements().length + " appends");
        } finally {
            loop.close();
        }
    }
}
