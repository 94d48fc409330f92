package io.synod.server.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.synod.core.paxos.Coding;
import io.synod.core.paxos.GroupMembership;
import io.synod.core.paxos.ReplicaConfig;
import io.synod.engine.GroupDriverConfig;
import io.synod.engine.MembershipAdmin;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.ElectionEvent;
import io.synod.protocol.KvCommand;
import io.synod.protocol.RoutedCommand;
import io.synod.server.log.GroupStorage;
import io.synod.server.state.RocksKvStateMachine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin membership input of {@link GroupLoop} on RocksDB state machines (docs/membership.md, "On the server"): a
 * replacement in three steps (add learner, promote once caught up, remove) goes through the driver, refusals come
 * back as one line naming the rule, and the membership is stored with the applied slot (rule M7): after a restart of
 * every replica each one reads back the same membership.
 */
class MembershipAdminTest {
    private static final int UNIVERSE = 6;

    @TempDir
    Path dir;

    private GroupLoop replica(int id, GroupLoop[] loops) throws Exception {
        return replica(id, loops, Coding.OFF);
    }

    private GroupLoop replica(int id, GroupLoop[] loops, Coding coding) throws Exception {
        GroupStorage storage = GroupStorage.open(dir.resolve("g" + id), 1 << 20);
        RocksKvStateMachine sm = new RocksKvStateMachine(dir.resolve("rocks" + id));
        ReplicaConfig config = ReplicaConfig.defaults(id, UNIVERSE).withSnapshotEverySlots(16, 4);
        return new GroupLoop(GroupDriverConfig.of(0, config, 1024, new GroupMetrics(new SimpleMeterRegistry(), 0))
                .withCoding(coding).withMembership(GroupMembership.firstVoters(UNIVERSE, 3)), storage, sm, sm, m -> {
                    GroupLoop to = loops[m.message().to()];
                    if (to != null) {
                        to.onPeerMessage(m.message());
                    }
                }, null, 5_000_000L, 1024);
    }

    static MembershipAdmin.Answer ask(GroupLoop loop, MembershipAdmin.Request request) throws Exception {
        CompletableFuture<MembershipAdmin.Answer> answer = new CompletableFuture<>();
        loop.onMembership(request, answer::complete);
        return answer.get(30, TimeUnit.SECONDS);
    }

