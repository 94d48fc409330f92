package io.synod.server.transport;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Warnings about refused or closed connections, at most one a second per instance: an attacker opening
 * thousands of connections must not also fill the disk with log lines. The next line logged says how
 * many were suppressed before it.
 */
public final class RateLimitedLog {
    private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Logger log;
    private final AtomicLong nextAllowed = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    public RateLimitedLog(Logger log) {
        this.log = log;
    }

    /** Logs {@code format} with {@code a} and {@code b} unless a line was logged in the last second. */
    public void warn(String format, Object a, Object b) {
        long now = System.nanoTime();
        long next = nextAllowed.get();
        if ((next != Long.MIN_VALUE && now - next < 0) || !nextAllowed.compareAndSet(next, now + INTERVAL_NANOS)) {
            suppressed.incrementAndGet();
            return;
        }
        long skipped = suppressed.getAndSet(0);
        if (skipped > 0) {
            log.warn(format + " ({} similar lines suppressed in the last second)", a, b, skipped);
        } else {
            log.warn(format, a, b);
        }
    }
}
