package io.synod.engine;

/**
 * Where a group's driver and its handlers report what an operator should see (a leader change, a repair, a
 * hand-over, a refused message): the runner writes it to its log; the simulator and tests may record or drop it.
 * The driver itself holds no logger, so its package needs no logging library.
 */
@FunctionalInterface
public interface DriverLog {
    /** How much an operator should care. */
    enum Level { INFO, WARN, ERROR }

    /** Drops every line. */
    DriverLog NONE = (level, line) -> { };

    void log(Level level, String line);
}
