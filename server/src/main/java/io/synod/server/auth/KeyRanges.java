package io.synod.server.auth;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Key prefixes as ranges of the key space, in the order the state machine sorts keys (UTF-8 bytes compared
 * unsigned; {@code KvCommand.Scan}). A prefix {@code p} is the range {@code [p, end(p))}, where {@code end(p)} is
 * the first byte string after every key starting with {@code p} (empty: to the end of the key space).
 */
public final class KeyRanges {
    private KeyRanges() {}

    /** Whether {@code key} starts with {@code prefix} (byte-wise, which for UTF-8 equals char-wise). */
    public static boolean hasPrefix(String key, String prefix) {
        return key.startsWith(prefix);
    }

    /**
     * Whether every key of {@code [start, end)} ({@code end} empty: unbounded) starts with {@code prefix}: the
     * range lies inside the prefix's range.
     */
    public static boolean rangeWithin(String start, String end, String prefix) {
        byte[] p = utf8(prefix);
        byte[] s = utf8(start);
        if (Arrays.compareUnsigned(s, p) < 0) {
            return isEmpty(s, utf8(end)); // Keys below the prefix are in the range unless it holds none.
        }
        byte[] prefixEnd = end(p);
        byte[] e = utf8(end);
        if (isEmpty(s, e)) {
            return true;
        }
        if (!startsWith(s, p)) {
            return false;
        }
        if (prefixEnd == null) {
            return true; // The prefix reaches the end of the key space.
        }
        return e.length > 0 && Arrays.compareUnsigned(e, prefixEnd) <= 0;
    }

    /** Whether {@code [start, end)} holds a key starting with {@code prefix}. */
    public static boolean intersects(String start, String end, String prefix) {
        byte[] s = utf8(start);
        byte[] e = utf8(end);
        byte[] p = utf8(prefix);
        if (isEmpty(s, e)) {
            return false;
        }
        byte[] prefixEnd = end(p);
        boolean startBelowPrefixEnd = prefixEnd == null || Arrays.compareUnsigned(s, prefixEnd) < 0;
        boolean endAbovePrefix = e.length == 0 || Arrays.compareUnsigned(e, p) > 0;
        return startBelowPrefixEnd && endAbovePrefix;
    }

    /** The first byte string after every string starting with {@code prefix}, or null if there is none (all 0xff). */
    static byte[] end(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if ((prefix[i] & 0xff) != 0xff) {
                byte[] out = Arrays.copyOf(prefix, i + 1);
                out[i]++;
                return out;
            }
        }
        return null;
    }

    /** Whether {@code [s, e)} holds no key at all ({@code e} empty: unbounded). */
    private static boolean isEmpty(byte[] s, byte[] e) {
        return e.length > 0 && Arrays.compareUnsigned(s, e) >= 0;
    }

    private static boolean startsWith(byte[] s, byte[] p) {
        return s.length >= p.length && Arrays.equals(s, 0, p.length, p, 0, p.length);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
