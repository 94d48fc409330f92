package io.synod.server.lease;

import io.synod.coordination.LeaseMode;
import io.synod.coordination.LeaseTiming;
import io.synod.core.paxos.ClockReading;
import io.synod.core.paxos.LeaseHooks;
import io.synod.leases.AutoAssignment;
import io.synod.leases.KeyAssignment;
import io.synod.leases.LeaderLeaseConfig;
import io.synod.leases.LeaseConfiguration;
import io.synod.leases.QuorumLeaseConfig;
import io.synod.leases.ReadLease;
import io.synod.server.config.ServerConfig.AutoSettings;
import io.synod.server.config.ServerConfig.QuorumTimers;
import java.time.Instant;
import java.util.Locale;

/**
 * The server's side of a group's read lease (docs/leases.md, "On the server"): which policy the
 * replica runs ({@link #policy()}, a pure {@link ReadLease} the group driver takes) and the clocks it gets
 * ({@link #read(long)}, the driver's lease clock). This class is the I/O shell that reads the real clocks:
 * <ul>
 *   <li>{@link LeaseMode#LEADER}: LeaseGuard with a bounded-uncertainty clock (SIGMOD 2026 §3): the
 *       interval is {@code [wall - bound, wall + bound]} around {@link Instant#now()}, where the bound
 *       is the configured maximum error of every node's wall clock (the operator's claim, as a
 *       ClockBound/TrueTime daemon would make it); deferred commit and inherited reads on.</li>
 *   <li>{@link LeaseMode#LEADER_TIMER}: LeaseGuard on local timers only ({@link System#nanoTime()}),
 *       with drift margin ε (§4): no cross-node clock comparison, no inherited reads.</li>
 *   <li>{@link LeaseMode#QUORUM}: Moraru quorum leases (SoCC 2014, §3) with the static hashed lease
 *       configuration ({@link KeyAssignment#HASHED_MAJORITY}): a follower that holds a key answers its
 *       LINEARIZABLE reads locally; t_lease = Δ and ε from the cluster spec, t_guard, renewal and
 *       t_grace from this node's {@link QuorumTimers}.</li>
 *   <li>{@link LeaseMode#QUORUM_AUTO}: the same, with lease configurations agreed through the log and
 *       assigned by the leader from the replicas' read statistics (§3, §5; {@link AutoAssignment} from this
 *       node's {@link AutoSettings}): version 0 is the static hashed assignment, every later one a put of
 *       the reserved key {@link LeaseConfiguration#KEY} that the policy reads back from the group's state
 *       machine (RocksDB), so a snapshot, a checkpoint install and a restart keep it.</li>
 *   <li>{@link LeaseMode#MEGASTORE}: the same as QUORUM with every replica holding every key
 *       ({@link KeyAssignment#ALL}; writes wait for every replica or for a silent one's lease to end).</li>
 *   <li>{@link LeaseMode#NONE}: {@link LeaseHooks#NONE}, no clock readings at all.</li>
 * </ul>
 * Quorum leases measure only local intervals (§3.5), so their clock is the monotonic one, shifted by the
 * wall clock when the lease was built ({@link #read()}; one lease per node process): a BOUND report's stamp
 * must grow across a process restart (docs/leases.md, QuorumLease rule 7), which {@link System#nanoTime()}
 * alone does not.
 */
public final class GroupLease {
    public static final GroupLease NONE = new GroupLease(LeaseMode.NONE, LeaseTiming.NONE, null, null);

    private final LeaseMode mode;
    private final LeaseTiming timing;
    private final long boundNanos;
    /** QUORUM, QUORUM_AUTO and MEGASTORE: the policy's settings; null otherwise. */
    private final QuorumLeaseConfig quorum;
    /** QUORUM_AUTO: the automatic assignment; null otherwise. */
    private final AutoAssignment auto;
    private final ReadLease policy;
    /**
     * Added to {@link System#nanoTime()} for quorum leases: the wall clock when this lease was built minus nanoTime
     * then (read here, not at class load, so loading the class reads no clock; zero for the other modes).
     */
    private final long restartOffsetNanos;

