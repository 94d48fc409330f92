package io.synod.bench.netdelay;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DelaySpecTest {

    private static final long MS = 1_000_000L;

    @Test
    void jitterStaysWithinItsDistributionsSupportAndNeverGoesNegative() {
        SplittableRandom random = new SplittableRandom(1);
        DelaySpec uniform = DelaySpec.fixed(Duration.ofMillis(10)).withJitter(4 * MS, JitterDistribution.UNIFORM);
        DelaySpec exponential = DelaySpec.fixed(Duration.ofMillis(10)).withJitter(4 * MS, JitterDistribution.EXPONENTIAL);
        DelaySpec wideNormal = DelaySpec.fixed(Duration.ofMillis(1)).withJitter(50 * MS, JitterDistribution.NORMAL);
        double uniformSum = 0;
        for (int i = 0; i < 10_000; i++) {
            long u = uniform.sampleDelayNanos(random);
            assertTrue(u >= 6 * MS && u <= 14 * MS, "uniform sample " + u);
            uniformSum += u;
            assertTrue(exponential.sampleDelayNanos(random) >= 10 * MS);
            assertTrue(wideNormal.sampleDelayNanos(random) >= 0);
        }
        assertEquals(10.0, uniformSum / 10_000 / MS, 0.2);
        assertEquals(10 * MS, DelaySpec.fixed(Duration.ofMillis(10)).sampleDelayNanos(random));
    }

    @Test
    void halfOfRttSplitsARoundTripAndBandwidthGivesSerializationTime() {
        assertEquals(50 * MS, DelaySpec.halfOfRtt(Duration.ofMillis(100)).delayNanos());
        assertEquals(1_000_000_000L, DelaySpec.NONE.withBandwidth(1000).serializationNanos(1000));
        assertEquals(0, DelaySpec.NONE.serializationNanos(1 << 20));
        assertThrows(IllegalArgumentException.class, () -> new DelaySpec(-1, 0, JitterDistribution.NONE, 0));
    }
}
