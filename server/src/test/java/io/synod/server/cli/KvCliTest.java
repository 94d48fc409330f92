package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.server.node.LocalCluster;
import io.synod.server.security.LocalCa;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** {@code synod kv} against a real in-process cluster: outputs, exit codes and one-line errors. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
class KvCliTest {
    Path dir;
    TestingServer zk;
    LocalCluster cluster;
    String zkConnect;
    String servers;

    @BeforeAll
    void start() throws Exception {
        dir = Files.createTempDirectory("synod-kv-cli");
        zk = new TestingServer(true);
        cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, 4, "kvcli",
                Map.of("zookeeper.session.timeout.ms", "3000", "metrics.port", "-1"));
        cluster.startAll();
        assertTrue(cluster.awaitLeaders(60_000));
        zkConnect = "zk://127.0.0.1:" + zk.getPort() + "/kvcli";
        servers = cluster.clientAddressList();
        // What 'synod cluster start' writes, pointing at this cluster's ZooKeeper; node 0's configuration tells
        // 'kv --dir' that the cluster runs TLS, with its certificates in DIR/certs.
        Path config = dir.resolve("node-0.properties");
        Files.writeString(config, cluster.config(0).toProperties());
        new ClusterFile("kvcli", 4, ProcessHandle.current().pid(), zk.getPort(),
                List.of(new ClusterFile.NodeEntry(0, 1, 1, cluster.clientAddresses().get(0).getPort(), 1, config.toString(),
                        "l"))).write(dir);
    }

    @AfterAll
    void stop() throws Exception {
        cluster.close();
        zk.close();
        try (var paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    SynodCliTest.Run kv(String... args) {
        List<String> all = new java.util.ArrayList<>(List.of("kv"));
        if (!List.of(args).contains("--connect-timeout-ms") && !List.of(args).contains("--help")) {
            // Generous bounds (defaults 10 s per call, 5 s to connect): a loaded machine must not turn a slow
            // fsync or election into a failed command. The unreachable cases set their own connect timeout.
            all.addAll(List.of("--timeout-ms", "60000", "--connect-timeout-ms", "30000"));
        }
        all.addAll(List.of(args));
        if (all.contains("--connect")) {
            all.addAll(1, List.of("--certs", LocalCa.certsDir(dir).toString())); // The cluster's client certificate.
        }
        return SynodCliTest.run(all.toArray(String[]::new));
    }

    @Test
    void putGetDeleteThroughEveryWayToConnect() {
        SynodCliTest.Run put = kv("--connect", zkConnect, "put", "user/42", "alice");
        assertEquals(0, put.exitCode(), put.err());
        assertTrue(put.out().matches("OK version \\d+\\s*"), put.out());
        long version = Long.parseLong(put.out().trim().substring("OK version ".length()));

        SynodCliTest.Run get = kv("--connect", servers, "get", "user/42", "--meta");
        assertEquals(0, get.exitCode(), get.err());
        assertTrue(get.out().startsWith("alice\nversion " + version + ", slot "), get.out());

        // Without quorum leases the preferred node is a plain follower or the leader: the read still answers.
        SynodCliTest.Run near = kv("--connect", servers, "--read-from", "1", "get", "user/42");
        assertEquals(0, near.exitCode(), near.err());
        assertEquals("alice\n", near.out());

        SynodCliTest.Run stale = kv("--dir", dir.toString(), "--consistency", "stale", "get", "user/42");
        assertEquals(0, stale.exitCode(), stale.err());
        // A follower may not have applied the put yet: a STALE read says so by being old, never wrong.
        assertTrue(stale.out().equals("alice\n") || stale.out().isEmpty(), stale.out());

        assertEquals(0, kv("--dir", dir.toString(), "delete", "user/42").exitCode());
        SynodCliTest.Run missing = kv("get", "--dir", dir.toString(), "user/42");
        assertEquals(1, missing.exitCode());
        assertTrue(missing.err().startsWith("not found: user/42"), missing.err());
    }

    @Test
    void casByValueAbsenceAndVersion() {
        String d = dir.toString();
        assertEquals(0, kv("--dir", d, "cas", "--absent", "lock", "a").exitCode());
        SynodCliTest.Run again = kv("--dir", d, "cas", "--absent", "lock", "b");
        assertEquals(1, again.exitCode());
        assertTrue(again.err().startsWith("cas failed: lock"), again.err());
        SynodCliTest.Run swapped = kv("--dir", d, "cas", "lock", "a", "b");
        assertEquals(0, swapped.exitCode(), swapped.err());
        long version = Long.parseLong(swapped.out().trim().substring("OK version ".length()));
        assertEquals(1, kv("--dir", d, "cas", "--version", Long.toString(version - 1), "lock", "c").exitCode());
        assertEquals(0, kv("--dir", d, "cas", "--version", Long.toString(version), "lock", "c").exitCode());
        assertEquals("c\n", kv("--dir", d, "get", "lock").out());
        assertEquals(2, kv("--dir", d, "cas", "lock", "c").exitCode(), "by value needs KEY EXPECTED NEW");
        assertEquals(2, kv("--dir", d, "cas").exitCode(), "no arguments at all");
        assertEquals(2, kv("--dir", d, "cas", "--absent", "a", "b", "c").exitCode(), "--absent takes KEY NEW");
    }

    @Test
    void casHelpPrintsTheHelpNotAnArityError() {
        SynodCliTest.Run help = kv("cas", "--help");
        assertEquals(0, help.exitCode(), help.err());
        assertTrue(help.out().contains("Compare-and-set"), help.out());
    }

    @Test
    void scanPrintsKeysInOrderAcrossGroups() {
        String d = dir.toString();
        for (String k : new String[] {"s/b", "s/a", "s/c"}) {
            assertEquals(0, kv("--dir", d, "put", k, "v" + k).exitCode());
        }
        SynodCliTest.Run scan = kv("--dir", d, "scan", "s/", "s0");
        assertEquals(0, scan.exitCode(), scan.err());
        assertEquals("s/a\tvs/a\ns/b\tvs/b\ns/c\tvs/c\n", scan.out());
        assertTrue(scan.err().startsWith("3 keys"), scan.err());
        SynodCliTest.Run limited = kv("--dir", d, "scan", "s/", "s0", "--limit", "2");
        assertEquals("s/a\tvs/a\ns/b\tvs/b\n", limited.out());
        assertTrue(limited.err().contains("more in the range"), limited.err());
    }

    @Test
    void errorsAreOneLineWithTheRightExitCode() throws Exception {
        SynodCliTest.Run badKey = kv("--dir", dir.toString(), "put", "k".repeat(1025), "v");
        assertEquals(2, badKey.exitCode());
        assertTrue(badKey.err().startsWith("error: bad key: key must be 1..1024 UTF-8 bytes"), badKey.err());

        SynodCliTest.Run big = kv("--dir", dir.toString(), "put", "big", "x".repeat((1 << 20) + 1));
        assertEquals(2, big.exitCode());
        assertTrue(big.err().startsWith("error: value too large: "), big.err());

        int closed = LocalCluster.freePort();
        SynodCliTest.Run unreachable = kv("--connect", "127.0.0.1:" + closed, "--connect-timeout-ms", "1500", "get", "k");
        assertEquals(1, unreachable.exitCode());
        assertTrue(unreachable.err().startsWith("error: cluster unreachable: "), unreachable.err());
        assertEquals(1, unreachable.err().lines().count(), unreachable.err());

        SynodCliTest.Run noZk = kv("--connect", "zk://127.0.0.1:" + closed, "--connect-timeout-ms", "1500", "get", "k");
        assertEquals(1, noZk.exitCode());
        assertTrue(noZk.err().startsWith("error: cluster unreachable: "), noZk.err());

        SynodCliTest.Run noDir = kv("--dir", dir.resolve("nothing").toString(), "get", "k");
        assertEquals(1, noDir.exitCode());
        assertTrue(noDir.err().startsWith("error: no cluster in"), noDir.err());

        assertEquals(2, kv("get", "k").exitCode(), "neither --connect nor --dir");
        assertEquals(2, kv("--connect", "nonsense", "get", "k").exitCode());
        assertEquals(2, kv("--dir", dir.toString(), "--consistency", "eventual", "get", "k").exitCode());
        SynodCliTest.Run badNode = kv("--dir", dir.toString(), "--read-from", "99", "get", "k");
        assertEquals(2, badNode.exitCode());
        assertTrue(badNode.err().startsWith("error: --read-from: readFrom node id must be 0..62, got 99"), badNode.err());
        SynodCliTest.Run noOp = kv("--dir", dir.toString());
        assertEquals(2, noOp.exitCode());
        assertTrue(noOp.err().startsWith("error: missing operation"), noOp.err());
        for (SynodCliTest.Run r : List.of(badKey, big, unreachable, noZk, noDir)) {
            assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.err());
        }
    }

    /** {@code kv coding}: bad usage and a change the cluster refuses (this cluster runs without coding) exit 2. */
    @Test
    void codingChangesAreCheckedAndRefusedWithExitTwo() throws Exception {
        String d = dir.toString();
        for (String[] bad : new String[][] {{"coding", "2,1"}, {"coding", "--group", "0", "2"},
                {"coding", "--group", "0", "2,1,3,4"}, {"coding", "--group", "0", "two,1"}, {"coding", "--group", "0", "0,1"},
                {"coding", "--group", "0", "1,1,0"}, {"coding", "--group", "-1", "1,1"}}) {
            String[] args = new String[bad.length + 2];
            args[0] = "--dir";
            args[1] = d;
            System.arraycopy(bad, 0, args, 2, bad.length);
            SynodCliTest.Run r = kv(args);
            assertEquals(2, r.exitCode(), String.join(" ", bad) + ": " + r.err());
            assertTrue(r.err().startsWith("error: "), r.err());
        }
        // Usage is checked before connecting: a bad coding is exit 2 even with nobody listening.
        SynodCliTest.Run early = kv("--connect", "127.0.0.1:" + LocalCluster.freePort(), "--connect-timeout-ms", "1500",
                "coding", "--group", "0", "2");
        assertEquals(2, early.exitCode(), early.err());
        assertTrue(early.err().startsWith("error: coding must be F,X or F,X,THRESHOLD"), early.err());
        SynodCliTest.Run uncoded = kv("--dir", d, "coding", "--group", "0", "1,1");
        assertEquals(2, uncoded.exitCode(), uncoded.out() + uncoded.err());
        assertTrue(uncoded.err().startsWith("error: refused: group 0 runs without coding"), uncoded.err());
        SynodCliTest.Run noGroup = kv("--connect", servers, "coding", "--group", "9", "1,1");
        assertEquals(2, noGroup.exitCode(), noGroup.err());
        assertTrue(noGroup.err().contains("group 9 does not exist"), noGroup.err());
        SynodCliTest.Run help = kv("coding", "--help");
        assertEquals(0, help.exitCode());
        for (String s : new String[] {"F,X[,THRESHOLD]", "X <= N - 2F", "--group", "Exit status", "keeps the coding"}) {
            assertTrue(help.out().contains(s), s + " in:\n" + help.out());
        }
    }

    @Test
    void helpExplainsConnectingConsistencyAndExitCodes() {
        SynodCliTest.Run help = kv("--help");
        assertEquals(0, help.exitCode());
        for (String s : new String[] {"--connect", "zk://", "--dir", "stale", "Exit status", "put", "scan", "cas"}) {
            assertTrue(help.out().contains(s), s + " in:\n" + help.out());
        }
    }
}