    private GroupLease(LeaseMode mode, LeaseTiming timing, QuorumLeaseConfig quorum, AutoAssignment auto) {
        this.mode = mode;
        this.timing = timing;
        this.boundNanos = timing.clockBoundMicros() * 1_000L;
        this.quorum = quorum;
        this.auto = auto;
        this.restartOffsetNanos = quorum == null ? 0 : wallNanos(Instant.now()) - System.nanoTime();
        String name = mode.name().toLowerCase(Locale.ROOT).replace('_', '-'); // as the configuration spells it
        this.policy = switch (mode) {
            case LEADER -> ReadLease.leader(name, LeaderLeaseConfig.bounded(timing.deltaMillis() * 1_000_000L));
            case LEADER_TIMER -> ReadLease.leader(name, LeaderLeaseConfig.timer(timing.deltaMillis() * 1_000_000L,
                    timing.driftPpm()));
            case QUORUM, MEGASTORE, QUORUM_AUTO -> ReadLease.quorum(name, quorum, auto);
            default -> ReadLease.NONE;
        };
    }

    /** The lease a group configured with {@code mode} and {@code timing} runs (quorum timers at their defaults). */
    public static GroupLease of(LeaseMode mode, LeaseTiming timing) {
        return of(mode, timing, QuorumTimers.DEFAULTS);
    }

    /** The lease a group configured with {@code mode} and {@code timing} runs, with this node's quorum-lease timers. */
    public static GroupLease of(LeaseMode mode, LeaseTiming timing, QuorumTimers timers) {
        if (mode != LeaseMode.NONE && timing.deltaMillis() <= 0) {
            throw new IllegalArgumentException("lease " + mode + " needs a delta > 0 ms, got " + timing);
        }
        return switch (mode) {
            case NONE -> NONE;
            case LEADER, LEADER_TIMER -> new GroupLease(mode, timing.normalized(mode), null, null);
            case QUORUM, QUORUM_AUTO, MEGASTORE -> {
                LeaseTiming t = timing.normalized(mode);
                // QuorumLeaseConfig checks the renewal leaves time before t_lease(1 - ε) runs out.
                QuorumLeaseConfig config = QuorumLeaseConfig.quorum(millis(t.deltaMillis()), millis(timers.guardMillis()),
                        millis(timers.renewMillis()), millis(timers.graceMillis()), t.driftPpm());
                yield new GroupLease(mode, t, mode == LeaseMode.MEGASTORE ? config.withAssignment(KeyAssignment.ALL)
                        : config, mode == LeaseMode.QUORUM_AUTO ? autoAssignment(timers.auto()) : null);
            }
        };
    }

    /** The policy's automatic assignment from this node's settings (AutoAssignment checks them again). */
    static AutoAssignment autoAssignment(AutoSettings a) {
        AutoAssignment auto = new AutoAssignment(millis(a.periodMillis()), a.reportKeys(), a.counterKeys(), a.maxKeys(),
                a.minReads(), a.stickiness(), a.halfLifePeriods());
        return a.unlistedToAll() ? auto.withUnlistedToAll() : auto;
    }

    private static long millis(long ms) {
        return ms * 1_000_000L;
    }

    public boolean enabled() {
        return mode != LeaseMode.NONE;
    }

    public LeaseMode mode() {
        return mode;
    }

    /** The policy the group driver runs (one {@link LeaseHooks} per replica incarnation, behind its read gate). */
    public ReadLease policy() {
        return policy;
    }

    /**
     * The clocks now: the monotonic clock, and for LEADER the wall clock with its error bound. For
     * QUORUM and MEGASTORE the monotonic clock is shifted by a per-process constant so that readings
     * also grow across a restart (as long as the wall clock does not step back by more than the downtime).
     */
    public ClockReading read() {
        return read(System.nanoTime());
    }

    /** {@link #read()} at the monotonic time {@code monotonic} ({@link System#nanoTime()} read by the caller). */
    public ClockReading read(long monotonic) {
        if (quorum != null) {
            return ClockReading.unbounded(monotonic + restartOffsetNanos);
        }
        if (mode != LeaseMode.LEADER) {
            return ClockReading.unbounded(monotonic);
        }
        long wallNanos = wallNanos(Instant.now());
        return new ClockReading(monotonic, wallNanos - boundNanos, wallNanos + boundNanos, true);
    }

    private static long wallNanos(Instant wall) {
        return Math.addExact(Math.multiplyExact(wall.getEpochSecond(), 1_000_000_000L), wall.getNano());
    }

    @Override
    public String toString() {
        return mode == LeaseMode.NONE ? "none" : mode.name().toLowerCase(Locale.ROOT) + " " + timing
                + (quorum == null ? "" : " " + quorum) + (auto == null ? "" : " " + auto);
    }
}
