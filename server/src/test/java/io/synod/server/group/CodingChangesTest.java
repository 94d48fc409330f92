package io.synod.server.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.synod.core.paxos.Coding;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.core.paxos.Role;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.KvCommand;
import io.synod.protocol.RoutedCommand;
import io.synod.server.group.driver.GroupDriverConfig;
import io.synod.server.group.driver.GroupMetrics;
import io.synod.server.log.GroupStorage;
import io.synod.server.state.RocksKvStateMachine;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The admin coding-change input of {@link GroupLoop}: who answers what (NOT_LEADER, REJECTED, OK once applied). */
class CodingChangesTest {
    @TempDir
    Path dir;

    static ClientFrame.Response change(GroupLoop loop, long id, int f, int x, int threshold) throws Exception {
        CompletableFuture<ClientFrame.Response> answer = new CompletableFuture<>();
        loop.onCodingChange(new ClientFrame.CodingChange(id, 0, f, x, threshold), answer::complete);
        return answer.get(30, TimeUnit.SECONDS);
    }

    static String text(ClientFrame.Response r) {
        return new String(r.result(), StandardCharsets.UTF_8);
    }

    static void awaitLeader(GroupLoop loop) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (loop.status().role() != Role.LEADER.ordinal() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(Role.LEADER.ordinal(), loop.status().role());
    }

    private GroupLoop replica(int i, int n, ReplicaConfig config, Coding coding, GroupLoop[] loops) throws Exception {
        GroupStorage storage = GroupStorage.open(dir.resolve("g" + i), 1 << 20);
        RocksKvStateMachine sm = new RocksKvStateMachine(dir.resolve("rocks" + i));
        return new GroupLoop(GroupDriverConfig.of(0, config, 1024, new GroupMetrics(new SimpleMeterRegistry(), 0))
                .withCoding(coding), storage, sm, sm, m -> {
            GroupLoop to = loops[m.message().to()];
            if (to != null) {
                to.onPeerMessage(m.message());
            }
        }, null, 5_000_000L, 1024);
    }

    static void awaitApplied(GroupLoop loop, long slot) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (loop.status().appliedSlot() < slot && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(loop.status().appliedSlot() >= slot, "applied through " + slot + ": " + loop.status());
    }

    /**
     * A replica that was down during the change and returns after the leader compacted the change entry away
     * catches up by a RocksDB checkpoint (InstallSnapshot): the checkpoint carries the coding with the state, so its
     * RocksDB names the new coding although its log never held the change.
     */
    @Test
    @Timeout(120)
    void aReplicaThatMissedTheChangeGetsItInTheCheckpointItInstalls() throws Exception {
        int n = 3;
        GroupLoop[] loops = new GroupLoop[n];
        ReplicaConfig[] configs = new ReplicaConfig[n];
        Coding coding = Coding.rsPaxos(n, 1, 1, 4096).withDeferredRebuild();
        long changeSlot;
        try {
            for (int i = 0; i < n; i++) {
                configs[i] = ReplicaConfig.defaults(i, n).withSnapshotEverySlots(8, 2);
                loops[i] = replica(i, n, configs[i], coding, loops);
                loops[i].start();
            }
            loops[0].onElection(new ElectionEvent.Elected(1));
            loops[1].onElection(new ElectionEvent.LeaderIs(0));
            awaitLeader(loops[0]);
            GroupLoop down = loops[2];
            loops[2] = null;
            down.close(); // down before the change

            ClientFrame.Response ok = change(loops[0], 1, 1, 1, 100);
            assertEquals(ClientReply.Status.OK.ordinal(), ok.status(), text(ok));
            changeSlot = ok.slot();
            long last = 0;
            for (long seq = 1; seq <= 60; seq++) {
                CompletableFuture<ClientFrame.Response> put = new CompletableFuture<>();
                byte[] payload = new KvCommand.Put("k" + seq, new byte[] {(byte) seq}).encode();
                loops[0].onClientCommand(new ClientFrame.Command(seq, 9, seq, payload), RoutedCommand.of(payload),
                        put::complete);
                ClientFrame.Response r = put.get(30, TimeUnit.SECONDS);
                assertEquals(ClientReply.Status.OK.ordinal(), r.status());
                last = r.slot();
            }
            assertTrue(loops[0].status().snapshotSlot() > changeSlot + 20, "the leader snapshotted well past the change: "
                    + loops[0].status());
            loops[2] = replica(2, n, configs[2], coding, loops);
            loops[2].start();
            loops[2].onElection(new ElectionEvent.LeaderIs(0));
            awaitApplied(loops[2], last);
        } finally {
            for (GroupLoop loop : loops) {
                if (loop != null) {
                    loop.close();
                }
            }
        }
        GroupStorage storage = GroupStorage.open(dir.resolve("g2"), 1 << 20);
        try {
            for (Entry e : storage.durableState().entries()) {
                assertTrue(!Coding.isChange(e.command()), "replica 2's log holds no change entry (slot " + e.slot() + ")");
            }
            assertTrue(storage.durableState().snapshot().lastIncludedSlot() > changeSlot, "replica 2 installed a snapshot");
        } finally {
            storage.close();
        }
        try (RocksKvStateMachine sm = new RocksKvStateMachine(dir.resolve("rocks2"))) {
            byte[] stored = sm.durableCoding();
            assertNotNull(stored, "the installed checkpoint carried the coding");
            assertEquals(100, ByteBuffer.wrap(stored).getInt(16), "threshold after the change");
        }
    }

