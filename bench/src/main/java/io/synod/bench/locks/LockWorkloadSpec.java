package io.synod.bench.locks;


import java.time.Duration;

/**
 * One lock run: which primitive, how many requests, the open-loop arrival and critical-section means,
 * the seed of both draws, and the time bounds.
 */
public record LockWorkloadSpec(LockPrimitive primitive, int requestCount, long meanInterArrivalNanos,
                               long meanServiceNanos, long seed, Duration acquireTimeout, Duration runTimeout) {

    public LockWorkloadSpec {
        if (requestCount < 1 || requestCount > 100_000) {
            throw new IllegalArgumentException("requestCount must be in [1, 100000], was " + requestCount);
        }
        if (meanInterArrivalNanos <= 0 || meanServiceNanos <= 0) {
            throw new IllegalArgumentException("means must be > 0");
        }
    }
}
