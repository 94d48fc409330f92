package io.synod.bench.netdelay;

/** Shape of the random part of a {@link DelaySpec}'s delay. */
public enum JitterDistribution {
    /** No jitter. */
    NONE,
    /** Uniform in [delay - jitter, delay + jitter] (netem's default for "delay D J"). */
    UNIFORM,
    /** Normal with standard deviation = jitter, truncated at zero total delay. */
    NORMAL,
    /** Delay plus an exponential extra with mean = jitter (a long right tail). */
    EXPONENTIAL
}
