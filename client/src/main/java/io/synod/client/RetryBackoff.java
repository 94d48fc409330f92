package io.synod.client;

import java.util.concurrent.ThreadLocalRandom;

/** The {@link ClientEngine}'s retry delay: exponential from a base up to a cap, with jitter in its upper half. */
final class RetryBackoff {
    private final long baseNanos;
    private final long maxNanos;

    RetryBackoff(long baseNanos, long maxNanos) {
        this.baseNanos = baseNanos;
        this.maxNanos = maxNanos;
    }

    /** The delay before retry number {@code attempts} (1 for the first retry). */
    long delayNanos(int attempts) {
        long delay = Math.min(maxNanos, baseNanos << Math.min(attempts - 1, 16));
        return delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
    }
}
