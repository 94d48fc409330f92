package io.synod.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/** The test clock keys (the clock fault of synod nemesis, docs/nemesis.md): refused unless the test flag is set. */
class TestClockTest {

    @Test
    void theClockKeysAreRefusedWithoutTheTestFlag() throws Exception {
        ConfigException e = assertThrows(ConfigException.class, () -> ServerConfigTest.with("test.clock.drift.ppm=5000"));
        assertEquals("test.clock.drift.ppm: a test configuration, accepted only with test.faults.enabled=true", e.getMessage());
        ConfigException skew = assertThrows(ConfigException.class, () -> ServerConfigTest.with("test.clock.skew.ms=10"));
        assertTrue(skew.getMessage().startsWith("test.clock.skew.ms: a test configuration"), skew.getMessage());
        ConfigException range = assertThrows(ConfigException.class,
                () -> ServerConfigTest.with("test.faults.enabled=true", "test.clock.drift.ppm=-950000"));
        assertTrue(range.getMessage().contains("test.clock.drift.ppm"), range.getMessage());
        assertFalse(ServerConfigTest.with().testClock().active());
    }

    @Test
    void withTheFlagTheClockIsSkewedAndDriftsAndSurvivesARoundTrip() throws Exception {
        ServerConfig c = ServerConfigTest.with("test.faults.enabled=true", "test.clock.skew.ms=250", "test.clock.drift.ppm=-500000");
        TestClock clock = c.testClock();
        assertEquals(new TestClock(250, -500_000), clock);
        assertEquals(c, ServerConfig.load(null, c.toProperties().lines().filter(l -> !l.isBlank()).toList()));
        // Skew alone: the reading is 250 ms ahead of the real clock, before and after time passes.
        LongSupplier ahead250 = new TestClock(250, 0).source();
        long ahead = ahead250.getAsLong() - System.nanoTime();
        assertTrue(ahead > 240_000_000L && ahead <= 250_000_000L, "skew " + ahead);
        // Half speed: over a real interval the clock advances half as far (bounded wait for real time to pass).
        LongSupplier source = clock.source();
        long skewed0 = source.getAsLong();
        long real0 = System.nanoTime();
        long deadline = real0 + 5_000_000_000L;
        while (System.nanoTime() - real0 < 200_000_000L && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        long real = System.nanoTime() - real0;
        long skewed = source.getAsLong() - skewed0;
        assertTrue(skewed < real * 0.6 && skewed > real * 0.4, "real " + real + " ns, clock " + skewed + " ns");
    }
}
