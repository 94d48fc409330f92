package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.server.node.LocalCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Sessions, ephemeral and sequential keys, checked deletes and watches through the SDK against a real in-process
 * cluster (3 nodes, 2 groups, a real ZooKeeper), including expiry by the leader and a leader kill under a watch.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(240)
class SynodSessionsIntegrationTest {
    private RealCluster real;
    TestingServer zk;
    LocalCluster cluster;
    SynodClient client;

    @BeforeAll
    void start() throws Exception {
        real = RealCluster.start("sessions", 3, 2, Map.of("zookeeper.session.timeout.ms", "3000", "metrics.port", "-1"));
        zk = real.zk;
        cluster = real.cluster;
        client = newClient();
    }

    SynodClient newClient() {
        return SynodClient.builder().zookeeper(zk.getConnectString()).cluster("sessions").timeout(Duration.ofSeconds(60))
                .tls(cluster.clientTls()).build();
    }

    @AfterAll
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (real != null) {
            real.close();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void ephemeralAndSequentialKeysCarryTokensAndGoWithTheirSession() throws Exception {
        SynodSession a = client.grantSession(Duration.ofSeconds(10)).join();
        SynodSession b = client.grantSession(Duration.ofSeconds(10)).join();
        CreateResult held = client.createEphemeral(a, "/t1/holder", bytes("a")).join();
        assertTrue(held.created());
        assertEquals(held.slot(), held.token(), "a created key's token is its create's slot");
        CreateResult again = client.createEphemeral(b, "/t1/holder", bytes("b")).join();
        assertFalse(again.created());
        assertEquals(held.token(), again.token());
        assertEquals(a.id(), again.ownerSession());
        CreateResult first = client.createSequential(a, "/t1/q/x-", new byte[0]).join();
        CreateResult second = client.createSequential(b, "/t1/q/y-", new byte[0]).join();
        assertEquals("/t1/q/x-0000000000", first.key());
        assertEquals("/t1/q/y-0000000001", second.key(), "one counter per parent");
        assertTrue(second.token() > first.token());
        KeyEntry entry = client.getEntry("/t1/holder").join();
        assertArrayEquals(bytes("a"), entry.value());
        assertEquals(a.id(), entry.ownerSession());
        assertEquals(List.of("/t1/holder", "/t1/q/x-0000000000", "/t1/q/y-0000000001"),
                client.listKeys("/t1/", 10).join().keys().stream().map(KeyListing.Listed::key).toList());
        assertFalse(client.deleteIf("/t1/q/y-0000000001", first.token()).join().deleted(), "a stale token deletes nothing");
        assertTrue(client.deleteIf("/t1/q/y-0000000001", second.token()).join().deleted());
        a.close();
        assertFalse(client.getEntry("/t1/holder").join().exists(), "revoking a session deletes its keys");
        assertFalse(client.getEntry("/t1/q/x-0000000000").join().exists());
        CompletionException e = assertThrows(CompletionException.class,
                () -> client.createEphemeral(a, "/t1/late", new byte[0]).join());
        assertTrue(e.getCause() instanceof SessionExpiredException, e.toString());
        b.close();
    }

    @Test
    void aSessionWhoseClientStopsIsExpiredByTheLeaderAndALostSessionIsReported() throws Exception {
        long startSlot;
        try (SynodClient gone = newClient()) {
            // TTL 5 s, keep-alives every TTL/6: a loaded machine does not starve them for a whole TTL.
            SynodSession s = gone.grantSession(Duration.ofSeconds(5)).join();
            startSlot = gone.createEphemeral(s, "/t2/eph", bytes("x")).join().slot();
            Thread.sleep(6_000);
            assertTrue(gone.getEntry("/t2/eph").join().exists(), "keep-alives hold the session beyond its TTL");
        } // closing the client stops the keep-alives without revoking
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (client.getEntry("/t2/eph").join().exists()) {
            assertTrue(System.nanoTime() < deadline, "the leader expires a silent session");
            Thread.sleep(100);
        }
        assertTrue(startSlot > 0);

        // A long TTL: the session must be lost because it was revoked, not because a loaded machine
        // delayed its keep-alives past the TTL (that reason would not say "ended").
        SynodSession s = client.grantSession(Duration.ofSeconds(15)).join();
        assertTrue(s.isAlive());
        client.revoke(s.id()).join(); // ended on the servers behind the session object's back
        String reason = s.lost().get(30, TimeUnit.SECONDS);
        assertTrue(reason.contains("ended"), reason);
        assertFalse(s.isAlive());
    }

    @Test
    void watchesDeliverEveryEventOnceInOrderAndResumeFromAPositionAcrossALeaderKill() throws Exception {
        long from = client.getEntry("/t3/none").join().slot() + 1;
        LinkedBlockingQueue<WatchEvent> seen = new LinkedBlockingQueue<>();
        SynodWatch watch = client.watchPrefix("/t3/", from, new WatchListener() {
            @Override
            public void onEvent(WatchEvent event) {
                seen.add(event);
            }
        });
        // The session outlives the leader kill below however long the failover takes on a loaded machine.
        SynodSession s = client.grantSession(Duration.ofSeconds(30)).join();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            client.createEphemeral(s, "/t3/k" + i, bytes("v")).join();
            expected.add("PUT /t3/k" + i);
        }
        int sessionGroup = client.shardMap().groupFor(new byte[0]);
        int leader = cluster.leaderOf(sessionGroup);
        cluster.crash(leader);
        for (int i = 0; i < 5; i++) {
            client.deleteIf("/t3/k" + i, -1).join();
            expected.add("DELETE /t3/k" + i);
        }
        s.close();
        for (int i = 5; i < 10; i++) {
            expected.add("DELETE /t3/k" + i);
        }
        List<String> got = new ArrayList<>();
        List<WatchEvent> events = new ArrayList<>();
        while (got.size() < expected.size()) {
            WatchEvent e = seen.poll(60, TimeUnit.SECONDS);
            assertTrue(e != null, "events so far: " + got);
            events.add(e);
            got.add(e.type() + " " + e.key());
        }
        watch.close();
        assertEquals(expected, got, "every event once, in slot order, across the leader change");
        // Resuming from the position after the 7th event gives exactly the rest.
        WatchEvent seventh = events.get(6);
        LinkedBlockingQueue<WatchEvent> rest = new LinkedBlockingQueue<>();
        try (SynodWatch resumed = client.watchPrefix("/t3/", seventh.slot(), rest::add)) {
            List<WatchEvent> tail = new ArrayList<>();
            while (tail.size() < events.size() - 6) {
                WatchEvent e = rest.poll(60, TimeUnit.SECONDS);
                assertTrue(e != null, "resumed events so far: " + tail);
                tail.add(e);
            }
            assertEquals(events.subList(6, events.size()), tail);
            assertEquals(null, rest.poll(300, TimeUnit.MILLISECONDS), "nothing twice");
        }
    }
}
