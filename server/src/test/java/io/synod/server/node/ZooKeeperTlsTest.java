package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.client.TlsFiles;
import io.synod.coordination.ClusterSpec;
import io.synod.coordination.CoordinationException;
import io.synod.coordination.CoordinationOptions;
import io.synod.coordination.CuratorCoordination;
import io.synod.coordination.ZooKeeperAccess;
import io.synod.protocol.ClientReply;
import io.synod.server.client.NodeClient;
import io.synod.server.config.ServerConfig;
import io.synod.server.security.CertificateAuthority;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS to ZooKeeper: a real ZooKeeper 3.9.5 server (its own JVM, so that its {@code ssl.*} settings, which
 * ZooKeeper turns into system properties, stay out of this one) serving only a secure client port with
 * certificates of the project's CA, and requiring client certificates. Synod nodes reach it with
 * {@code zookeeper.client.secure} and the {@code zookeeper.ssl.*} keys, per session; a session without TLS
 * cannot connect.
 */
class ZooKeeperTlsTest {
    @TempDir
    Path dir;

    /** ZooKeeper's PEM key store holds the private key and the certificate chain in one file. */
    private static Path pemKeyStore(TlsFiles files, Path out) throws IOException {
        Files.writeString(out, Files.readString(files.key()) + Files.readString(files.cert()), StandardCharsets.US_ASCII);
        return out;
    }

    private Process startSecureZooKeeper(int port, TlsFiles server, Path log) throws IOException {
        Path cfg = dir.resolve("zoo.cfg");
        Files.createDirectories(dir.resolve("zk-data"));
        Files.writeString(cfg, "tickTime=200\ndataDir=" + dir.resolve("zk-data") + "\nsecureClientPort=" + port
                + "\nsecureClientPortAddress=127.0.0.1\nserverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory"
                + "\nssl.keyStore.location=" + pemKeyStore(server, dir.resolve("zk-server.pem")) + "\nssl.keyStore.type=PEM"
                + "\nssl.trustStore.location=" + server.ca() + "\nssl.trustStore.type=PEM\nssl.clientAuth=need"
                + "\nadmin.enableServer=false\nmaxSessionTimeout=60000\n", StandardCharsets.UTF_8);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx128m", "-XX:+UseSerialGC", "-cp",
                System.getProperty("java.class.path"), "org.apache.zookeeper.server.quorum.QuorumPeerMain", cfg.toString());
        pb.redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        return pb.start();
    }

    private static void awaitPort(int port, Process zk, Path log) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            assertTrue(zk.isAlive(), () -> "ZooKeeper exited: " + read(log));
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new AssertionError("ZooKeeper did not open its secure port: " + read(log));
    }

    /**
     * Waits (bounded) until a TLS session with these keys connects: the port opens before the server serves, and
     * a loaded machine may need more than one connection timeout for the first handshake.
     */
    private static void awaitTlsSession(int port, Map<String, String> ssl, Process zk, Path log) throws Exception {
        Map<String, String> properties = new LinkedHashMap<>(ssl);
        properties.put("zookeeper.client.secure", "true");
        properties.put("zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNetty");
        ZooKeeperAccess tls = ZooKeeperAccess.open().withClientProperties(properties);
        long deadline = System.nanoTime() + 90_000_000_000L;
        while (true) {
            assertTrue(zk.isAlive(), () -> "ZooKeeper exited: " + read(log));
            try (CuratorCoordination probe = CuratorCoordination.connect("127.0.0.1:" + port, "probe",
                    CoordinationOptions.defaults(), tls)) {
                return;
            } catch (CoordinationException notYet) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("no TLS session to ZooKeeper: " + notYet.getMessage() + "; " + read(log));
                }
            }
        }
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Test
    @Timeout(240)
    void nodesElectAndServeOverTlsToZooKeeperAndAPlainSessionCannotConnect() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create(dir.resolve("zk-certs"), "zt");
        TlsFiles zkServer = ca.createNode(0, "zt", List.of());
        TlsFiles zkClient = ca.createNode(1, "zt", List.of());
        int port = LocalCluster.freePort();
        Path log = dir.resolve("zookeeper.log");
        Process zk = startSecureZooKeeper(port, zkServer, log);
        try {
            awaitPort(port, zk, log);
            Map<String, String> ssl = new LinkedHashMap<>();
            ssl.put("zookeeper.ssl.keyStore.location", pemKeyStore(zkClient, dir.resolve("zk-client.pem")).toString());
            ssl.put("zookeeper.ssl.keyStore.type", "PEM");
            ssl.put("zookeeper.ssl.trustStore.location", zkClient.ca().toString());
            ssl.put("zookeeper.ssl.trustStore.type", "PEM");
            awaitTlsSession(port, ssl, zk, log);
            Map<String, String> extra = new LinkedHashMap<>(ssl);
            extra.put("zookeeper.session.timeout.ms", "10000");
            extra.put("zookeeper.client.secure", "true");
            try (LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", port), dir.resolve("cluster"),
                    3, 1, "zt", extra)) {
                cluster.startAll();
                assertTrue(cluster.awaitLeaders(90_000), () -> "a leader over TLS to ZooKeeper: " + read(log));
                try (NodeClient client = cluster.client(31, 2_000)) {
                    assertEquals(ClientReply.Status.OK, client.put("k", "v".getBytes(StandardCharsets.UTF_8), 30_000)
                            .status());
                }
                ServerConfig node0 = cluster.config(0);
                assertTrue(node0.zookeeper().secure());
                // The node's own access (identity and TLS) reads and writes; TLS went to that session only.
                try (CuratorCoordination admin = CuratorCoordination.connect("127.0.0.1:" + port, "zt",
                        CoordinationOptions.defaults(), node0.zookeeper().access())) {
                    assertEquals(ClusterSpec.defaults(3).withGroups(1).groups(),
                            admin.metadata().clusterSpec().orElseThrow().groups());
                }
                assertEquals(null, System.getProperty("zookeeper.client.secure"), "no JVM-wide TLS setting");
            }
            // Without TLS the same server cannot be reached at all.
            CoordinationOptions quick = new CoordinationOptions(Duration.ofMillis(2000), Duration.ofMillis(1500),
                    Duration.ofMillis(600), Duration.ofMillis(50), Duration.ZERO, 0);
            assertTrue(assertThrows(CoordinationException.class, () -> CuratorCoordination.connect("127.0.0.1:" + port,
                    "zt", quick)).getMessage().startsWith("cannot reach ZooKeeper at 127.0.0.1:" + port));
        } finally {
            zk.destroy();
            if (!zk.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                zk.destroyForcibly();
            }
        }
    }
}
