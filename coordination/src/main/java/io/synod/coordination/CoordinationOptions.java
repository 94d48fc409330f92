package io.synod.coordination;

import java.time.Duration;

/**
 * Tuning of the Curator implementations.
 *
 * @param sessionTimeout         ZooKeeper session timeout; a crashed node's ephemeral znodes (member,
 *                               election) vanish this long after it stops heartbeating
 * @param connectionTimeout      how long a blocking call waits for a connection
 * @param suspendedStepDown      a leader whose connection stays SUSPENDED this long steps down
 *                               (LeaderIs(-1)) even though its session may still be alive; must be
 *                               below {@code sessionTimeout} so that it steps down before ZooKeeper
 *                               can expire the session and elect someone else. Zero = at once.
 * @param progressPublish        coalescing interval of {@link Membership#updateProgress}
 * @param upToDateDeferral       how long a newly elected node that sees a live, more up-to-date
 *                               participant waits before relinquishing to it; zero disables the
 *                               preference
 * @param maxConsecutiveDeferrals after this many deferrals in a row a node takes leadership anyway,
 *                               so a stale progress report cannot keep a group leaderless
 */
public record CoordinationOptions(Duration sessionTimeout, Duration connectionTimeout,
                                  Duration suspendedStepDown, Duration progressPublish,
                                  Duration upToDateDeferral, int maxConsecutiveDeferrals) {

    public CoordinationOptions {
        positive(sessionTimeout, "session timeout");
        positive(connectionTimeout, "connection timeout");
        nonNegative(suspendedStepDown, "suspended step-down");
        positive(progressPublish, "progress publish interval");
        nonNegative(upToDateDeferral, "up-to-date deferral");
        if (suspendedStepDown.compareTo(sessionTimeout) >= 0) {
            throw new IllegalArgumentException("suspended step-down (" + suspendedStepDown.toMillis()
                    + " ms) must be below the session timeout (" + sessionTimeout.toMillis() + " ms)");
        }
        if (maxConsecutiveDeferrals < 0) {
            throw new IllegalArgumentException("max consecutive deferrals must be >= 0, got " + maxConsecutiveDeferrals);
        }
    }

    /** Session 10 s, connect 5 s, step down after 3 s SUSPENDED, publish every 200 ms, defer 200 ms up to 2 times. */
    public static CoordinationOptions defaults() {
        return new CoordinationOptions(Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(3),
                Duration.ofMillis(200), Duration.ofMillis(200), 2);
    }

    /**
     * Same options with another session timeout; the step-down bound becomes a third of it and the
     * connection timeout is capped at it.
     */
    public CoordinationOptions withSessionTimeout(Duration timeout) {
        Duration connect = connectionTimeout.compareTo(timeout) > 0 ? timeout : connectionTimeout;
        return new CoordinationOptions(timeout, connect, timeout.dividedBy(3), progressPublish,
                upToDateDeferral, maxConsecutiveDeferrals);
    }

    public CoordinationOptions withSuspendedStepDown(Duration bound) {
        return new CoordinationOptions(sessionTimeout, connectionTimeout, bound, progressPublish,
                upToDateDeferral, maxConsecutiveDeferrals);
    }

    public CoordinationOptions withUpToDateDeferral(Duration deferral, int maxDeferrals) {
        return new CoordinationOptions(sessionTimeout, connectionTimeout, suspendedStepDown, progressPublish,
                deferral, maxDeferrals);
    }

    public CoordinationOptions withProgressPublish(Duration interval) {
        return new CoordinationOptions(sessionTimeout, connectionTimeout, suspendedStepDown, interval,
                upToDateDeferral, maxConsecutiveDeferrals);
    }

    private static void positive(Duration d, String name) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be > 0, got " + d);
        }
    }

    private static void nonNegative(Duration d, String name) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException(name + " must be >= 0, got " + d);
        }
    }
}
