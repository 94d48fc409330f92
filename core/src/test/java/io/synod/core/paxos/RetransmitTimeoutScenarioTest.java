package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Accept retransmissions on a network whose round trip is longer than the configured retransmission
 * interval (issue 12: server RTT 100 ms with the default 100 ms interval). A fixed interval re-sent
 * every proposal to every follower while its acknowledgement was still on the way; the leader now
 * measures the round trip per peer ({@link RetransmitTimeout}) and re-sends only what is really late.
 * Counts (retransmissions, round trips per commit in simulated time), never wall-clock time.
 */
class RetransmitTimeoutScenarioTest {
    private static final long MS = 1_000_000L;
    private static final long TICK = 10 * MS;

    /** A network with a one-way delay per message (changeable), optional loss, delivered on ticks of the shared clock. */
    private static final class SlowNetwork implements Predicate<Message> {
        private record InFlight(long dueNanos, long order, Message message) {}

        private final TestCluster cluster;
        private final PriorityQueue<InFlight> queue = new PriorityQueue<>(
                Comparator.comparingLong(InFlight::dueNanos).thenComparingLong(InFlight::order));
        private long order;
        long oneWayNanos;
        Predicate<Message> lose = m -> false;

        SlowNetwork(TestCluster cluster, long oneWayNanos) {
            this.cluster = cluster;
            this.oneWayNanos = oneWayNanos;
            cluster.drop = this;
        }

        /** Called by the cluster for every message sent: held here (never delivered at once), or lost. */
        @Override
        public boolean test(Message m) {
            if (!lose.test(m)) {
                queue.add(new InFlight(cluster.now + oneWayNanos, order++, m));
            }
            return true;
        }

        /** Advances the clock by one tick and delivers every message due by then. */
        void tick() {
            cluster.tick(TICK);
            while (!queue.isEmpty() && queue.peek().dueNanos() <= cluster.now) {
                Message m = queue.poll().message();
                cluster.replicas[m.to()].step(m);
                cluster.settle();
            }
        }

        /** Proposes one append and ticks until its reply; returns the simulated latency in ns. */
        long commit(long clientId, long sequence) {
            int before = cluster.replies.size();
            long start = cluster.now;
            cluster.propose(0, clientId, sequence, new KvCommand.Append("k", sequence));
            for (int ticks = 0; ticks < 10_000 && cluster.replies.size() == before; ticks++) {
                tick();
            }
            ClientReply reply = cluster.lastReply(clientId);
            assertNotNull(reply, "command " + sequence + " answered");
            assertEquals(ClientReply.Status.OK, reply.status());
            return cluster.now - start;
        }
    }

    private static SlowNetwork leaderOf3(long oneWayNanos) {
        TestCluster cluster = new TestCluster(3);
        cluster.elect(0, 1); // Phase 1 over an instant network; the delay starts with phase 2.
        assertEquals(Role.LEADER, cluster.replicas[0].role());
        return new SlowNetwork(cluster, oneWayNanos);
    }

    @Test
    void aRoundTripLongerThanTheIntervalDoesNotResendEveryAccept() {
        // 55 ms each way: RTT 110 ms, above the default 100 ms retransmission interval.
        SlowNetwork net = leaderOf3(55 * MS);
        Replica leader = net.cluster.replicas[0];
        assertEquals(100 * MS, leader.acceptRetransmitTimeoutNanos(1), "the configured interval until measured");
        List<Long> latencies = new ArrayList<>();
        for (long seq = 1; seq <= 30; seq++) {
            latencies.add(net.commit(7, seq));
        }
        long retransmits = leader.acceptRetransmits();
        // With a fixed 100 ms interval every one of the 30 proposals went twice to both followers (60).
        // Adapted, only proposals sent before the first round trip was measured can be re-sent.
        assertTrue(retransmits <= 2, "Accepts re-sent: " + retransmits + " for 30 commands");
        for (int peer = 1; peer <= 2; peer++) {
            long rto = leader.acceptRetransmitTimeoutNanos(peer);
            assertTrue(rto > 110 * MS && rto < 4 * 110 * MS, "timeout of peer " + peer + " above the RTT, same order: " + rto);
        }
        for (long latency : latencies) {
            // One round trip per commit (rounded up to the tick), never a second one.
            assertTrue(latency <= 110 * MS + 2 * TICK, "commit latency " + latency / MS + " ms at RTT 110 ms");
        }
    }

