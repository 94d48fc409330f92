package io.synod.server.transport;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The node-wide budget of bytes held for frames whose length prefix has arrived but whose body has
 * not (docs/security.md, "Limits"): without it, many connections each stopping just short of the
 * largest frame hold that much buffer memory each, and together exhaust direct memory. A decoder
 * reserves a frame's whole length when it starts waiting for the body and releases it when the frame
 * is complete or its connection closes; a reservation that does not fit closes that connection.
 */
public final class FrameBudget {
    /** No limit: for tests of the framing alone. */
    public static final FrameBudget UNLIMITED = new FrameBudget(Long.MAX_VALUE);

    private final long limit;
    private final AtomicLong reserved = new AtomicLong();

    public FrameBudget(long limitBytes) {
        if (limitBytes <= 0) {
            throw new IllegalArgumentException("frame budget must be > 0, got " + limitBytes);
        }
        this.limit = limitBytes;
    }

    /** Reserves {@code bytes}; false (nothing reserved) when they do not fit. */
    public boolean tryReserve(long bytes) {
        while (true) {
            long now = reserved.get();
            if (now + bytes > limit) {
                return false;
            }
            if (reserved.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    public void release(long bytes) {
        reserved.addAndGet(-bytes);
    }

    /** Bytes reserved now, for metrics and tests. */
    public long reserved() {
        return reserved.get();
    }

    public long limit() {
        return limit;
    }
}
