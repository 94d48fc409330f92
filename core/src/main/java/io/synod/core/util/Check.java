package io.synod.core.util;

/**
 * Always-on invariant checks (TigerBeetle style): unlike Java {@code assert}, they run in
 * production too, because a replica that continues past a broken invariant can lose data.
 */
public final class Check {
    private Check() {}

    /** Fails with {@link IllegalStateException} when an internal invariant does not hold. */
    public static void state(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException("invariant violated: " + message);
        }
    }

    /** Fails with {@link IllegalStateException}; the message is built only on failure. */
    public static void state(boolean condition, String format, Object... args) {
        if (!condition) {
            throw new IllegalStateException("invariant violated: " + String.format(format, args));
        }
    }

    /** Fails with {@link IllegalArgumentException} when a caller passes bad input. */
    public static void argument(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    /** Fails with {@link IllegalArgumentException}; the message is built only on failure. */
    public static void argument(boolean condition, String format, Object... args) {
        if (!condition) {
            throw new IllegalArgumentException(String.format(format, args));
        }
    }
}
