package io.synod.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The TLS and limit keys: secure by default (neither TLS nor insecure=true is refused), read back as written. */
class TlsSettingsTest {
    @TempDir
    Path dir;

    static String refusal(String... keys) {
        List<String> all = new ArrayList<>(ServerConfigTest.BASE);
        all.addAll(List.of(keys));
        return assertThrows(ConfigException.class, () -> ServerConfig.load(null, all)).getMessage();
    }

    @Test
    void neitherTlsNorInsecureIsRefusedNamingBoth() {
        String m = refusal("insecure=false");
        assertEquals(TlsSettings.NEITHER, m);
        assertTrue(m.contains("tls.ca") && m.contains("insecure=true"), m);
    }

    @Test
    void halfATlsSettingOrBothChoicesAreRefused() {
        assertTrue(refusal("tls.ca=/a").startsWith("insecure=true but tls.* files are set"));
        assertTrue(refusal("insecure=false", "tls.ca=/a", "tls.cert=/b").contains("missing: tls.key"));
        assertTrue(refusal("insecure=false", "tls.ca=/a", "tls.cert=/b", "tls.key=/c", "tls.protocols=TLSv1.1")
                .startsWith("tls.protocols:"));
        assertTrue(refusal("insecure=maybe").startsWith("insecure: must be true or false"));
    }

    @Test
    void limitsAreCheckedAgainstThePeerFrame() {
        assertTrue(refusal("client.max.frame.bytes=" + (32 << 20)).startsWith("client.max.frame.bytes:"));
        assertTrue(refusal("frame.budget.bytes=65536").startsWith("frame.budget.bytes (65536) must be at least"));
    }

    @Test
    void tlsAndLimitsReadBackAsWritten() throws Exception {
        ServerConfig c = ServerConfigTest.with("insecure=false", "tls.ca=/x/ca.crt", "tls.cert=/x/n.crt", "tls.key=/x/n.key",
                "tls.protocols=TLSv1.3,TLSv1.2", "client.max.connections=9", "metrics.address=0.0.0.0",
                "zookeeper.auth.secret.file=/x/zk.secret");
        assertEquals(List.of("TLSv1.3", "TLSv1.2"), c.tls().files().protocols());
        assertEquals(9, c.limits().clientMaxConnections());
        Path f = dir.resolve("t.properties");
        Files.writeString(f, c.toProperties());
        assertEquals(c, ServerConfig.load(f, List.of()));
        assertEquals("127.0.0.1", ServerConfigTest.with().limits().metricsAddress(), "metrics stay local by default");
    }
}
