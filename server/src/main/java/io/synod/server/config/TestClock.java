package io.synod.server.config;

import java.util.Map;
import java.util.Properties;
import java.util.function.LongSupplier;

/**
 * A test configuration (fault injection, docs/nemesis.md): the monotonic clock a node's group runners
 * read, shifted by {@code skewMillis} and running {@code driftPpm} parts per million fast (negative:
 * slow) from the moment the node starts. Read only when {@code test.faults.enabled=true}: without that
 * flag a nonzero {@code test.clock.*} key is refused, so no production configuration can carry one.
 * Timer leases are safe only while every node's rate error stays within {@code lease.drift.ppm}.
 */
public record TestClock(long skewMillis, long driftPpm) {
    public static final TestClock REAL = new TestClock(0, 0);

    /** Largest skew: one hour. Drift: the clock runs at 0.1..2 times real speed. */
    static final int MAX_SKEW_MILLIS = 3_600_000;
    static final int MIN_DRIFT_PPM = -900_000;
    static final int MAX_DRIFT_PPM = 1_000_000;

    static void addKeys(Map<String, String[]> k) {
        k.put("test.faults.enabled", new String[] {"false", "test only: allows the test.clock.* keys (fault injection)"});
        k.put("test.clock.skew.ms", new String[] {"0", "test only (needs test.faults.enabled=true): offset added to the "
                + "monotonic clock the group runners read"});
        k.put("test.clock.drift.ppm", new String[] {"0", "test only (needs test.faults.enabled=true): that clock runs this "
                + "many parts per million fast (negative: slow), " + MIN_DRIFT_PPM + ".." + MAX_DRIFT_PPM});
    }

    static TestClock parse(Properties p) throws ConfigException {
        String flag = ServerConfig.str(p, "test.faults.enabled");
        if (!flag.equals("true") && !flag.equals("false")) {
            throw new ConfigException("test.faults.enabled: must be true or false, got '" + flag + "'");
        }
        long skew = ServerConfig.integer(p, "test.clock.skew.ms", -MAX_SKEW_MILLIS, MAX_SKEW_MILLIS);
        long drift = ServerConfig.integer(p, "test.clock.drift.ppm", MIN_DRIFT_PPM, MAX_DRIFT_PPM);
        if (!flag.equals("true") && (skew != 0 || drift != 0)) {
            throw new ConfigException("test.clock." + (skew != 0 ? "skew.ms" : "drift.ppm")
                    + ": a test configuration, accepted only with test.faults.enabled=true");
        }
        return new TestClock(skew, drift);
    }

    public boolean active() {
        return skewMillis != 0 || driftPpm != 0;
    }

    /**
     * The clock: {@link System#nanoTime()} itself when inactive; otherwise a reading that starts
     * {@code skewMillis} off at this call and gains {@code driftPpm} per million nanoseconds since.
     * Monotonic, since the rate stays positive.
     */
    public LongSupplier source() {
        if (!active()) {
            return System::nanoTime;
        }
        long origin = System.nanoTime();
        long skewNanos = skewMillis * 1_000_000L;
        double rate = driftPpm / 1e6;
        return () -> {
            long elapsed = System.nanoTime() - origin;
            return origin + skewNanos + elapsed + (long) (elapsed * rate);
        };
    }

    String toProperties() {
        return active() ? "test.faults.enabled=true\ntest.clock.skew.ms=" + skewMillis + "\ntest.clock.drift.ppm=" + driftPpm
                + "\n" : "";
    }
}
