package io.synod.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Message;
import io.synod.server.node.LocalCluster;
import io.synod.server.wire.WireFrame;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Two peer networks on 127.0.0.1: messages to a peer that is down are dropped and counted; the link reconnects. */
class PeerNetworkTest {
    static WireFrame.PeerMessage heartbeat(int from, int to, long commit) {
        return new WireFrame.PeerMessage(3, new Message.Heartbeat(from, to, new Ballot(1, from), commit));
    }

    @Test
    @Timeout(60)
    void dropsWhileThePeerIsDownThenReconnects() throws Exception {
        InetSocketAddress a = new InetSocketAddress("127.0.0.1", LocalCluster.freePort());
        InetSocketAddress b = new InetSocketAddress("127.0.0.1", LocalCluster.freePort());
        Map<Integer, InetSocketAddress> peers = Map.of(0, a, 1, b);
        LinkedBlockingQueue<WireFrame.PeerMessage> atB = new LinkedBlockingQueue<>();
        try (PeerNetwork netA = new PeerNetwork(0, "c", peers, 1 << 16, 1 << 20, 1, m -> { })) {
            netA.start(a);
            netA.send(heartbeat(0, 1, 1));
            assertTrue(netA.stats(1).framesDropped.get() >= 1, "no link yet: dropped, not queued");
            Thread.sleep(300); // A few failed connection attempts, backing off.
            try (PeerNetwork netB = new PeerNetwork(1, "c", peers, 1 << 16, 1 << 20, 1, atB::add)) {
                netB.start(b);
                WireFrame.PeerMessage got = null;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (got == null && System.nanoTime() < deadline) {
                    netA.send(heartbeat(0, 1, 7));
                    got = atB.poll(100, TimeUnit.MILLISECONDS);
                }
                assertEquals(heartbeat(0, 1, 7), got, "A reconnected to B with backoff");
                assertTrue(netA.stats(1).bytesSent.get() > 0);
            }
        }
    }

    /**
     * A link backing off towards {@link PeerNetwork#MAX_BACKOFF_MILLIS} connects as soon as the peer connects to this
     * node (its Hello shows it is up), instead of at its next retry: a restarted node is reached at once.
     */
    @Test
    @Timeout(60)
    void aPeerThatConnectsIsReachedWithoutWaitingOutTheBackoff() throws Exception {
        InetSocketAddress a = new InetSocketAddress("127.0.0.1", LocalCluster.freePort());
        InetSocketAddress b = new InetSocketAddress("127.0.0.1", LocalCluster.freePort());
        Map<Integer, InetSocketAddress> peers = Map.of(0, a, 1, b);
        try (PeerNetwork netA = new PeerNetwork(0, "c", peers, 1 << 16, 1 << 20, 1, m -> { })) {
            netA.start(a);
            // Seven failed attempts (at 0, 50, 150, 350, 750, 1550 and 3150 ms): the next is 2 s after the last, so B's
            // Hello arrives while A's retry is pending, not while an attempt (a fraction of a millisecond) is under way.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (netA.stats(1).connectAttempts.get() < 7 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(netA.stats(1).connectAttempts.get() >= 7, "A backed off to its longest wait");
            assertEquals(0, netA.stats(1).earlyReconnects.get());
            try (PeerNetwork netB = new PeerNetwork(1, "c", peers, 1 << 16, 1 << 20, 1, m -> { })) {
                netB.start(b);
                deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!netA.connected(1) && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertTrue(netA.connected(1), "A reached B");
                assertEquals(1, netA.stats(1).earlyReconnects.get(), "A connected on B's Hello, not at its retry");
            }
        }
    }

    @Test
    @Timeout(60)
    void aPeerOfAnotherClusterIsRefused() throws Exception {
        InetSocketAddress a = new InetSocketAddress("127.0.0.1", LocalCluster.freePort());
        InetSocketAddress b = new InetSocketAddress("127.0.0.1", LocalCluster.freePort());
        Map<Integer, InetSocketAddress> peers = Map.of(0, a, 1, b);
        LinkedBlockingQueue<WireFrame.PeerMessage> atB = new LinkedBlockingQueue<>();
        try (PeerNetwork netB = new PeerNetwork(1, "c", peers, 1 << 16, 1 << 20, 1, atB::add);
                PeerNetwork other = new PeerNetwork(0, "other", peers, 1 << 16, 1 << 20, 1, m -> { })) {
            netB.start(b);
            other.start(a);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() < deadline) {
                other.send(heartbeat(0, 1, 1));
                Thread.sleep(50);
            }
            assertTrue(atB.isEmpty(), "nothing from a server of another cluster is delivered");
        }
    }
}
