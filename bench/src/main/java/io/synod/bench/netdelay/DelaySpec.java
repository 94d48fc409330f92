package io.synod.bench.netdelay;

import java.time.Duration;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * What one direction of a proxied link does to the bytes passing through it: a fixed one-way
 * delay, optional jitter drawn from a distribution, and an optional bandwidth cap. The same knobs
 * as {@code tc qdisc ... netem delay D J distribution X rate R}, except that jitter never reorders
 * bytes (TCP would not let netem reorder a single stream's bytes either; it would only delay them).
 *
 * @param delayNanos           fixed one-way delay added to every chunk
 * @param jitterNanos          spread of the random extra delay (0 = none); see {@link JitterDistribution}
 * @param jitterDistribution   shape of the random extra delay
 * @param bandwidthBytesPerSecond serialization rate of the link; 0 means unlimited
 */
public record DelaySpec(long delayNanos, long jitterNanos, JitterDistribution jitterDistribution,
                        long bandwidthBytesPerSecond) {

    public static final DelaySpec NONE = new DelaySpec(0, 0, JitterDistribution.NONE, 0);

    public DelaySpec {
        Objects.requireNonNull(jitterDistribution, "jitterDistribution");
        if (delayNanos < 0 || jitterNanos < 0 || bandwidthBytesPerSecond < 0) {
            throw new IllegalArgumentException("delay, jitter and bandwidth must be >= 0: delayNanos=" + delayNanos
                    + " jitterNanos=" + jitterNanos + " bandwidthBytesPerSecond=" + bandwidthBytesPerSecond);
        }
    }

    /** A fixed one-way delay, no jitter, no bandwidth cap. */
    public static DelaySpec fixed(Duration oneWayDelay) {
        return new DelaySpec(oneWayDelay.toNanos(), 0, JitterDistribution.NONE, 0);
    }

    /** Half of a round-trip time in each direction: the way netem scripts split an RTT. */
    public static DelaySpec halfOfRtt(Duration rtt) {
        return new DelaySpec(rtt.toNanos() / 2, 0, JitterDistribution.NONE, 0);
    }

    public DelaySpec withJitter(long jitterNanos, JitterDistribution distribution) {
        return new DelaySpec(delayNanos, jitterNanos, distribution, bandwidthBytesPerSecond);
    }

    public DelaySpec withBandwidth(long bytesPerSecond) {
        return new DelaySpec(delayNanos, jitterNanos, jitterDistribution, bytesPerSecond);
    }

    /** One sample of the total propagation delay (fixed part plus jitter), never negative. */
    public long sampleDelayNanos(SplittableRandom random) {
        if (jitterNanos == 0 || jitterDistribution == JitterDistribution.NONE) {
            return delayNanos;
        }
        double extra = switch (jitterDistribution) {
            case NONE -> 0.0;
            // netem's "delay D J" without a table: uniform in [D - J, D + J].
            case UNIFORM -> (random.nextDouble() * 2.0 - 1.0) * jitterNanos;
            // netem's "distribution normal": J is the standard deviation.
            case NORMAL -> gaussian(random) * jitterNanos;
            // Heavy right tail, never below D: J is the mean of the extra delay.
            case EXPONENTIAL -> -Math.log(1.0 - random.nextDouble()) * jitterNanos;
        };
        return Math.max(0L, delayNanos + Math.round(extra));
    }

    /** Nanoseconds the link needs to put {@code bytes} on the wire at the capped rate (0 if uncapped). */
    public long serializationNanos(long bytes) {
        if (bandwidthBytesPerSecond == 0) {
            return 0;
        }
        return (long) Math.ceil(bytes * 1_000_000_000.0 / bandwidthBytesPerSecond);
    }

    private static double gaussian(SplittableRandom random) {
        // Box-Muller; SplittableRandom has no nextGaussian on Java 17.
        double u1 = 1.0 - random.nextDouble();
        double u2 = random.nextDouble();
        return Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2.0 * Math.PI * u2);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        text.append(String.format("delay %.3fms", delayNanos / 1e6));
        if (jitterNanos > 0 && jitterDistribution != JitterDistribution.NONE) {
            text.append(String.format(" jitter %.3fms %s", jitterNanos / 1e6, jitterDistribution.name().toLowerCase()));
        }
        if (bandwidthBytesPerSecond > 0) {
            text.append(" rate ").append(bandwidthBytesPerSecond).append("B/s");
        }
        return text.toString();
    }
}