    @Test
    void aRoundTripThatGrowsTenfoldStopsBeingResentOnceMeasured() {
        // A machine that becomes loaded: the round trip goes from 20 ms to 600 ms.
        SlowNetwork net = leaderOf3(10 * MS);
        Replica leader = net.cluster.replicas[0];
        for (long seq = 1; seq <= 10; seq++) {
            net.commit(7, seq);
        }
        assertEquals(0, leader.acceptRetransmits(), "RTT 20 ms: nothing re-sent");
        net.oneWayNanos = 300 * MS;
        for (long seq = 11; seq <= 40; seq++) {
            net.commit(7, seq);
        }
        long retransmits = leader.acceptRetransmits();
        // A fixed 100 ms interval re-sends each of the 30 proposals 5 times to both followers (300).
        assertTrue(retransmits <= 20, "Accepts re-sent: " + retransmits + " for 30 commands at RTT 600 ms");
        assertTrue(leader.acceptRetransmitTimeoutNanos(1) > 600 * MS, "timeout adapted above 600 ms: "
                + leader.acceptRetransmitTimeoutNanos(1) / MS + " ms");
    }

    @Test
    void aLostAcceptIsStillResentAfterTheAdaptedTimeout() {
        SlowNetwork net = leaderOf3(55 * MS);
        Replica leader = net.cluster.replicas[0];
        for (long seq = 1; seq <= 10; seq++) {
            net.commit(7, seq);
        }
        long before = leader.acceptRetransmits();
        long rto = Math.max(leader.acceptRetransmitTimeoutNanos(1), leader.acceptRetransmitTimeoutNanos(2));
        // Both followers lose the first Accept of slot 11: only a retransmission can commit it.
        boolean[] lost = new boolean[3];
        net.lose = m -> m instanceof Message.Accept a && a.entries().stream().anyMatch(e -> e.slot() == 11)
                && !lost[a.to()] && (lost[a.to()] = true);
        long latency = net.commit(7, 11);
        assertTrue(leader.acceptRetransmits() > before, "slot 11 was re-sent");
        assertTrue(latency >= rto, "re-sent only after the adapted timeout (" + rto / MS + " ms): " + latency / MS + " ms");
        assertTrue(latency <= rto + 110 * MS + 3 * TICK, "committed one round trip after the re-send: " + latency / MS + " ms");
    }

    @Test
    void theTimeoutStartsAtTheIntervalAndStaysWithinItsBounds() {
        long floor = 100 * MS;
        RetransmitTimeout t = new RetransmitTimeout(3, floor);
        assertEquals(floor, t.timeoutNanos(1), "no sample: the configured interval");
        t.sample(1, 5 * MS);
        assertEquals(floor, t.timeoutNanos(1), "a fast network never goes below the configured interval");
        for (int i = 0; i < 50; i++) {
            t.sample(2, 200 * MS);
        }
        long settled = t.timeoutNanos(2);
        assertTrue(settled > 200 * MS && settled <= 200 * MS + floor, "steady RTT 200 ms: " + settled / MS + " ms");
        assertEquals(floor, t.timeoutNanos(0), "other peers unaffected");
        t.sample(2, Long.MAX_VALUE / 4);
        assertEquals(RetransmitTimeout.MAX_FLOORS * floor, t.timeoutNanos(2), "capped at " + RetransmitTimeout.MAX_FLOORS
                + " intervals");
        t.sample(2, -1);
        assertEquals(RetransmitTimeout.MAX_FLOORS * floor, t.timeoutNanos(2), "a negative sample is ignored");
    }
}
