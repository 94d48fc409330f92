package io.synod.core.sim;

import java.util.Random;

/**
 * Seeded random streams and the distributions the simulator draws from. Each concern (network,
 * disk, faults, clients, oracle, clocks) gets its own stream derived from the seed, so adding a draw
 * to one concern does not reshuffle every other one.
 */
final class SimRandom {
    private final Random random;

    private SimRandom(Random random) {
        this.random = random;
    }

    /** The stream named {@code name} of {@code seed}. */
    static SimRandom stream(long seed, String name) {
        return new SimRandom(new Random(splitMix64(seed * 0x9E3779B97F4A7C15L + name.hashCode())));
    }

    /** SplitMix64's finalizer: spreads nearby seeds far apart. */
    static long splitMix64(long value) {
        long z = value + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    int nextInt(int bound) {
        return random.nextInt(bound);
    }

    boolean chance(double probability) {
        return random.nextDouble() < probability;
    }

    double nextDouble() {
        return random.nextDouble();
    }

    /** Uniform in [min, max]. */
    long uniform(long min, long max) {
        return min + (long) (random.nextDouble() * (max - min + 1));
    }

    /** Exponential with the given mean (Poisson arrivals), capped at 50 means to keep the tail bounded. */
    long exponential(long meanNanos) {
        double sample = -Math.log(1.0 - random.nextDouble()) * meanNanos;
        return Math.max(1, (long) Math.min(sample, 50.0 * meanNanos));
    }

    /** Lognormal around {@code medianNanos}, clamped to [median/10, median*50]. */
    long lognormal(long medianNanos, double sigma) {
        double sample = medianNanos * Math.exp(sigma * random.nextGaussian());
        return (long) Math.max(medianNanos / 10.0, Math.min(sample, medianNanos * 50.0));
    }

    /** A random node other than {@code excluded} (any node when {@code excluded} is -1). */
    int otherNode(int nodes, int excluded) {
        if (excluded < 0) {
            return random.nextInt(nodes);
        }
        int pick = random.nextInt(nodes - 1);
        return pick >= excluded ? pick + 1 : pick;
    }
}
