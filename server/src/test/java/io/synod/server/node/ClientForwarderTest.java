package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import io.synod.server.auth.AuthTable;
import io.synod.server.auth.ClientAccess;
import io.synod.server.security.CertIdentity;
import io.synod.server.transport.PeerNetwork;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two peer networks on 127.0.0.1: node 0 does not lead and forwards a flagged command to node 1, which
 * serves it (here: a router the test scripts). Checks the rules of {@link ClientForwarder}: the answer
 * reaches the client under its own request id, the leader gets the command without the flag (one hop)
 * and with the client's identity, rights are checked at the leader, a lost forward ends UNKNOWN.
 */
@Timeout(60)
class ClientForwarderTest {
    static final CertIdentity ALICE = new CertIdentity(CertIdentity.CLIENT, "alice", "c");

    private final LinkedBlockingQueue<ClientFrame.Command> atLeader = new LinkedBlockingQueue<>();
    private final LinkedBlockingQueue<Consumer<ClientFrame.Response>> leaderAnswers = new LinkedBlockingQueue<>();
    private final AtomicLong clock = new AtomicLong();
    private PeerNetwork follower;
    private PeerNetwork leader;

    private ClientForwarder[] start(ClientAccess leaderAccess) throws Exception {
        InetSocketAddress a = new InetSocketAddress("127.0.0.1", LocalCluster.freePort());
        InetSocketAddress b = new InetSocketAddress("127.0.0.1", LocalCluster.freePort());
        Map<Integer, InetSocketAddress> peers = Map.of(0, a, 1, b);
        follower = new PeerNetwork(0, "c", peers, 1 << 16, 1 << 20, 1, m -> { });
        leader = new PeerNetwork(1, "c", peers, 1 << 16, 1 << 20, 1, m -> { });
        ClientForwarder atFollower = new ClientForwarder(0, follower, () -> ClientAccess.ALLOW_ALL, (c, r) -> { },
                clock::get, TimeUnit.SECONDS.toNanos(2));
        ClientForwarder atLeaderNode = new ClientForwarder(1, leader, () -> leaderAccess, (c, r) -> {
            atLeader.add(c);
            leaderAnswers.add(r);
        }, clock::get, TimeUnit.SECONDS.toNanos(2));
        follower.start(a);
        leader.start(b);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!(follower.connected(1) && leader.connected(0)) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(follower.connected(1) && leader.connected(0), "the two nodes connected");
        return new ClientForwarder[] {atFollower, atLeaderNode};
    }

    @AfterEach
    void stop() {
        if (follower != null) {
            follower.close();
        }
        if (leader != null) {
            leader.close();
        }
    }

    static ClientFrame.Command command(int flags) {
        return new ClientFrame.Command(42, 7, 3, new KvCommand.Append("k", 1).encode(), flags);
    }

    static ClientFrame.Response notLeader(int hint) {
        return new ClientFrame.Response(42, 0, ClientReply.Status.NOT_LEADER.ordinal(), 0, hint, new byte[0]);
    }

    @Test
    void aFlaggedCommandIsForwardedOnceAndItsAnswerRelayed() throws Exception {
        ClientForwarder atFollower = start(ClientAccess.ALLOW_ALL)[0];
        LinkedBlockingQueue<ClientFrame.Response> client = new LinkedBlockingQueue<>();
        ClientFrame.Command sent = command(ClientFrame.FLAG_FORWARD | ClientFrame.FLAG_THROUGH_LOG);
        atFollower.relay(ALICE, sent, client::add).accept(notLeader(1));
        ClientFrame.Command served = atLeader.poll(10, TimeUnit.SECONDS);
        assertNotNull(served, "the leader got the command");
        assertEquals(ClientFrame.FLAG_THROUGH_LOG, served.flags(), "without the forward flag: never forwarded again");
        assertEquals(7, served.clientId());
        assertEquals(3, served.sequence(), "same (client id, sequence): a retry applies at most once");
        leaderAnswers.take().accept(new ClientFrame.Response(served.requestId(), 0, ClientReply.Status.OK.ordinal(), 17, 1,
                new byte[] {9}));
        ClientFrame.Response answer = client.poll(10, TimeUnit.SECONDS);
        assertNotNull(answer, "the answer came back through the follower");
        assertEquals(42, answer.requestId(), "under the client's own request id");
        assertEquals(ClientReply.Status.OK.ordinal(), answer.status());
        assertEquals(17, answer.slot());
        assertEquals(1, atFollower.forwarded());
    }

    @Test
    void anUnflaggedCommandOrNoConnectedLeaderIsRedirectedAsBefore() throws Exception {
        ClientForwarder atFollower = start(ClientAccess.ALLOW_ALL)[0];
        Consumer<ClientFrame.Response> client = r -> { };
        assertSame(client, atFollower.relay(ALICE, command(0), client), "no flag: the answer goes as it is");
        LinkedBlockingQueue<ClientFrame.Response> got = new LinkedBlockingQueue<>();
        atFollower.relay(ALICE, command(ClientFrame.FLAG_FORWARD), got::add).accept(notLeader(5)); // no link to node 5
        assertEquals(ClientReply.Status.NOT_LEADER.ordinal(), got.take().status());
        assertEquals(0, atFollower.forwarded());
    }

    @Test
    void theLeaderChecksTheClientsRightsItself() throws Exception {
        ClientForwarder atFollower = start(new ClientAccess(true, Set.of(), () -> AuthTable.EMPTY))[0];
        LinkedBlockingQueue<ClientFrame.Response> client = new LinkedBlockingQueue<>();
        // The follower lets everyone through (ALLOW_ALL); the leader's table grants alice nothing.
        atFollower.relay(ALICE, command(ClientFrame.FLAG_FORWARD), client::add).accept(notLeader(1));
        ClientFrame.Response answer = client.poll(10, TimeUnit.SECONDS);
        assertNotNull(answer);
        assertEquals(ClientFrame.STATUS_PERMISSION_DENIED, answer.status(), "refused where it would be served");
        assertTrue(atLeader.isEmpty(), "nothing reached the group");
    }

    @Test
    void aForwardThatIsNeverAnsweredEndsUnknown() throws Exception {
        ClientForwarder atFollower = start(ClientAccess.ALLOW_ALL)[0];
        LinkedBlockingQueue<ClientFrame.Response> client = new LinkedBlockingQueue<>();
        atFollower.relay(ALICE, command(ClientFrame.FLAG_FORWARD), client::add).accept(notLeader(1));
        assertNotNull(atLeader.poll(10, TimeUnit.SECONDS), "the leader got it (and never answers)");
        atFollower.expire();
        assertTrue(client.isEmpty(), "not before the timeout");
        clock.addAndGet(TimeUnit.SECONDS.toNanos(2));
        atFollower.expire();
        ClientFrame.Response answer = client.poll(1, TimeUnit.SECONDS);
        assertNotNull(answer);
        assertEquals(ClientReply.Status.UNKNOWN.ordinal(), answer.status(), "it may be in the leader's log");
        assertEquals(42, answer.requestId());
        assertEquals(1, atFollower.timedOut());
    }
}
