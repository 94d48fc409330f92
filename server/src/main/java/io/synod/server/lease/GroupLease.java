package io.synod.server.lease;

import io.synod.coordination.LeaseMode;
import io.synod.coordination.LeaseTiming;
import io.synod.core.paxos.ClockReading;
import io.synod.core.paxos.LeaseHooks;
import io.synod.leases.KeyExtractor;
import io.synod.leases.LeaderLease;
import io.synod.leases.LeaderLeaseConfig;
import java.time.Instant;

/**
 * The server's side of a group's read lease (docs/leases.md, "On the server"): which policy the
 * replica runs and the clocks it gets. The policy itself ({@link LeaderLease}) is pure; this class is
 * the I/O shell that reads the real clocks:
 * <ul>
 *   <li>{@link LeaseMode#LEADER}: LeaseGuard with a bounded-uncertainty clock (SIGMOD 2026 §3): the
 *       interval is {@code [wall - bound, wall + bound]} around {@link Instant#now()}, where the bound
 *       is the configured maximum error of every node's wall clock (the operator's claim, as a
 *       ClockBound/TrueTime daemon would make it); deferred commit and inherited reads on.</li>
 *   <li>{@link LeaseMode#LEADER_TIMER}: LeaseGuard on local timers only ({@link System#nanoTime()}),
 *       with drift margin ε (§4): no cross-node clock comparison, no inherited reads.</li>
 *   <li>{@link LeaseMode#NONE}: {@link LeaseHooks#NONE}, no clock readings at all.</li>
 * </ul>
 * Quorum and Megastore leases are not built on the server; a group configured with them refuses to start.
 */
public final class GroupLease {
    public static final GroupLease NONE = new GroupLease(LeaseMode.NONE, LeaseTiming.NONE);

    private final LeaseMode mode;
    private final LeaseTiming timing;
    private final long boundNanos;

    private GroupLease(LeaseMode mode, LeaseTiming timing) {
        this.mode = mode;
        this.timing = timing;
        this.boundNanos = timing.clockBoundMicros() * 1_000L;
    }

    /** The lease a group configured with {@code mode} and {@code timing} runs. */
    public static GroupLease of(LeaseMode mode, LeaseTiming timing) {
        return switch (mode) {
            case NONE -> NONE;
            case LEADER, LEADER_TIMER -> {
                if (timing.deltaMillis() <= 0) {
                    throw new IllegalArgumentException("lease " + mode + " needs a delta > 0 ms, got " + timing);
                }
                yield new GroupLease(mode, timing.normalized(mode));
            }
            case QUORUM, MEGASTORE -> throw new IllegalArgumentException("lease mode " + mode
                    + " is not built on the server (only none, leader, leader-timer; see docs/leases.md)");
        };
    }

    public boolean enabled() {
        return mode != LeaseMode.NONE;
    }

    public LeaseMode mode() {
        return mode;
    }

    /** The policy of one replica incarnation, wrapped so the group loop can force a read through the log. */
    public ReadGate newHooks() {
        LeaseHooks policy = switch (mode) {
            case LEADER -> new LeaderLease(LeaderLeaseConfig.bounded(timing.deltaMillis() * 1_000_000L), KeyExtractor.KV);
            case LEADER_TIMER -> new LeaderLease(LeaderLeaseConfig.timer(timing.deltaMillis() * 1_000_000L,
                    timing.driftPpm()), KeyExtractor.KV);
            default -> LeaseHooks.NONE;
        };
        return new ReadGate(policy);
    }

    /** The clocks now: the monotonic clock, and for LEADER the wall clock with its error bound. */
    public ClockReading read() {
        long monotonic = System.nanoTime();
        if (mode != LeaseMode.LEADER) {
            return ClockReading.unbounded(monotonic);
        }
        Instant wall = Instant.now();
        long wallNanos = Math.addExact(Math.multiplyExact(wall.getEpochSecond(), 1_000_000_000L), wall.getNano());
        return new ClockReading(monotonic, wallNanos - boundNanos, wallNanos + boundNanos, true);
    }

    @Override
    public String toString() {
        return mode == LeaseMode.NONE ? "none" : mode.name().toLowerCase(java.util.Locale.ROOT) + " " + timing;
    }
}
