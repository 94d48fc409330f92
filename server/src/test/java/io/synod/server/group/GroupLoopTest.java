package io.synod.server.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.synod.coordination.LeaseMode;
import io.synod.coordination.LeaseTiming;
import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.core.paxos.Role;
import io.synod.leases.LeaderLease;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import io.synod.protocol.RoutedCommand;
import io.synod.server.group.driver.GroupDriverConfig;
import io.synod.server.group.driver.GroupMetrics;
import io.synod.server.lease.GroupLease;
import io.synod.server.log.GroupStorage;
import io.synod.server.state.RocksKvStateMachine;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A one-replica group on real storage: it commits, and an fsync/write failure stops it for good (fsyncgate). */
class GroupLoopTest {
    @TempDir
    Path dir;

    static ClientFrame.Response call(GroupLoop loop, long seq) throws Exception {
        CompletableFuture<ClientFrame.Response> f = new CompletableFuture<>();
        byte[] payload = new KvCommand.Put("k" + seq, new byte[] {1}).encode();
        loop.onClientCommand(new ClientFrame.Command(seq, 9, seq, payload), RoutedCommand.of(payload), f::complete);
        return f.get(20, TimeUnit.SECONDS);
    }

    @Test
    @Timeout(60)
    void commitsThenStopsForGoodWhenStorageFails() throws Exception {
        GroupStorage storage = GroupStorage.open(dir.resolve("g"), 1 << 16);
        RocksKvStateMachine sm = new RocksKvStateMachine(dir.resolve("rocks"));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        GroupLoop loop = new GroupLoop(GroupDriverConfig.of(0, ReplicaConfig.defaults(0, 1), 1024,
                new GroupMetrics(registry, 0)), storage, sm, sm, m -> { }, null, 5_000_000L, 1024);
        try {
            loop.start();
            loop.onElection(new ElectionEvent.Elected(1));
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (loop.status().role() != Role.LEADER.ordinal() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            // A message the replica refuses (unknown sender) is dropped; the group keeps serving.
            loop.onPeerMessage(new Message.Heartbeat(4, 0, new Ballot(9, 4), 3));
            for (long seq = 1; seq <= 20; seq++) {
                assertEquals(ClientReply.Status.OK.ordinal(), call(loop, seq).status());
            }
            assertTrue(registry.get("synod.fsync.latency").timer().count() > 0);
            assertEquals(1, loop.droppedInputs(), "the refused message was dropped, not fatal");
            assertTrue(registry.get("synod.commit.latency").timer().count() >= 20);

            storage.log().close(); // The next append hits a closed file: a storage failure.
            assertEquals(ClientFrame.STATUS_NO_GROUP, call(loop, 21).status());
            assertEquals(ClientFrame.GroupStatus.FAILED, loop.status().state());
            assertEquals(ClientFrame.STATUS_NO_GROUP, call(loop, 22).status(), "no retry: it stays stopped");
        } finally {
            loop.close();
        }
    }

    private static GroupLoop leader(GroupStorage storage, RocksKvStateMachine sm, ReplicaConfig config) throws Exception {
        GroupLoop loop = new GroupLoop(GroupDriverConfig.of(0, config, 1024,
                new GroupMetrics(new SimpleMeterRegistry(), 0)), storage, sm, sm, m -> { }, null, 5_000_000L, 1024);
        return loop;
    }

    private static void lead(GroupLoop loop, long epoch) throws Exception {
        loop.start();
        loop.onElection(new ElectionEvent.Elected(epoch));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (loop.status().role() != Role.LEADER.ordinal() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(Role.LEADER.ordinal(), loop.status().role());
    }

    private static ClientFrame.Response send(GroupLoop loop, long seq, KvCommand command) throws Exception {
        CompletableFuture<ClientFrame.Response> f = new CompletableFuture<>();
        byte[] payload = command.encode();
        loop.onClientCommand(new ClientFrame.Command(seq, 9, seq, payload), RoutedCommand.of(payload), f::complete);
        return f.get(20, TimeUnit.SECONDS);
    }

    @Test
    @Timeout(120)
    void aRestartStartsFromRocksDbsAppliedSlotAndSessionsAndARetryIsStillAppliedOnce() throws Exception {
        ReplicaConfig config = ReplicaConfig.defaults(0, 1).withSnapshotEverySlots(8, 2);
        long[] slots = new long[21];
        long appliedBefore;
        GroupStorage storage = GroupStorage.open(dir.resolve("g"), 1 << 16);
        RocksKvStateMachine sm = new RocksKvStateMachine(dir.resolve("rocksdb"), dir.resolve("g").resolve("snapshot"));
        GroupLoop loop = leader(storage, sm, config);
        try {
            lead(loop, 1);
            for (long seq = 1; seq <= 20; seq++) {
                ClientFrame.Response r = send(loop, seq, new KvCommand.Append("list", seq));
                assertEquals(ClientReply.Status.OK.ordinal(), r.status());
                slots[(int) seq] = r.slot();
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (loop.status().appliedSlot() < slots[20] && System.nanoTime() < deadline) {
                Thread.sleep(5); // The status is published at the end of the pass that answered.
            }
            appliedBefore = loop.status().appliedSlot();
            assertEquals(slots[20], appliedBefore);
            assertTrue(loop.status().snapshotSlot() > 0 && loop.status().snapshotSlot() < appliedBefore,
                    "a checkpoint snapshot was taken, and slots past it were applied: " + loop.status());
        } finally {
            loop.halt();
            loop.close();
        }

        storage = GroupStorage.open(dir.resolve("g"), 1 << 16);
        sm = new RocksKvStateMachine(dir.resolve("rocksdb"), dir.resolve("g").resolve("snapshot"));
        assertEquals(appliedBefore, sm.durableAppliedSlot(), "RocksDB holds everything applied, with its slot");
        loop = leader(storage, sm, config);
        try {
            // Started from RocksDB's slot, which became the snapshot: nothing was replayed from an older one.
            assertEquals(appliedBefore, loop.status().appliedSlot());
            assertEquals(appliedBefore, loop.status().snapshotSlot());
            lead(loop, 2);
            // A retry of sequence 20 (the client never saw its answer) is answered from the session
            // table RocksDB kept, with the slot it was applied in, and is not applied again.
            ClientFrame.Response retry = send(loop, 20, new KvCommand.Append("list", 20));
            assertEquals(ClientReply.Status.OK.ordinal(), retry.status());
            assertEquals(slots[20], retry.slot(), "answered from the session: the original slot");
            ClientFrame.Response list = send(loop, 21, new KvCommand.ReadList("list"));
            assertEquals(ClientReply.Status.OK.ordinal(), list.status());
            KvResult.ListValue value = (KvResult.ListValue) KvResult.decode(list.result());
            assertEquals(20, value.elements().length, "20 appends, the retry applied at most once");
        } finally {
            loop.close();
        }
    }

    /**
     * Deferred rebuild: RocksDB holds a key applied from a coded entry this group's log does not have (RocksDB was
     * written before the pass's fsync, then a crash). Its bytes cannot be rebuilt from this log, so the group starts
     * from its snapshot (here: none) instead of RocksDB's slot, and the unresolved record goes with the old state.
     */
    @Test
    @Timeout(60)
    void anUnresolvedKeyWhoseEntryTheLogLostMakesTheGroupStartFromItsSnapshot() throws Exception {
        byte[] put = new KvCommand.Put("k", new byte[100]).encode();
        CRC32C crc = new CRC32C();
        crc.update(put);
        try (RocksKvStateMachine sm = new RocksKvStateMachine(dir.resolve("rocksdb"), dir.resolve("g").resolve("snapshot"))) {
            sm.apply(1, new KvCommand.Put("x", new byte[] {1}).encode());
            sm.applyDeferred(2, sm.deferralHeader(put), put.length, (int) crc.getValue(), null);
        }
        GroupStorage storage = GroupStorage.open(dir.resolve("g"), 1 << 16);
        RocksKvStateMachine sm = new RocksKvStateMachine(dir.resolve("rocksdb"), dir.resolve("g").resolve("snapshot"));
        assertEquals(2, sm.durableAppliedSlot());
        assertEquals(1, sm.unresolvedKeys());
        GroupLoop loop = leader(storage, sm, ReplicaConfig.defaults(0, 1));
        try {
            assertEquals(0, loop.status().appliedSlot(), "started from the (empty) snapshot, not RocksDB's slot 2");
            assertEquals(0, sm.unresolvedKeys());
            assertEquals(0, sm.size(), "RocksDB holds the snapshot's state");
        } finally {
            loop.close();
        }
    }

    /**
     * A graceful close of a leader under a leader lease ends its lease through the log (LeaseGuard §3, the
     * end-lease entry): the entry is committed right after the last write, and from then on the leader
     * answers no read under the lease and takes no command; a halt (a crash) appends nothing. (A new
     * incarnation waits Δ before its first commit, so Δ is short; reads are retried until one is served
     * under the lease, which the idle no-op renews.)
     */
    @Test
    @Timeout(120)
    void aGracefulCloseUnderALeaderLeaseCommitsTheEndLeaseEntryAndAHaltDoesNot() throws Exception {
        GroupLease lease = GroupLease.of(LeaseMode.LEADER, new LeaseTiming(2_000, 1_000, 0));
        ReplicaConfig config = ReplicaConfig.defaults(0, 1);
        for (boolean graceful : new boolean[] {true, false}) {
            Path g = dir.resolve(graceful ? "graceful" : "halted");
            GroupStorage storage = GroupStorage.open(g.resolve("log"), 1 << 16);
            RocksKvStateMachine sm = new RocksKvStateMachine(g.resolve("rocksdb"));
            GroupLoop loop = new GroupLoop(GroupDriverConfig.of(0, config, 1024,
                    new GroupMetrics(new SimpleMeterRegistry(), 0)).withLease(lease), storage, sm, sm, m -> { }, null,
                    5_000_000L, 1024);
            long written;
            try {
                lead(loop, 1);
                ClientFrame.Response put = send(loop, 1, new KvCommand.Put("k", new byte[] {7}));
                assertEquals(ClientReply.Status.OK.ordinal(), put.status());
                written = put.slot();
                long seq = 2;
                ClientFrame.Response read = send(loop, seq, new KvCommand.Get("k"));
                while (read.served() != ClientFrame.SERVED_LEASE && seq < 200) {
                    assertEquals(ClientReply.Status.OK.ordinal(), read.status());
                    read = send(loop, ++seq, new KvCommand.Get("k"));
                }
                assertEquals(ClientFrame.SERVED_LEASE, read.served(), "the leader reads under its lease");
                if (graceful) {
                    loop.beginHandOver();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    ClientFrame.Response after = send(loop, ++seq, new KvCommand.Get("k"));
                    while (after.status() == ClientReply.Status.OK.ordinal() && System.nanoTime() < deadline) {
                        after = send(loop, ++seq, new KvCommand.Get("k")); // Answered before the loop took the request.
                    }
                    assertEquals(ClientReply.Status.BUSY.ordinal(), after.status(),
                            "no read under an ended lease (and none through the log in that ballot)");
                    assertEquals(ClientReply.Status.BUSY.ordinal(),
                            send(loop, ++seq, new KvCommand.Put("k", new byte[] {8})).status(), "no new command after it");
                } else {
                    loop.halt();
                }
            } finally {
                loop.close();
            }
            long committed = loop.status().commitSlot(); // As the loop last published it.
            GroupStorage reopened = GroupStorage.open(g.resolve("log"), 1 << 16);
            try {
                List<Entry> entries = reopened.durableState().entries();
                Entry last = entries.get(entries.size() - 1);
                long endLeases = entries.stream().filter(e -> e.command().equals(LeaderLease.END_LEASE)).count();
                assertEquals(graceful ? 1 : 0, endLeases, (graceful ? "graceful" : "halted") + ": log " + entries);
                if (graceful) {
                    assertEquals(LeaderLease.END_LEASE, last.command(), "the end-lease entry is the ballot's last");
                    assertTrue(last.slot() > written, "after the write");
                    assertEquals(last.slot(), committed, "committed before the close");
                }
            } finally {
                reopened.close();
            }
        }
    }
}
