package io.synod.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.coordination.ZooKeeperAccess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The zookeeper.auth.* and zookeeper.ssl.* keys: a secret file unless insecure=true, TLS keys only with TLS on. */
class ZooKeeperSettingsTest {
    @TempDir
    Path dir;

    private static final List<String> TLS = List.of("insecure=false", "tls.ca=/x/ca.crt", "tls.cert=/x/n.crt",
            "tls.key=/x/n.key");

    @Test
    void aSecureServerWithoutASecretFileIsRefusedNamingBothChoices() {
        String m = TlsSettingsTest.refusal(TLS.toArray(String[]::new));
        assertEquals(ZooKeeperSettings.NO_SECRET, m);
        assertTrue(m.contains("zookeeper.auth.secret.file") && m.contains("insecure=true") && !m.contains("\n"), m);
    }

    @Test
    void insecureAloneLeavesTheZnodesOpenAndTheKeysReadBack() throws Exception {
        ServerConfig open = ServerConfigTest.with();
        assertNull(open.zookeeper().secretFile());
        assertFalse(open.zookeeper().access().authenticated());
        ServerConfig c = ServerConfigTest.with("zookeeper.auth.user=ops", "zookeeper.auth.secret.file=/etc/synod/zk.secret",
                "zookeeper.client.secure=true", "zookeeper.ssl.trustStore.location=/etc/synod/zk-ca.pem",
                "zookeeper.ssl.trustStore.type=PEM");
        assertEquals(new ZooKeeperSettings("ops", Path.of("/etc/synod/zk.secret"), true,
                Map.of("zookeeper.ssl.trustStore.location", "/etc/synod/zk-ca.pem", "zookeeper.ssl.trustStore.type", "PEM")),
                c.zookeeper());
        Path f = dir.resolve("s.properties");
        Files.writeString(f, c.toProperties());
        assertEquals(c, ServerConfig.load(f, List.of()));
    }

    @Test
    void badValuesAreOneLineNamingTheKey() {
        assertTrue(TlsSettingsTest.refusal("zookeeper.auth.user=a:b").startsWith("zookeeper.auth.user: must be 1..64"));
        assertTrue(TlsSettingsTest.refusal("zookeeper.client.secure=yes").startsWith("zookeeper.client.secure: must be true"));
        assertEquals("zookeeper.ssl.keyStore.location: set but zookeeper.client.secure=false",
                TlsSettingsTest.refusal("zookeeper.ssl.keyStore.location=/k.pem"));
        assertTrue(TlsSettingsTest.refusal("zookeeper.ssl.keyStore.password=x").startsWith("unknown config key "
                + "'zookeeper.ssl.keyStore.password'"), "passwords only through passwordPath files");
    }

    @Test
    void accessReadsTheSecretAndPassesTlsKeysToThisSessionOnly() throws Exception {
        Path secret = ZooKeeperSettings.ensureLocalSecret(dir);
        assertEquals(PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(secret));
        assertEquals(secret, ZooKeeperSettings.ensureLocalSecret(dir), "created once");
        String text = Files.readString(secret).trim();
        assertEquals(44, text.length(), "32 random bytes in base64");
        Path trust = Files.writeString(dir.resolve("ca.pem"), "x");
        ServerConfig c = ServerConfigTest.with(ZooKeeperSettings.localKeys(dir).trim(), "zookeeper.client.secure=true",
                "zookeeper.ssl.trustStore.location=" + trust, "zookeeper.ssl.trustStore.type=PEM");
        ZooKeeperAccess access = c.zookeeper().access();
        assertEquals(ZooKeeperAccess.digest("synod", text).withClientProperties(Map.of("zookeeper.client.secure", "true",
                "zookeeper.clientCnxnSocket", ZooKeeperSettings.NETTY_SOCKET, "zookeeper.ssl.trustStore.location",
                trust.toString(), "zookeeper.ssl.trustStore.type", "PEM")), access);
        assertNull(System.getProperty("zookeeper.client.secure"), "no JVM system property is set");
        ServerConfig missing = ServerConfigTest.with("zookeeper.client.secure=true",
                "zookeeper.ssl.keyStore.location=" + dir.resolve("absent.pem"));
        assertEquals("zookeeper.ssl.keyStore.location: " + dir.resolve("absent.pem") + " is not a readable file",
                assertThrows(IllegalArgumentException.class, () -> missing.zookeeper().access()).getMessage());
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-r-----"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> c.zookeeper().access()).getMessage()
                .endsWith("is readable by others (mode 0640): run chmod 600 " + secret));
    }
}
