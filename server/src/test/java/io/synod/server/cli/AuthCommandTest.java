package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.server.node.LocalCluster;
import io.synod.server.security.CertificateAuthority;
import io.synod.server.security.LocalCa;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code synod auth} against a real cluster over TLS: the bootstrap administrator root defines a user and a role on
 * a prefix; the user then writes there through {@code synod kv}, and a write elsewhere or an auth command of its own
 * is refused with one line naming the key and the permission missing (exit 1).
 */
class AuthCommandTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(180)
    void rootGrantsAPrefixAndTheUserIsHeldToIt() throws Exception {
        try (TestingServer zk = new TestingServer(true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 3, 1,
                        "authcli", Map.of("zookeeper.session.timeout.ms", "3000", "metrics.port", "-1",
                                "auth.refresh.ms", "50"))) {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000));
            CertificateAuthority.open(LocalCa.certsDir(dir)).createClient("carol");
            String servers = cluster.clientAddressList();

            ok(run(servers, "root", "auth", "user", "add", "carol"), "OK user carol added");
            ok(run(servers, "root", "auth", "role", "add", "orders-rw"), "OK role orders-rw added");
            ok(run(servers, "root", "auth", "role", "grant", "orders-rw", "readwrite", "orders/"),
                    "OK role orders-rw grants readwrite on 'orders/'");
            ok(run(servers, "root", "auth", "user", "grant-role", "carol", "orders-rw"), "OK user carol holds role orders-rw");
            SynodCliTest.Run list = run(servers, "root", "auth", "list");
            assertTrue(list.out().contains("user carol: readwrite 'orders/'"), list.out());

            // Every node applies the grant within the refresh period after its replica applied it: retry briefly.
            SynodCliTest.Run put = null;
            for (int attempt = 0; attempt < 100; attempt++) {
                put = run(servers, "carol", "kv", "put", "orders/1", "paid");
                if (put.exitCode() == 0) {
                    break;
                }
                Thread.sleep(50);
            }
            assertEquals(0, put.exitCode(), put.err());

            SynodCliTest.Run elsewhere = run(servers, "carol", "kv", "put", "payroll/1", "raise");
            assertEquals(1, elsewhere.exitCode());
            assertEquals("error: permission denied: user 'carol' needs write on key 'payroll/1' (Put)",
                    elsewhere.err().strip());
            SynodCliTest.Run selfGrant = run(servers, "carol", "auth", "role", "grant", "orders-rw", "readwrite", "");
            assertEquals(1, selfGrant.exitCode());
            assertTrue(selfGrant.err().strip().startsWith("error: permission denied: user 'carol' needs admin on key"),
                    selfGrant.err());
            assertEquals(1, selfGrant.err().strip().lines().count(), selfGrant.err());

            assertEquals(2, run(servers, "root", "auth", "role", "grant", "orders-rw", "everything", "x").exitCode(),
                    "a permission other than read, write or readwrite is bad usage");
            ok(run(servers, "root", "auth", "role", "revoke", "orders-rw", "orders/"),
                    "OK role orders-rw no longer grants anything on 'orders/'");
            ok(run(servers, "root", "auth", "user", "remove", "carol"), "OK user carol removed");
        }
    }

    private SynodCliTest.Run run(String servers, String user, String... args) {
        List<String> all = new ArrayList<>();
        all.add(args[0]);
        all.addAll(List.of("--connect", servers, "--certs", LocalCa.certsDir(dir).toString(), "--user", user,
                "--timeout-ms", "60000"));
        all.addAll(List.of(args).subList(1, args.length));
        return SynodCliTest.run(all.toArray(String[]::new));
    }

    private static void ok(SynodCliTest.Run run, String line) {
        assertEquals(0, run.exitCode(), run.err());
        assertEquals(line, run.out().strip());
    }
}