    @Test
    @Timeout(60)
    void aGroupWithoutCodingRefusesWhicheverReplicaIsAsked() throws Exception {
        GroupStorage storage = GroupStorage.open(dir.resolve("g"), 1 << 16);
        RocksKvStateMachine sm = new RocksKvStateMachine(dir.resolve("rocks"));
        GroupLoop loop = new GroupLoop(GroupDriverConfig.of(0, ReplicaConfig.defaults(0, 1), 1024,
                new GroupMetrics(new SimpleMeterRegistry(), 0)), storage, sm, sm, m -> { }, null, 5_000_000L, 1024);
        try {
            loop.start();
            assertEquals(ClientReply.Status.REJECTED.ordinal(), change(loop, 1, 1, 1, 0).status(), "not elected yet");
            loop.onElection(new ElectionEvent.Elected(1));
            awaitLeader(loop);
            ClientFrame.Response r = change(loop, 2, 1, 1, 0);
            assertEquals(ClientReply.Status.REJECTED.ordinal(), r.status());
            assertTrue(text(r).contains("runs without coding"), text(r));
        } finally {
            loop.close();
        }
    }

    /**
     * Three replicas with coding 3,1,1 wired to each other in-process: a follower answers NOT_LEADER naming the
     * leader, a broken rule is REJECTED by name, a threshold change is answered OK with its slot once applied, and
     * every replica's RocksDB stores the new coding with its applied slot (what a restart starts from).
     */
    @Test
    @Timeout(120)
    void theLeaderProposesAFollowerRedirectsAndEveryRocksDbKeepsTheNewCoding() throws Exception {
        int n = 3;
        GroupLoop[] loops = new GroupLoop[n];
        RocksKvStateMachine[] machines = new RocksKvStateMachine[n];
        Coding coding = Coding.rsPaxos(n, 1, 1, 4096).withDeferredRebuild();
        try {
            for (int i = 0; i < n; i++) {
                GroupStorage storage = GroupStorage.open(dir.resolve("g" + i), 1 << 20);
                machines[i] = new RocksKvStateMachine(dir.resolve("rocks" + i));
                loops[i] = new GroupLoop(GroupDriverConfig.of(0, ReplicaConfig.defaults(i, n), 1024,
                        new GroupMetrics(new SimpleMeterRegistry(), 0)).withCoding(coding), storage, machines[i], machines[i], m -> {
                    GroupLoop to = loops[m.message().to()];
                    if (to != null) {
                        to.onPeerMessage(m.message());
                    }
                }, null, 5_000_000L, 1024);
            }
            for (GroupLoop loop : loops) {
                loop.start();
            }
            loops[0].onElection(new ElectionEvent.Elected(1));
            loops[1].onElection(new ElectionEvent.LeaderIs(0));
            loops[2].onElection(new ElectionEvent.LeaderIs(0));
            awaitLeader(loops[0]);

            ClientFrame.Response follower = change(loops[1], 1, 1, 1, 100);
            assertEquals(ClientReply.Status.NOT_LEADER.ordinal(), follower.status());
            assertEquals(0, follower.leaderHint(), "the hint names the leader");

            ClientFrame.Response broken = change(loops[0], 2, 1, 2, 0);
            assertEquals(ClientReply.Status.REJECTED.ordinal(), broken.status());
            assertTrue(text(broken).contains("X <= N - 2F = 1"), text(broken));

            ClientFrame.Response ok = change(loops[0], 3, 1, 1, 100);
            assertEquals(ClientReply.Status.OK.ordinal(), ok.status(), text(ok));
            assertTrue(ok.slot() > 0);
            assertTrue(text(ok).contains("threshold=100B"), text(ok));

            long deadline = System.nanoTime() + 20_000_000_000L;
            for (GroupLoop loop : loops) {
                while (loop.status().appliedSlot() < ok.slot() && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertTrue(loop.status().appliedSlot() >= ok.slot(), "applied the change: " + loop.status());
            }
        } finally {
            for (GroupLoop loop : loops) {
                if (loop != null) {
                    loop.close(); // writes what is staged and closes RocksDB
                }
            }
        }
        for (int i = 0; i < n; i++) {
            try (RocksKvStateMachine sm = new RocksKvStateMachine(dir.resolve("rocks" + i))) {
                byte[] stored = sm.durableCoding();
                assertNotNull(stored, "node " + i + " stores the coding with its applied slot");
                ByteBuffer p = ByteBuffer.wrap(stored);
                p.getInt(); // magic
                assertEquals(3, p.getInt(), "N");
                assertEquals(1, p.getInt(), "F");
                assertEquals(1, p.getInt(), "X");
                assertEquals(100, p.getInt(), "threshold");
            }
        }
    }
}