    /** Asks until {@code done} holds of an answer (a refused step is retried: rules M5 and M6 refuse for a while). */
    static MembershipAdmin.Answer until(GroupLoop loop, Supplier<MembershipAdmin.Request> request,
            java.util.function.Predicate<MembershipAdmin.Answer> done) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        MembershipAdmin.Answer last = null;
        while (System.nanoTime() < deadline) {
            last = ask(loop, request.get());
            if (done.test(last)) {
                return last;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("not done within 30 s: " + last.message());
    }

    private static void put(GroupLoop leader, long seq) throws Exception {
        CompletableFuture<ClientFrame.Response> put = new CompletableFuture<>();
        byte[] payload = new KvCommand.Put("k" + seq, new byte[] {(byte) seq}).encode();
        leader.onClientCommand(new ClientFrame.Command(seq, 9, seq, payload), RoutedCommand.of(payload), put::complete);
        assertEquals(ClientReply.Status.OK.ordinal(), put.get(30, TimeUnit.SECONDS).status());
    }

    @Test
    @Timeout(120)
    void aReplacementGoesThroughTheDriverAndEveryRocksDbKeepsTheMembershipAcrossARestart() throws Exception {
        GroupLoop[] loops = new GroupLoop[UNIVERSE];
        GroupMembership expected = GroupMembership.firstVoters(UNIVERSE, 3).withLearner(3).promoted(3).without(2);
        try {
            for (int i = 0; i < 4; i++) {
                loops[i] = replica(i, loops);
                loops[i].start();
            }
            MembershipAdmin.Answer notLeader = ask(loops[1], MembershipAdmin.Request.of(MembershipAdmin.Op.ADD_LEARNER, 3));
            assertFalse(notLeader.proposed());
            assertTrue(notLeader.message().contains("not the leader"), notLeader.message());
            loops[0].onElection(new ElectionEvent.Elected(1));
            CodingChangesTest.awaitLeader(loops[0]);
            for (long seq = 1; seq <= 40; seq++) {
                put(loops[0], seq);
            }
            until(loops[0], () -> MembershipAdmin.Request.of(MembershipAdmin.Op.ADD_LEARNER, 3),
                    MembershipAdmin.Answer::proposed);
            MembershipAdmin.Answer retired = ask(loops[0], MembershipAdmin.Request.of(MembershipAdmin.Op.ADD_LEARNER, 3));
            assertFalse(retired.proposed(), "one change in flight, or 3 already a member: " + retired.message());
            until(loops[0], () -> MembershipAdmin.Request.of(MembershipAdmin.Op.PROMOTE, 3), MembershipAdmin.Answer::proposed);
            until(loops[0], () -> MembershipAdmin.Request.of(MembershipAdmin.Op.REMOVE, 2), MembershipAdmin.Answer::proposed);
            MembershipAdmin.Answer done = until(loops[0], () -> MembershipAdmin.Request.of(MembershipAdmin.Op.STATUS, -1),
                    a -> a.committed().equals(expected) && a.applied().equals(expected));
            assertTrue(done.progress()[3] >= 0, "the leader tracks the new voter's progress");
            MembershipAdmin.Answer reused = until(loops[0],
                    () -> MembershipAdmin.Request.of(MembershipAdmin.Op.ADD_LEARNER, 2), a -> !a.message().contains("in flight"));
            assertFalse(reused.proposed());
            assertTrue(reused.message().contains("was removed before"), "rule M7: " + reused.message());
            for (long seq = 41; seq <= 60; seq++) {
                put(loops[0], seq); // committed by {0, 1, 3}
            }
            long last = loops[0].status().appliedSlot();
            for (int i : new int[] {1, 3}) {
                CodingChangesTest.awaitApplied(loops[i], last);
            }
        } finally {
            for (GroupLoop loop : loops) {
                if (loop != null) {
                    loop.close();
                }
            }
        }
        for (int i : new int[] {0, 1, 3}) {
            try (RocksKvStateMachine sm = new RocksKvStateMachine(dir.resolve("rocks" + i))) {
                assertNotNull(sm.durableMembership(), "replica " + i + " stored the membership with its applied slot");
            }
        }
        GroupLoop[] again = new GroupLoop[UNIVERSE];
        try {
            for (int i : new int[] {0, 1, 3}) {
                again[i] = replica(i, again);
                again[i].start();
                assertEquals(expected, ask(again[i], MembershipAdmin.Request.of(MembershipAdmin.Op.STATUS, -1)).applied(),
                        "replica " + i + " after the restart");
            }
            again[3].onElection(new ElectionEvent.Elected(2)); // the promoted replica leads {0, 1, 3}
            CodingChangesTest.awaitLeader(again[3]);
            put(again[3], 61);
        } finally {
            for (GroupLoop loop : again) {
                if (loop != null) {
                    loop.close();
                }
            }
        }
    }

    /**
     * The strict reconfiguration check (etcd's --strict-reconfig-check; docs/membership.md, "Removing a node"): with
     * voter 2 down, removing the live voter 1 would leave {0, 2} with one live voter, short of a majority: refused
     * with one line; removing the dead voter 2 leaves {0, 1}, both live: proposed, and the group commits.
     */
    @Test
    @Timeout(120)
    void aRemovalThatLeavesTheLiveVotersShortOfAMajorityIsRefused() throws Exception {
        GroupLoop[] loops = new GroupLoop[UNIVERSE];
        try {
            for (int i = 0; i < 3; i++) {
                loops[i] = replica(i, loops);
                loops[i].start();
            }
            loops[0].onElection(new ElectionEvent.Elected(1));
            CodingChangesTest.awaitLeader(loops[0]);
            put(loops[0], 1);
            loops[2].close();
            loops[2] = null;
            // Liveness is an answer within the CheckQuorum window (1 s by default): let it pass with voter 2 silent.
            // Before that the leader counts 2 as live, and the removal below would be proposed, not refused.
            Thread.sleep(2_500);
            put(loops[0], 2); // committed by {0, 1}: the leader hears 1
            MembershipAdmin.Answer refused = ask(loops[0], MembershipAdmin.Request.of(MembershipAdmin.Op.REMOVE, 1));
            assertFalse(refused.proposed(), refused.message());
            assertTrue(refused.message().contains("strict reconfiguration check: removing 1 leaves 1 live voter(s) {0}")
                    && !refused.message().contains("\n"), refused.message());
            until(loops[0], () -> MembershipAdmin.Request.of(MembershipAdmin.Op.REMOVE, 2), MembershipAdmin.Answer::proposed);
            put(loops[0], 3);
        } finally {
            for (GroupLoop loop : loops) {
                if (loop != null) {
                    loop.close();
                }
            }
        }
    }

    /**
     * A re-join step (CONVERGE) in a coded group whose voters are exactly 2F + 1: removing the replaced id first would
     * leave 2F voters, which rule M8 refuses, so the new id is added and promoted first and the old one removed last.
     */
    @Test
    @Timeout(120)
    void aCodedGroupAtTwoFPlusOneVotersReJoinsByAddingAndPromotingBeforeRemoving() throws Exception {
        GroupLoop[] loops = new GroupLoop[UNIVERSE];
        Coding coding = Coding.rsPaxos(UNIVERSE, 1, 2, 64);
        GroupMembership expected = GroupMembership.firstVoters(UNIVERSE, 3).withLearner(3).promoted(3).without(2);
        try {
            for (int i = 0; i < 4; i++) {
                loops[i] = replica(i, loops, coding);
                loops[i].start();
            }
            loops[0].onElection(new ElectionEvent.Elected(1));
            CodingChangesTest.awaitLeader(loops[0]);
            for (long seq = 1; seq <= 20; seq++) {
                put(loops[0], seq);
            }
            List<String> steps = new ArrayList<>();
            until(loops[0], () -> MembershipAdmin.Request.converge(1L << 2, (1L << 0) | (1L << 1) | (1L << 3)), a -> {
                if (a.proposed()) {
                    steps.add(a.message());
                }
                return a.settled();
            });
            assertEquals(3, steps.size(), steps.toString());
            assertTrue(steps.get(0).contains("add learner 3"), steps.toString());
            assertTrue(steps.get(1).contains("promote 3"), steps.toString());
            assertTrue(steps.get(2).contains("remove 2"), steps.toString());
            assertEquals(expected, ask(loops[0], MembershipAdmin.Request.of(MembershipAdmin.Op.STATUS, -1)).committed());
            put(loops[0], 21); // committed by the voters {0, 1, 3}
        } finally {
            for (GroupLoop loop : loops) {
                if (loop != null) {
                    loop.close();
                }
            }
        }
    }
}
