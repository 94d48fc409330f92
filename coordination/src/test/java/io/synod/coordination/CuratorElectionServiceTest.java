package io.synod.coordination;

import static io.synod.coordination.ZkFixture.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.synod.protocol.ElectionEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The election service on a real ZooKeeper server (PaxStore §3.2's ZooKeeper-assisted election). */
class CuratorElectionServiceTest {
    private static final String CLUSTER = "e";
    private ZkFixture zk;
    private ClusterMetadata admin;

    @BeforeEach
    void start() throws Exception {
        zk = new ZkFixture();
        admin = zk.connect(CLUSTER).metadata();
        admin.createCluster(ClusterSpec.defaults(5).withGroups(2));
    }

    @AfterEach
    void stop() throws Exception {
        zk.close();
    }

    private record Node(CuratorCoordination coordination, ElectionService election, ElectionRecorder events) {}

    private Node node(int id, CuratorCoordination coordination, int... groups) {
        ElectionRecorder recorder = new ElectionRecorder(id);
        ElectionService election = coordination.election(id);
        for (int g : groups) {
            election.join(g, recorder);
        }
        return new Node(coordination, election, recorder);
    }

    private Node node(int id, int... groups) {
        return node(id, zk.connect(CLUSTER), groups);
    }

    private static Node awaitLeader(List<Node> nodes, int group) throws InterruptedException {
        eventually("one leader of group " + group + " followed by the others", () -> {
            List<Node> leaders = nodes.stream().filter(n -> n.events().leads(group)).toList();
            return leaders.size() == 1 && nodes.stream().allMatch(n -> n == leaders.get(0)
                    || n.events().follows(group, n == leaders.get(0) ? -2 : leaders.get(0).election().nodeId()));
        });
        return nodes.stream().filter(n -> n.events().leads(group)).findFirst().orElseThrow();
    }

    private static long lastEpoch(Node n, int group) {
        return ((ElectionEvent.Elected) n.events().last(group)).epoch();
    }

    @Test
    void oneLeaderPerGroupAndEpochsGrowStrictlyAcrossLeaders() throws Exception {
        List<Node> nodes = new ArrayList<>(List.of(node(0, 0, 1), node(1, 0, 1), node(2, 0, 1)));
        List<Long> handedOut = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            Node leader = awaitLeader(nodes, 0);
            awaitLeader(nodes, 1);
            long epoch = lastEpoch(leader, 0);
            handedOut.add(epoch);
            assertEquals(epoch, leader.election().epochOf(0));
            assertEquals(new EpochRecord(epoch, leader.election().nodeId()), admin.epoch(0).value());
            for (Node n : nodes) {
                assertEquals(leader.election().nodeId(), n.election().leaderOf(0));
            }
            // The leader goes away cleanly: it is told to stop first, then a successor takes over.
            leader.election().close();
            assertEquals(new ElectionEvent.LeaderIs(-1), leader.events().last(0));
            leader.coordination().close();
            nodes.remove(leader);
            nodes.add(node(3 + round, 0, 1));
        }
        awaitLeader(nodes, 0);
        for (int i = 1; i < handedOut.size(); i++) {
            assertTrue(handedOut.get(i) > handedOut.get(i - 1), "epochs strictly increase: " + handedOut);
        }
        // All callbacks came from the service's dispatcher thread.
        for (Node n : nodes) {
            for (ElectionRecorder.Received r : n.events().events) {
                assertEquals("synod-election-" + n.election().nodeId(), r.thread());
            }
        }
    }

    @Test
    void expiredLeaderSessionYieldsANewLeaderWithAHigherEpochAndTheOldOneStepsDown() throws Exception {
        List<Node> nodes = List.of(node(0, 0), node(1, 0), node(2, 0));
        Node old = awaitLeader(nodes, 0);
        long oldEpoch = lastEpoch(old, 0);
        int before = old.events().events.size();

        zk.expireSession(old.coordination());

        eventually("old leader told to step down", () -> old.events().events.stream().skip(before)
                .anyMatch(r -> r.event().equals(new ElectionEvent.LeaderIs(-1))));
        List<Node> others = nodes.stream().filter(n -> n != old).toList();
        eventually("a new leader elected", () -> others.stream().anyMatch(n -> n.events().leads(0)));
        Node next = others.stream().filter(n -> n.events().leads(0)).findFirst().orElseThrow();
        assertTrue(lastEpoch(next, 0) > oldEpoch, "new epoch " + lastEpoch(next, 0) + " > " + oldEpoch);
        // With a new session the old leader re-joins and follows the new one.
        eventually("old leader follows the new one", () -> old.events().follows(0, next.election().nodeId()));
        assertEquals(-1, old.election().epochOf(0));
    }

    @Test
    void aLeaderSuspendedLongerThanTheBoundStepsDownBeforeASuccessorIsElected() throws Exception {
        TcpProxy link = zk.proxy();
        CoordinationOptions options = ZkFixture.options().withSuspendedStepDown(Duration.ofMillis(800));
        Node partitioned = node(0, zk.connect(CLUSTER, link.connectString(), options), 0);
        awaitLeader(List.of(partitioned), 0);
        long firstEpoch = lastEpoch(partitioned, 0);
        Node other = node(1, 0);
        eventually("follower knows the leader", () -> other.events().follows(0, 0));

        long cutAt = System.nanoTime();
        link.cut(); // node 0 can no longer reach ZooKeeper; node 1 still can

        eventually("partitioned leader steps down", () -> partitioned.events().last(0).equals(new ElectionEvent.LeaderIs(-1)));
        eventually("successor elected once the server expired the old session", () -> other.events().leads(0));
        long steppedDown = partitioned.events().firstAt(0, cutAt, e -> e.equals(new ElectionEvent.LeaderIs(-1)));
        long successor = other.events().firstAt(0, cutAt, e -> e instanceof ElectionEvent.Elected);
        assertTrue(steppedDown > 0 && steppedDown < successor,
                "the old leader stepped down before the successor was elected");
        assertTrue(lastEpoch(other, 0) > firstEpoch);

        link.heal();
        eventually("healed node follows the successor", () -> partitioned.events().follows(0, 1));
    }

    /** The epoch watch (docs/security.md, "Defence in depth in the replica"): every member sees each allocation. */
    @Test
    void everyMemberSeesEachEpochTheElectionAllocates() throws Exception {
        List<Node> nodes = List.of(node(0, 0), node(1, 0), node(2, 0));
        Node leader = awaitLeader(nodes, 0);
        long first = lastEpoch(leader, 0);
        for (Node n : nodes) {
            eventually("node " + n.election().nodeId() + " sees epoch " + first, () -> n.events().seenEpochs.contains(first));
        }
        leader.election().resign(0);
        eventually("a new epoch allocated", () -> nodes.stream().anyMatch(n -> n.events().leads(0)
                && lastEpoch(n, 0) > first));
        long next = lastEpoch(nodes.stream().filter(n -> n.events().leads(0)).findFirst().orElseThrow(), 0);
        for (Node n : nodes) {
            eventually("node " + n.election().nodeId() + " sees epoch " + next, () -> n.events().seenEpochs.contains(next));
        }
    }

    @Test
    void resignHandsLeadershipOnAndTheResignerRejoinsAsFollower() throws Exception {
        List<Node> nodes = List.of(node(0, 0), node(1, 0));
        Node leader = awaitLeader(nodes, 0);
        Node follower = nodes.get(0) == leader ? nodes.get(1) : nodes.get(0);
        long epoch = lastEpoch(leader, 0);
        leader.election().resign(0);
        eventually("the other node leads", () -> follower.events().leads(0));
        assertTrue(lastEpoch(follower, 0) > epoch);
        eventually("the resigner follows", () -> leader.events().follows(0, follower.election().nodeId()));
        assertTrue(leader.events().events.stream().anyMatch(r -> r.event().equals(new ElectionEvent.LeaderIs(-1))));
        // Resigning a group one does not lead, or leaving one never joined, changes nothing. Each
        // service runs its calls and delivers its events on one dispatcher thread in order, and leave
        // returns only once the dispatcher ran it: so after the two leave calls below, whatever the
        // resign (queued before them) would have delivered has been delivered.
        int resignerSeen = leader.events().events.size();
        int followerSeen = follower.events().events.size();
        EpochRecord epochBefore = admin.epoch(0).value();
        leader.election().resign(0);
        leader.election().leave(1);
        follower.election().leave(1);
        assertEquals(resignerSeen, leader.events().events.size(), "a no-op resign delivered an event");
        assertEquals(followerSeen, follower.events().events.size(), "a no-op leave delivered an event");
        assertEquals(epochBefore, admin.epoch(0).value(), "a no-op resign allocated an epoch");
        assertEquals(follower.election().nodeId(), leader.election().leaderOf(0));
    }

    @Test
    void aWinnerDefersToAMoreUpToDateParticipant() throws Exception {
        Node first = node(2, 0);
        awaitLeader(List.of(first), 0);
        CuratorCoordination staleSession = zk.connect(CLUSTER);
        CuratorCoordination freshSession = zk.connect(CLUSTER);
        staleSession.membership().register(MemberInfo.of(0, "127.0.0.1:1", "127.0.0.1:2", "", ""));
        freshSession.membership().register(MemberInfo.of(1, "127.0.0.1:3", "127.0.0.1:4", "", ""));
        staleSession.membership().updateProgress(0, new GroupProgress(1, 10));
        freshSession.membership().updateProgress(0, new GroupProgress(1, 500));
        staleSession.membership().flush();
        freshSession.membership().flush();
        eventually("stale node sees the fresh node's progress", () -> staleSession.membership().members()
                .getOrDefault(1, MemberInfo.of(1, "", "", "", "")).progressOf(0).lastSlot() == 500);
        // The stale node queues first, so it wins the latch when the leader leaves.
        Node stale = node(0, staleSession, 0);
        eventually("stale node follows", () -> stale.events().follows(0, 2));
        Node fresh = node(1, freshSession, 0);
        eventually("fresh node follows", () -> fresh.events().follows(0, 2));

        first.coordination().close();

        eventually("the more up-to-date node leads", () -> fresh.events().leads(0));
        eventually("the deferring node follows it", () -> stale.events().follows(0, 1));
        assertEquals(List.of(), stale.events().epochs(0), "the stale node never took an epoch");
    }

    @Test
    void aMalformedEpochZnodeBlocksElectionUntilRepaired() throws Exception {
        CuratorCoordination raw = zk.connect(CLUSTER);
        raw.curator().setData().forPath("/synod/e/groups/0/epoch", new byte[] {1, 0, 0});
        Node n;
        try (RefusalLog refusals = new RefusalLog()) {
            n = node(0, 0);
            // The winner reads the counter, refuses to guess an epoch, and retries while it holds the
            // latch: wait for two refusals (the first attempt and a retry) instead of a fixed time.
            eventually("the winner refused the malformed counter twice", () -> refusals.count() >= 2);
        }
        assertTrue(n.events().epochs(0).isEmpty(), "no epoch handed out from a malformed counter");
        raw.curator().setData().forPath("/synod/e/groups/0/epoch", ZnodeCodec.encodeEpoch(new EpochRecord(41, 3)));
        eventually("elected once the counter is readable", () -> n.events().leads(0));
        assertEquals(List.of(42L), n.events().epochs(0));
    }

    @Test
    void aListenerMayCallBackIntoTheServiceFromTheDispatcherThread() throws Exception {
        ElectionService election = zk.connect(CLUSTER).election(0);
        List<ElectionEvent> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        election.join(0, (g, e) -> {
            seen.add(e);
            if (e instanceof ElectionEvent.Elected && seen.stream().filter(x -> x instanceof ElectionEvent.Elected).count() == 1) {
                election.leave(0);      // blocking call made on the dispatcher thread: runs inline
                election.join(1, (g2, e2) -> seen.add(e2));
            }
        });
        eventually("left group 0 and leads group 1", () -> election.epochOf(1) > 0);
        assertEquals(-1, election.leaderOf(0));
        election.close();
    }

    @Test
    void joiningAGroupThatWasNeverCreatedFailsClearly() {
        ElectionService election = zk.connect(CLUSTER).election(0);
        CoordinationException e = assertThrows(CoordinationException.class, () -> election.join(7, (g, ev) -> { }));
        assertTrue(e.getMessage().contains("no epoch znode /synod/e/groups/7/epoch"), e.getMessage());
        election.join(1, (g, ev) -> { });
        assertThrows(IllegalStateException.class, () -> election.join(1, (g, ev) -> { }));
    }

    /** Counts the election service's "cannot lead group" errors while open (a logback appender). */
    private static final class RefusalLog implements AutoCloseable {
        private final Logger logger = (Logger) LoggerFactory.getLogger(CuratorElectionService.class);
        private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

        RefusalLog() {
            appender.start();
            logger.addAppender(appender);
        }

        long count() {
            synchronized (appender) { // AppenderBase appends under this lock
                return appender.list.stream().filter(e -> e.getFormattedMessage().contains("cannot lead group")).count();
            }
        }

        @Override
        public void close() {
            logger.detachAppender(appender);
            appender.stop();
        }
    }
}
