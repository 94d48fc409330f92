package io.synod.server.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.client.BlockingSynodClient;
import io.synod.client.Consistency;
import io.synod.client.SynodClient;
import io.synod.client.SynodPermissionException;
import io.synod.client.SynodSession;
import io.synod.client.TlsFiles;
import io.synod.core.paxos.Coding;
import io.synod.core.paxos.Entry;
import io.synod.server.log.NodeLog;
import io.synod.server.node.LocalCluster;
import io.synod.server.security.CertificateAuthority;
import io.synod.server.security.LocalCa;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client authorization on a real four-node cluster (coded: N = 4, F = 1, X = 2) over mutual TLS (docs/security.md, "Client authorization"):
 * the bootstrap administrator {@code root} creates users alice and bob with a role each on their own prefix; every
 * node enforces a grant once it has applied it; alice cannot write under bob's prefix or revoke bob's session, and
 * a non-administrator's coding change is refused and leaves the coding as it was, while root's goes through.
 */
class ClientAuthorizationClusterTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(240)
    void usersActWithinTheirRolesAndSessionsBelongToTheirCreators() throws Exception {
        long adminChangeSlot;
        try (TestingServer zk = new TestingServer(true)) {
            try (LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 4, 1,
                    "authz", Map.of("zookeeper.session.timeout.ms", "3000", "auth.refresh.ms", "50", "coding", "4,1,2"))) {
                cluster.startAll();
                assertTrue(cluster.awaitLeaders(60_000), "the group gets a leader");
                CertificateAuthority ca = CertificateAuthority.open(LocalCa.certsDir(dir));
                TlsFiles aliceFiles = ca.createClient("alice");
                TlsFiles bobFiles = ca.createClient("bob");
                try (SynodClient root = sdk(cluster, cluster.clientTls());
                        SynodClient alice = sdk(cluster, aliceFiles);
                        SynodClient bob = sdk(cluster, bobFiles)) {
                    BlockingSynodClient a = alice.blocking();
                    BlockingSynodClient b = bob.blocking();

                    // Before any grant alice may do nothing: a typed refusal naming the key and the permission.
                    SynodPermissionException none = assertThrows(SynodPermissionException.class,
                            () -> a.put("alice/x", "1"));
                    assertEquals("write", none.permission());
                    assertEquals("alice/x", none.key());

                    AuthAdmin admin = new AuthAdmin(root.blocking());
                    for (String user : new String[] {"alice", "bob"}) {
                        admin.addUser(user);
                        admin.addRole(user + "-rw");
                        admin.grant(user + "-rw", Permission.READWRITE, user + "/");
                        admin.grantRole(user, user + "-rw");
                    }
                    // A grant applied in the log is enforced by every node once it has applied it (bounded wait).
                    awaitEveryNode(cluster, "bob holds readwrite on bob/",
                            t -> t.grants("bob").contains(new AuthTable.Grant("bob/", Permission.READWRITE)));
                    for (int node = 0; node < cluster.size(); node++) {
                        // A STALE read is answered (and checked) by the node it is sent to.
                        try (SynodClient one = sdk(cluster.clientAddresses().get(node), aliceFiles)) {
                            assertEquals(null, one.blocking().get("alice/none", Consistency.STALE).value(), "node " + node);
                            assertThrows(SynodPermissionException.class,
                                    () -> one.blocking().get("bob/none", Consistency.STALE), "node " + node);
                        }
                    }

                    a.put("alice/x", "1");
                    b.put("bob/y", "2");
                    SynodPermissionException cross = assertThrows(SynodPermissionException.class,
                            () -> a.put("bob/y", "alice was here"));
                    assertEquals("write", cross.permission());
                    assertEquals("bob/y", cross.key());
                    assertThrows(SynodPermissionException.class, () -> a.get("bob/y"));
                    assertThrows(SynodPermissionException.class, () -> a.scan("bob/", "bob0", 10));
                    assertThrows(SynodPermissionException.class, () -> a.scan("", "", 10), "a scan of every key");
                    assertEquals(1, a.scan("alice/", "alice0", 10).entries().stream()
                            .filter(kv -> kv.key().equals("alice/x")).count());
                    assertArrayEquals("2".getBytes(StandardCharsets.UTF_8), b.get("bob/y").value(),
                            "bob's value is untouched");
                    // The table itself is the administrators': alice cannot grant herself bob's prefix.
                    assertEquals("admin", assertThrows(SynodPermissionException.class,
                            () -> new AuthAdmin(a).grant("alice-rw", Permission.READWRITE, "bob/")).permission());

                    // Sessions belong to their creator: alice cannot revoke bob's, root (admin) can.
                    SynodSession bobs = bob.grantSession(Duration.ofSeconds(30)).join();
                    CompletionException revoke = assertThrows(CompletionException.class,
                            () -> alice.revokeSession(bobs.id()).join());
                    assertTrue(revoke.getCause() instanceof SynodPermissionException, String.valueOf(revoke.getCause()));
                    assertEquals("owner", ((SynodPermissionException) revoke.getCause()).permission());
                    bob.createEphemeral(bobs, "bob/held", "x".getBytes(StandardCharsets.UTF_8)).join();
                    assertArrayEquals("x".getBytes(StandardCharsets.UTF_8), b.get("bob/held").value(),
                            "bob's session is still alive: its key exists");
                    assertTrue(root.revokeSession(bobs.id()).join(), "an administrator revokes any session");
                    assertEquals(null, b.get("bob/held").value(), "the revoke took the session's key with it");

                    // A non-administrator's coding change is refused before anything is proposed.
                    SynodPermissionException coding = assertThrows(SynodPermissionException.class,
                            () -> a.changeCoding(0, 1, 1, 0));
                    assertEquals("admin", coding.permission());
                    adminChangeSlot = root.blocking().changeCoding(0, 1, 1, 0).slot();
                    assertTrue(adminChangeSlot > 0);
                }
            }
        }
        // Every node's log holds exactly one coding change: root's. Alice's never reached a log.
        for (int node = 0; node < 4; node++) {
            Path logDir = dir.resolve("node-" + node).resolve("log");
            int changes = 0;
            try (NodeLog log = NodeLog.open(logDir, 16 << 20)) {
                for (Entry e : log.recovery(0).entries().values()) {
                    if (Coding.isChange(e.command())) {
                        changes++;
                        assertEquals(adminChangeSlot, e.slot(), "node " + node + ": the change in the log is root's");
                    }
                }
            }
            assertEquals(1, changes, "node " + node + " logged one coding change");
        }
    }

    private static void awaitEveryNode(LocalCluster cluster, String what, java.util.function.Predicate<AuthTable> check)
            throws InterruptedException {
        BooleanSupplier all = () -> {
            for (int node = 0; node < cluster.size(); node++) {
                if (!check.test(cluster.node(node).auth().table())) {
                    return false;
                }
            }
            return true;
        };
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!all.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "every node enforces: " + what);
            Thread.sleep(20);
        }
    }

    private static SynodClient sdk(LocalCluster cluster, TlsFiles tls) throws Exception {
        return SynodClient.builder().servers(new ArrayList<>(cluster.clientAddresses().values()))
                .timeout(Duration.ofSeconds(30)).connectTimeout(Duration.ofSeconds(30)).tls(tls).build();
    }

    private static SynodClient sdk(InetSocketAddress one, TlsFiles tls) {
        return SynodClient.builder().servers(java.util.List.of(one)).timeout(Duration.ofSeconds(30))
                .connectTimeout(Duration.ofSeconds(30)).tls(tls).build();
    }
}
