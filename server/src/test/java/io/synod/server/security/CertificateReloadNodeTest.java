package io.synod.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.synod.client.TlsFiles;
import io.synod.server.node.LocalCluster;
import io.synod.server.node.SynodNode;
import java.io.InputStream;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLSocket;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Certificates are reloaded on a running node when their files change (docs/security.md, "Reload"): a
 * renewed certificate from the same CA is what the next connection sees, without a restart; a replacement
 * that does not load is refused with one warning line and the certificate in use stays in use.
 */
class CertificateReloadNodeTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void aRenewedCertificateIsServedWithoutARestartAndAMalformedOneIsRefused() throws Exception {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger tlsLogger = (Logger) LoggerFactory.getLogger(ServerTls.class);
        tlsLogger.addAppender(log);
        try (TestingServer zk = new TestingServer(true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 1, 1, "reload",
                        Map.of())) {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "the group gets a leader");
            SynodNode node = cluster.node(0);
            TlsFiles served = cluster.config(0).tls().files();
            TlsFiles client = cluster.clientTls();
            BigInteger original = serialSeenBy(client, node.clientAddress());
            assertEquals(serialOf(served.cert()), original);

            // A renewed certificate for node 0 from the same CA (a new serial), written over the node's files.
            Path renewal = dir.resolve("renewal");
            Files.createDirectories(renewal);
            Path certs = LocalCa.certsDir(dir);
            Files.copy(certs.resolve(TlsFiles.CA_CERT), renewal.resolve(TlsFiles.CA_CERT));
            Files.copy(certs.resolve(CertificateAuthority.CA_KEY), renewal.resolve(CertificateAuthority.CA_KEY));
            TlsFiles renewed = CertificateAuthority.open(renewal).createNode(0, "reload", List.of("localhost", "127.0.0.1"));
            BigInteger renewedSerial = serialOf(renewed.cert());
            assertNotEquals(original, renewedSerial);
            Files.copy(renewed.key(), served.key(), StandardCopyOption.REPLACE_EXISTING);
            Files.copy(renewed.cert(), served.cert(), StandardCopyOption.REPLACE_EXISTING);
            assertEquals(renewedSerial, serialSeenBy(client, node.clientAddress()), "the next connection sees the new certificate");
            assertFalse(warnings(log).findAny().isPresent(), "a good replacement warns of nothing");

            // A malformed replacement: refused with one line, and the renewed certificate stays in use.
            Files.writeString(served.cert(), "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n",
                    StandardCharsets.US_ASCII);
            assertEquals(renewedSerial, serialSeenBy(client, node.clientAddress()), "the certificate in use stays in use");
            assertEquals(renewedSerial, serialSeenBy(client, node.clientAddress()), "and again, without another reload");
            List<ILoggingEvent> refused = warnings(log).toList();
            assertEquals(1, refused.size(), "one warning for one bad replacement, not one per connection: " + refused);
            String line = refused.get(0).getFormattedMessage();
            assertTrue(line.contains("do not load") && line.contains("keeping the previous certificates"), line);
            assertFalse(line.contains("\n"), "one line: " + line);
            assertNull(refused.get(0).getThrowableProxy(), "no stack trace");
        } finally {
            tlsLogger.detachAppender(log);
        }
    }

    private static java.util.stream.Stream<ILoggingEvent> warnings(ListAppender<ILoggingEvent> log) {
        return List.copyOf(log.list).stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN));
    }

    private static BigInteger serialSeenBy(TlsFiles client, InetSocketAddress address) throws Exception {
        try (SSLSocket s = TlsTestSupport.connect(client, address)) {
            return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    private static BigInteger serialOf(Path cert) throws Exception {
        try (InputStream in = Files.newInputStream(cert)) {
            return ((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in)).getSerialNumber();
        }
    }
}
