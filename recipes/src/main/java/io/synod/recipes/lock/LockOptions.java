package io.synod.recipes.lock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;

/**
 * Tuning shared by all four locks. Immutable; build with {@link #builder()}.
 *
 * <p><b>Suspended-lost bound.</b> When Curator reports the connection SUSPENDED, the client cannot know whether
 * its session is still alive. ZooKeeper's client notices a silent server after two thirds of the negotiated
 * session timeout, and the server may expire the session one session timeout after it last heard from the
 * client; so about one third of the session timeout after SUSPENDED is the latest moment at which the hold
 * is still known to be safe. The default bound is therefore the negotiated session timeout divided by three.
 * After the bound, every hold of the lock is declared lost ({@link LockLossReason#SESSION_SUSPENDED_TOO_LONG}).
 * A zero bound declares the hold lost the moment the connection is suspended (what Curator's documentation
 * recommends for strict exclusion).
 *
 * <p><b>Strategy.</b> {@link #strategy()}: how a waiter waits ({@link LockStrategy}); default {@link LockStrategy#watch()}.
 *
 * <p><b>Session loss while queued.</b> A queue-lock waiter whose session ends (expiry) or whose queue node
 * disappears loses its place. By default it joins the queue again in the new session, at the end (as Curator's
 * {@code InterProcessMutex} does), up to {@link #MAX_REQUEUES} times per acquisition; with
 * {@link Builder#requeueOnSessionLoss(boolean) requeueOnSessionLoss(false)} it fails fast with
 * {@link LockSessionLostException} instead. A test-and-set waiter holds no node, so it always goes on.
 */
public final class LockOptions {

    private static final LockOptions DEFAULTS = new Builder().build();

    /** Bound on re-queueing within one acquisition, so that a lock whose nodes keep vanishing ends the attempt. */
    public static final int MAX_REQUEUES = 100;

    private final Duration suspendedLostBound;
    private final LockStrategy strategy;
    private final boolean requeueOnSessionLoss;

    private LockOptions(Builder builder) {
        this.suspendedLostBound = builder.suspendedLostBound;
        this.strategy = builder.strategy;
        this.requeueOnSessionLoss = builder.requeueOnSessionLoss;
    }

    /** How waiters wait; default {@link LockStrategy#watch()}. */
    public LockStrategy strategy() {
        return strategy;
    }

    /** Whether a queued waiter that lost its place joins the queue again (default) or fails fast. */
    public boolean requeueOnSessionLoss() {
        return requeueOnSessionLoss;
    }

    /** A copy with another strategy. */
    public LockOptions withStrategy(LockStrategy other) {
        Builder builder = new Builder();
        builder.suspendedLostBound = suspendedLostBound;
        builder.requeueOnSessionLoss = requeueOnSessionLoss;
        return builder.strategy(other).build();
    }

    /** The default options: the suspended-lost bound is derived from the session timeout. */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The configured bound; empty means "derived from the session timeout" (see the class comment). */
    public Optional<Duration> suspendedLostBound() {
        return Optional.ofNullable(suspendedLostBound);
    }

    /** The bound in force for {@code client}: the configured one, or a third of its session timeout. */
    public Duration effectiveSuspendedLostBound(CuratorFramework client) {
        return effectiveSuspendedLostBound(Sessions.sessionTimeoutMillis(client));
    }

    /** The bound in force for a session timeout of {@code sessionTimeoutMillis}: the configured one, or a third of it. */
    public Duration effectiveSuspendedLostBound(long sessionTimeoutMillis) {
        if (suspendedLostBound != null) {
            return suspendedLostBound;
        }
        return Duration.ofMillis(sessionTimeoutMillis / 3);
    }

    @Override
    public String toString() {
        return "LockOptions{suspendedLostBound=" + (suspendedLostBound == null ? "sessionTimeout/3" : suspendedLostBound)
                + ", strategy=" + strategy + ", requeueOnSessionLoss=" + requeueOnSessionLoss + "}";
    }

    /** Builder of {@link LockOptions}. */
    public static final class Builder {
        private Duration suspendedLostBound;
        private LockStrategy strategy = LockStrategy.watch();
        private boolean requeueOnSessionLoss = true;

        private Builder() {}

        /** How waiters wait (see {@link LockStrategy}). */
        public Builder strategy(LockStrategy strategy) {
            this.strategy = Objects.requireNonNull(strategy, "strategy");
            return this;
        }

        /** {@code false}: a queued waiter whose session ends fails with {@link LockSessionLostException}. */
        public Builder requeueOnSessionLoss(boolean requeue) {
            this.requeueOnSessionLoss = requeue;
            return this;
        }

        /** How long the connection may stay SUSPENDED before a hold is declared lost; zero means at once. */
        public Builder suspendedLostBound(Duration bound) {
            Objects.requireNonNull(bound, "bound");
            if (bound.isNegative()) {
                throw new IllegalArgumentException("suspendedLostBound must not be negative: " + bound);
            }
            this.suspendedLostBound = bound;
            return this;
        }

        public LockOptions build() {
            return new LockOptions(this);
        }
    }
}
