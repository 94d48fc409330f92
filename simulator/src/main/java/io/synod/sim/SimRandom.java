package io.synod.sim;

import io.synod.core.util.Check;

/**
 * Seeded random streams and the distributions the simulator draws from. Each concern (network,
 * disk, faults, clients, oracle, clocks) gets its own stream derived from the seed, so adding a draw
 * to one concern does not reshuffle every other one.
 *
 * <p>The generator is SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): 64 bits of state, a plain field update per draw (java.util.Random pays
 * an atomic compare-and-set per draw, for thread safety a one-thread simulator does not need), and
 * an output defined here, so a seed replays the same on every JDK.
 */
final class SimRandom {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private long state;
    private double spareGaussian;
    private boolean hasSpareGaussian;

    private SimRandom(long state) {
        this.state = state;
    }

    /** The stream named {@code name} of {@code seed}. */
    static SimRandom stream(long seed, String name) {
        return new SimRandom(splitMix64(seed * GOLDEN_GAMMA + name.hashCode()));
    }

    long nextLong() {
        long out = splitMix64(state);
        state += GOLDEN_GAMMA;
        return out;
    }

    /** Uniform in [0, bound), without modulo bias (Lemire, "Fast random integer generation in an interval", 2019). */
    private int nextIntBelow(int bound) {
        Check.argument(bound > 0, "bound must be positive, got %d", bound);
        long product = (nextLong() >>> 32) * bound;
        long low = product & 0xFFFFFFFFL;
        if (low < bound) {
            long threshold = (0x1_0000_0000L - bound) % bound;
            while (low < threshold) {
                product = (nextLong() >>> 32) * bound;
                low = product & 0xFFFFFFFFL;
            }
        }
        return (int) (product >>> 32);
    }

    /** Standard normal, by Marsaglia's polar method (one spare kept for the next call). */
    private double nextGaussian() {
        if (hasSpareGaussian) {
            hasSpareGaussian = false;
            return spareGaussian;
        }
        double u;
        double v;
        double s;
        do {
            u = 2 * nextDouble() - 1;
            v = 2 * nextDouble() - 1;
            s = u * u + v * v;
        } while (s >= 1 || s == 0);
        double scale = Math.sqrt(-2 * Math.log(s) / s);
        spareGaussian = v * scale;
        hasSpareGaussian = true;
        return u * scale;
    }

    /** SplitMix64's finalizer: spreads nearby seeds far apart. */
    static long splitMix64(long value) {
        long z = value + GOLDEN_GAMMA;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    int nextInt(int bound) {
        return nextIntBelow(bound);
    }

    boolean chance(double probability) {
        return nextDouble() < probability;
    }

    /** Uniform in [0, 1), from the top 53 bits. */
    double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /** Uniform in [min, max]. */
    long uniform(long min, long max) {
        return min + (long) (nextDouble() * (max - min + 1));
    }

    /** Exponential with the given mean (Poisson arrivals), capped at 50 means to keep the tail bounded. */
    long exponential(long meanNanos) {
        double sample = -Math.log(1.0 - nextDouble()) * meanNanos;
        return Math.max(1, (long) Math.min(sample, 50.0 * meanNanos));
    }

    /** Lognormal around {@code medianNanos}, clamped to [median/10, median*50]. */
    long lognormal(long medianNanos, double sigma) {
        double sample = medianNanos * Math.exp(sigma * nextGaussian());
        return (long) Math.max(medianNanos / 10.0, Math.min(sample, medianNanos * 50.0));
    }

    /** A random node other than {@code excluded} (any node when {@code excluded} is -1). */
    int otherNode(int nodes, int excluded) {
        if (excluded < 0) {
            return nextIntBelow(nodes);
        }
        int pick = nextIntBelow(nodes - 1);
        return pick >= excluded ? pick + 1 : pick;
    }
}
