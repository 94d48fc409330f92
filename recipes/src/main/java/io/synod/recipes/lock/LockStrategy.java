package io.synod.recipes.lock;

import java.time.Duration;
import java.util.Objects;

/**
 * How an acquisition waits while the lock is taken: the protocol, independent of the API style (blocking
 * {@link SyncLock} or {@code CompletionStage} {@link AsyncLock}). Every strategy keeps the same guarantees:
 * fencing token, {@link LockHandle#lost()}, protected names, czxid-checked deletes, and bounded in-flight
 * requests and request rate.
 *
 * <ul>
 *   <li>{@link #watch()}: after a negative reply, set a watch (TAS: on the holder node; queue: on the predecessor)
 *       and try again when it fires. No load while waiting; a hand-over costs the notification (half an RTT) plus
 *       one or two RTTs.</li>
 *   <li>{@link #retry(Duration)}: the seed paper's synchronous TAS ("The Cost of Consensus", §III): send the
 *       request again as soon as the negative reply arrives (after an optional back-off); exactly one request in
 *       flight. For the queue lock the repeated request is the children listing.</li>
 *   <li>{@link #poll(Duration, int)}: the paper's asynchronous primitives (§III–IV): send a request every
 *       {@code interval}, with at most {@code maxInFlight} outstanding, independently of the replies. The TAS lock
 *       polls with creates; the queue lock creates its node in parallel with polling the children listing and holds
 *       the lock when its create has returned and the newest listing (issued after the create) has it first.</li>
 * </ul>
 *
 * <p>Cost in round trips (RTT = client–server round trip), server load per waiter, and fairness are tabulated in
 * {@code docs/recipes.md}.
 */
public final class LockStrategy {

    /** The protocol family. */
    public enum Kind { WATCH, RETRY, POLL }

    /** Shortest poll interval accepted: bounds the request rate of one waiter to 1000 per second. */
    public static final Duration MIN_POLL_INTERVAL = Duration.ofMillis(1);
    /** Most requests one waiter may have outstanding. */
    public static final int MAX_IN_FLIGHT = 64;

    private static final LockStrategy WATCH = new LockStrategy(Kind.WATCH, Duration.ZERO, 1);

    private final Kind kind;
    private final Duration interval;
    private final int maxInFlight;

    private LockStrategy(Kind kind, Duration interval, int maxInFlight) {
        this.kind = kind;
        this.interval = interval;
        this.maxInFlight = maxInFlight;
    }

    /** Wait on a watch (the default). */
    public static LockStrategy watch() {
        return WATCH;
    }

    /** Re-send directly after each negative reply; one request in flight. */
    public static LockStrategy retry() {
        return retry(Duration.ZERO);
    }

    /** Re-send {@code backoff} after each negative reply; one request in flight. */
    public static LockStrategy retry(Duration backoff) {
        Objects.requireNonNull(backoff, "backoff");
        if (backoff.isNegative()) {
            throw new IllegalArgumentException("retry back-off must not be negative: " + backoff);
        }
        return new LockStrategy(Kind.RETRY, backoff, 1);
    }

    /** Send a request every {@code interval}, at most {@code maxInFlight} outstanding. */
    public static LockStrategy poll(Duration interval, int maxInFlight) {
        Objects.requireNonNull(interval, "interval");
        if (interval.compareTo(MIN_POLL_INTERVAL) < 0) {
            throw new IllegalArgumentException("poll interval must be at least " + MIN_POLL_INTERVAL.toMillis() + " ms: " + interval);
        }
        if (maxInFlight < 1 || maxInFlight > MAX_IN_FLIGHT) {
            throw new IllegalArgumentException("maxInFlight must be in [1, " + MAX_IN_FLIGHT + "]: " + maxInFlight);
        }
        return new LockStrategy(Kind.POLL, interval, maxInFlight);
    }

    public Kind kind() {
        return kind;
    }

    /** RETRY: the back-off after a negative reply; POLL: the interval between requests; WATCH: zero. */
    public Duration interval() {
        return interval;
    }

    /** The most requests outstanding at once (1 for WATCH and RETRY). */
    public int maxInFlight() {
        return maxInFlight;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LockStrategy that && kind == that.kind && interval.equals(that.interval) && maxInFlight == that.maxInFlight;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, interval, maxInFlight);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case WATCH -> "WATCH";
            case RETRY -> interval.isZero() ? "RETRY" : "RETRY(backoff " + interval.toMillis() + " ms)";
            case POLL -> "POLL(" + interval.toMillis() + " ms, " + maxInFlight + " in flight)";
        };
    }
}
