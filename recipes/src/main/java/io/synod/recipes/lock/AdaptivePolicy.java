package io.synod.recipes.lock;

import java.time.Duration;

/**
 * Which test-and-set strategy the {@link AdaptiveLock} uses for its next acquisition, from two measurements: the
 * client–server round-trip time and how often recent acquisitions found the lock taken. Pure and backend-neutral
 * (no clock, no I/O), so that the same policy can drive a lock on another store.
 *
 * <p>The rule, from the lock experiments (docs/lock-experiments.md): uncontended, every TAS strategy costs one create
 * (1 RTT), so the adaptive lock waits by watch, which puts no load on the server while waiting. Contended, a
 * hand-over by watch costs the notification (half an RTT) plus the create (1 RTT) after the release, while polling
 * creates lands one within about half an RTT of the release plus half the poll spacing; so once the RTT is large
 * enough for that round trip to matter ({@link #POLL_MIN_RTT}), the lock polls, with the spacing a fraction of the
 * RTT (bounded below by {@link LockStrategy#MIN_POLL_INTERVAL} and above by {@link #MAX_POLL_INTERVAL}) and at most
 * {@link #POLL_IN_FLIGHT} creates outstanding: about {@code POLL_IN_FLIGHT / RTT} requests per second per waiter.
 *
 * <p>The queue lock is not among the choices: a queue waiter and a test-and-set waiter do not see each other's
 * nodes, so contenders on one path must agree on the kind, and an adaptive choice made by each client alone could
 * not keep them apart. All test-and-set strategies share the one holder node, so mixing them is safe.
 */
public final class AdaptivePolicy {

    /**
     * Below this RTT a watch hand-over is already cheap, and polling would only add load (on a loaded machine, at
     * zero injected delay, polling was slower than watching in the experiments).
     */
    public static final Duration POLL_MIN_RTT = Duration.ofMillis(20);
    /** Above this share of contended acquisitions the lock counts as contended. */
    public static final double CONTENDED_SHARE = 0.25;
    /** Creates outstanding while polling. */
    public static final int POLL_IN_FLIGHT = 8;
    /** Longest spacing between polls. */
    public static final Duration MAX_POLL_INTERVAL = Duration.ofMillis(20);

    private AdaptivePolicy() {}

    /**
     * The strategy for the next acquisition.
     *
     * @param rttNanos        measured client–server RTT, or a negative value when nothing is measured yet
     * @param contendedShare  share (0..1) of recent acquisitions that found the lock taken
     */
    public static LockStrategy choose(long rttNanos, double contendedShare) {
        if (rttNanos < 0 || contendedShare < CONTENDED_SHARE || rttNanos < POLL_MIN_RTT.toNanos()) {
            return LockStrategy.watch();
        }
        long spacing = rttNanos / POLL_IN_FLIGHT;
        spacing = Math.max(LockStrategy.MIN_POLL_INTERVAL.toNanos(), Math.min(MAX_POLL_INTERVAL.toNanos(), spacing));
        // Whole milliseconds: a stable strategy value between acquisitions at a steady RTT.
        long millis = Math.max(1, Math.round(spacing / 1e6));
        return LockStrategy.poll(Duration.ofMillis(millis), POLL_IN_FLIGHT);
    }
}
