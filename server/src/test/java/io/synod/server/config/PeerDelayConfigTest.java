package io.synod.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code peer.delay.ms} and its per-peer overrides {@code peer.delay.ms.<nodeId>} (the latency matrix's row of a node). */
class PeerDelayConfigTest {
    @TempDir
    Path dir;

    @Test
    void offByDefault() throws Exception {
        assertEquals(Map.of(), ServerConfigTest.with().peerDelayMillis());
    }

    @Test
    void oneDelayForEveryPeerAndOverridesPerPeer() throws Exception {
        // node.id=1 of nodes 0..2: the delay applies to 0 and 2, never to itself.
        assertEquals(Map.of(0, 25, 2, 25), ServerConfigTest.with("peer.delay.ms=25").peerDelayMillis());
        assertEquals(Map.of(0, 25, 2, 40), ServerConfigTest.with("peer.delay.ms=25", "peer.delay.ms.2=40").peerDelayMillis());
        assertEquals(Map.of(2, 40), ServerConfigTest.with("peer.delay.ms.2=40").peerDelayMillis());
        assertEquals(Map.of(2, 25), ServerConfigTest.with("peer.delay.ms=25", "peer.delay.ms.0=0").peerDelayMillis());
    }

    @Test
    void badValuesAreNamed() {
        assertMessage("peer.delay.ms: -1 is outside", "peer.delay.ms=-1");
        assertMessage("peer.delay.ms: 'x' is not an integer", "peer.delay.ms=x");
        assertMessage("peer.delay.ms: 60001 is outside", "peer.delay.ms=60001");
        assertMessage("peer.delay.ms.7: node 7 is not among nodes", "peer.delay.ms.7=5");
        assertMessage("peer.delay.ms.1: node 1 is this node", "peer.delay.ms.1=5");
        assertMessage("peer.delay.ms.a: 'a' is not a node id", "peer.delay.ms.a=5");
        assertMessage("peer.delay.ms.2: required", "peer.delay.ms.2=");
        assertMessage("unknown config key 'peer.delay'", "peer.delay=5");
    }

    @Test
    void printedConfigReadsBackTheSame() throws Exception {
        ServerConfig c = ServerConfigTest.with("peer.delay.ms=10", "peer.delay.ms.0=30");
        Path f = dir.resolve("d.properties");
        Files.writeString(f, c.toProperties());
        assertEquals(c, ServerConfig.load(f, java.util.List.of()));
    }

    private static void assertMessage(String expected, String setting) {
        ConfigException e = assertThrows(ConfigException.class, () -> ServerConfigTest.with(setting));
        assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
    }
}
