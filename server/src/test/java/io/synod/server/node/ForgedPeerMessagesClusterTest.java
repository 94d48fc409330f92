package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.client.Consistency;
import io.synod.client.GetResult;
import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Message;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import io.synod.server.client.NodeClient;
import io.synod.server.wire.WireCodec;
import io.synod.server.wire.WireFrame;
import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Defence in depth in the replica (docs/security.md), against real nodes on 127.0.0.1 with no peer
 * authentication: a raw socket says {@code Hello} as another node, as an attacker on the same network can.
 * <ul>
 *   <li>A forged Accept in the group's real ballot, for a chosen slot with another value, is refused and
 *       counted ({@code synod_divergence_total}); one for the next slot with a commit point covering it is
 *       not taken as chosen (a value is chosen only once held before the message that reports it chosen),
 *       and the leader's own value replaces it. Paxos Made Simple §2.3: only a chosen value is learned.</li>
 *   <li>A Prepare with epoch 2^62 is dropped (its epoch runs beyond the newest ZooKeeper epoch by more
 *       than the slack), so no acceptor promises it (§2.2: a promise only grows) and later leaders still win.</li>
 * </ul>
 * Every check reads every node: values by STALE reads, promises and commit points by status.
 */
class ForgedPeerMessagesClusterTest {
    private static final String CLUSTER = "forged";
    private static final long HUGE_EPOCH = 1L << 62;

    @TempDir
    Path dir;

    @Test
    @Timeout(180)
    void forgedAcceptsAndAHugeBallotChangeNoPromiseCommitPointOrValue() throws Exception {
        try (TestingServer zk = new TestingServer(true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, 1, CLUSTER,
                        Map.of("zookeeper.session.timeout.ms", "3000", "metrics.port", "0", "insecure", "true"))) {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "the group gets a leader");
            attack(cluster, cluster.client(7, 2_000));
        }
    }

    private void attack(LocalCluster cluster, NodeClient client) throws Exception {
        try (client) {
            put(client, "audit/k", "original");
            awaitEverywhere(cluster, "audit/k", "original");

            int leader = cluster.leaderOf(0);
            int target = (leader + 1) % 3;
            long epoch = cluster.status(leader, 0).promisedEpoch();
            long chosen = cluster.status(leader, 0).commitSlot();
            await("node " + target + " learned the commit point " + chosen, () -> cluster.status(target, 0).commitSlot() == chosen);
            Ballot ballot = new Ballot(epoch, leader);
            Command forged = new Command(999, 1, new KvCommand.Put("audit/k", utf8("FORGED")).encode());

            try (Socket socket = new Socket("127.0.0.1", cluster.node(target).peerAddress().getPort())) {
                DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                send(out, new WireFrame.Hello(leader, CLUSTER));
                // The next slot, with a commit point that claims it: accepted at most, never applied.
                send(out, accept(leader, target, ballot, new Entry(chosen + 1, ballot, forged), chosen + 1));
                // The chosen slot with another value: refused and counted. Same connection, same group
                // loop: once this one is counted, the one before was handled too.
                send(out, accept(leader, target, ballot, new Entry(chosen, ballot, forged), chosen + 1));
                await("node " + target + " counts the divergence", () -> divergences(cluster, target) >= 1);
                assertEquals(chosen, cluster.status(target, 0).commitSlot(), "the forged commit point moved nothing");
                assertEquals(epoch, cluster.status(target, 0).promisedEpoch());
            }

            // The leader's own value for the next slot replaces the forged one there (counted as well).
            put(client, "audit/k2", "later");
            await("node " + target + " counts the second value offered for slot " + (chosen + 1),
                    () -> divergences(cluster, target) >= 2);
            awaitEverywhere(cluster, "audit/k2", "later");
            awaitEverywhere(cluster, "audit/k", "original");
            for (int node = 0; node < 3; node++) {
                if (node != target) {
                    assertEquals(0, divergences(cluster, node), "node " + node + " saw no forged value");
                }
            }

            // A Prepare with epoch 2^62, to every node (as the leader, or as another node to the leader).
            for (int node = 0; node < 3; node++) {
                int claimed = node == leader ? target : leader;
                try (Socket socket = new Socket("127.0.0.1", cluster.node(node).peerAddress().getPort())) {
                    DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                    send(out, new WireFrame.Hello(claimed, CLUSTER));
                    send(out, new WireFrame.PeerMessage(0,
                            new Message.Prepare(claimed, node, new Ballot(HUGE_EPOCH, claimed), 1)));
                    int n = node;
                    await("node " + node + " refuses the huge ballot", () -> refusedBallots(cluster, n) >= 1);
                }
                assertTrue(cluster.status(node, 0).promisedEpoch() < HUGE_EPOCH, "node " + node + " promised nothing");
            }

            // The group still elects and commits: the leader leaves, another node wins with a ZooKeeper epoch.
            cluster.stop(leader);
            await("a new leader", () -> {
                int now = cluster.leaderOf(0);
                return now >= 0 && now != leader;
            });
            put(client, "audit/k3", "after");
            for (int node = 0; node < 3; node++) {
                if (node != leader) {
                    assertTrue(cluster.status(node, 0).promisedEpoch() > epoch, "node " + node + " follows a newer epoch");
                    assertTrue(cluster.status(node, 0).promisedEpoch() < HUGE_EPOCH);
                    assertArrayEquals(utf8("after"), staleRead(cluster, node, "audit/k3"));
                    assertArrayEquals(utf8("original"), staleRead(cluster, node, "audit/k"));
                }
            }
        }
    }

    private static WireFrame.PeerMessage accept(int from, int to, Ballot ballot, Entry entry, long commit) {
        return new WireFrame.PeerMessage(0, new Message.Accept(from, to, ballot, List.of(entry), commit));
    }

    /** One frame as the peer transport writes it: {@code [length u32][body]}. */
    private static void send(DataOutputStream out, WireFrame frame) throws Exception {
        byte[] body = WireCodec.encode(frame);
        out.writeInt(body.length);
        out.write(body);
        out.flush();
    }

    private static void put(NodeClient client, String key, String value) throws Exception {
        assertEquals(ClientReply.Status.OK, client.put(key, utf8(value), 60_000).status(), "put " + key);
    }

    private static long divergences(LocalCluster cluster, int node) {
        return (long) cluster.node(node).registry().get("synod.divergence").tag("group", "0").functionCounter().count();
    }

    private static long refusedBallots(LocalCluster cluster, int node) {
        return (long) cluster.node(node).registry().get("synod.refused.ballots").tag("group", "0").functionCounter().count();
    }

    private static void awaitEverywhere(LocalCluster cluster, String key, String value) throws Exception {
        for (int node = 0; node < cluster.size(); node++) {
            assertArrayEquals(utf8(value), staleRead(cluster, node, key), key + " on node " + node);
        }
    }

    /** A STALE read from one node, polled (bounded) until it holds the key: a follower learns commits a heartbeat later. */
    private static byte[] staleRead(LocalCluster cluster, int node, String key) throws Exception {
        InetSocketAddress address = cluster.clientAddresses().get(node);
        try (io.synod.client.SynodClient one = io.synod.client.SynodClient.builder().servers(List.of(address))
                .timeout(Duration.ofSeconds(10)).build()) {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (true) {
                try {
                    GetResult r = one.get(key, Consistency.STALE).join();
                    if (r.exists() || System.nanoTime() > deadline) {
                        return r.value();
                    }
                } catch (CompletionException e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                }
                Thread.sleep(20);
            }
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting: " + what);
            Thread.sleep(20);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
