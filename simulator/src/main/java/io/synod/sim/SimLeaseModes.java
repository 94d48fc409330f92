package io.synod.sim;

import io.synod.leases.AutoAssignment;
import io.synod.leases.KeyAssignment;
import io.synod.leases.KeyExtractor;
import io.synod.leases.LeaderLease;
import io.synod.leases.LeaderLeaseConfig;
import io.synod.leases.QuorumLease;
import io.synod.leases.QuorumLeaseConfig;

import io.synod.sim.LeaseHooksFactory;
import io.synod.sim.SimLeases;
import java.util.Locale;

/**
 * The lease policies as the simulator runs them ({@code synod simulate --lease ...}), with the
 * simulator's scale of time (heartbeats every 4 ms, elections after 10–40 ms): Δ = 20 ms, a
 * bounded-uncertainty clock of ±1 ms, and, for timer-only leases, clocks whose rate drifts by up to
 * ±20 % under clock faults with the drift margin ε set to that bound.
 */
public final class SimLeaseModes {
    private SimLeaseModes() {}

    /** Δ in the simulator. */
    public static final long LEASE_NANOS = 20_000_000L;
    /** Drift bound of the timer-only world (and the margin ε its policy uses): ±20 %. */
    public static final long TIMER_DRIFT_PPM = 200_000L;
    /** Drift bound of the quorum-lease worlds (and the margin ε their policy uses): ±2 %, the simulator's clock-fault bound. */
    public static final long QUORUM_DRIFT_PPM = 20_000L;

    /**
     * The quorum-lease settings the simulator runs (scaled like its other timers: heartbeats 4 ms,
     * message delays well under 1 ms, partitions 5–120 ms): t_lease = Δ, t_guard = 10 ms, a renewal every
     * 5 ms, t_grace = 20 ms, ε = ±2 %, static hashed lease quorums. {@code synod bench leases} may set its own.
     */
    public static QuorumLeaseConfig quorumConfig(long leaseNanos) {
        return QuorumLeaseConfig.quorum(leaseNanos, 10_000_000L, 5_000_000L, 20_000_000L, QUORUM_DRIFT_PPM);
    }

    /**
     * Automatic assignment as the simulator runs it: every 5 ms (a quarter of the lease duration, so a
     * seed sees dozens of configuration changes, and a replica cut off from the leader is dropped from
     * the next one within about 10 ms) each replica reports its 8 most-read keys (of 32 counted)
     * and the leader lists the 2 keys read most (of the workload's 4: which two changes often, and
     * with it who holds them), without stickiness: changes are what the seeds should exercise.
     */
    public static AutoAssignment autoAssignment() {
        return new AutoAssignment(5_000_000L, 8, 32, 2, 1, 1.0, 1);
    }

    /**
     * A quorum-lease world whose configurations go through the log, assigned from read statistics by
     * {@code auto} and starting from {@code config.assignment()} (version 0).
     */
    public static SimLeases quorumAutoWorld(String name, QuorumLeaseConfig config, AutoAssignment auto, long driftPpm) {
        return SimLeases.of(name, (nodeId, clusterSize) -> new QuorumLease(config, KeyExtractor.KV,
                QuorumLease.ReadObserver.NONE, auto)).withDriftWithin(driftPpm, false);
    }

    /**
     * The quorum-auto world's lease settings: {@link #quorumConfig} with t_grace = 2Δ, so that a holder
     * cut off from the leader keeps reading for a while after the leader stopped hearing its reports
     * (the case the configuration-change rule exists for), and a renewal every 3Δ/4 (the latest the
     * renewal rule allows with the simulator's round trips), so a promise granted before a change
     * stays the holder's newest for longer: the seeds exercise the change rule harder.
     */
    public static QuorumLeaseConfig quorumAutoConfig(long leaseNanos) {
        return QuorumLeaseConfig.quorum(leaseNanos, 10_000_000L, leaseNanos * 3 / 4, 2 * leaseNanos, QUORUM_DRIFT_PPM);
    }

    /**
     * A quorum-lease world with {@code config} (any assignment, including {@link KeyAssignment#ALL} for
     * Megastore): clocks drift within ±{@code driftPpm} from the start and under clock faults and never
     * jump (a forward jump is drift beyond any bound, which timer leases cannot survive).
     */
    public static SimLeases quorumWorld(String name, QuorumLeaseConfig config, long driftPpm) {
        return SimLeases.of(name, (nodeId, clusterSize) -> new QuorumLease(config, KeyExtractor.KV))
                .withDriftWithin(driftPpm, false);
    }

    /** A lease policy the simulator can run. */
    public enum Mode {
        /** No leases: every read goes through the log. */
        NONE("none"),
        /** LeaseGuard with a bounded-uncertainty clock: deferred commit, inherited reads, idle no-ops. */
        LEADER("leader"),
        /** Timer-only leader leases with drift margin ε (§4); clock faults drift within ±20 % and never jump. */
        LEADER_TIMER("leader-timer"),
        /** Moraru quorum leases, static hashed lease quorums of ⌊N/2⌋ + 1 holders per key; clocks within ±2 %, no jumps. */
        QUORUM("quorum"),
        /** Quorum leases whose configurations go through the log, assigned from per-replica read statistics. */
        QUORUM_AUTO("quorum-auto"),
        /** Megastore leases: the quorum-lease machinery with every replica holding every key. */
        MEGASTORE("megastore");

        private final String cliName;

        Mode(String cliName) {
            this.cliName = cliName;
        }

        public String cliName() {
            return cliName;
        }

        public static Mode fromCliName(String name) {
            return SimLeaseModes.fromCliName(Mode.class, name);
        }
    }

    /** Deliberately broken lease policies (negative controls); each must be caught by the simulator. */
    public enum Control {
        NONE("none", null),
        /** A new leader commits at once, while the old leader may still read on its lease (breaks §3.2). */
        NO_DEFERRED_COMMIT("no-deferred-commit", Mode.LEADER),
        /** Inherited lease reads of keys written in the limbo region (breaks §3.3). */
        INHERITED_IGNORES_LIMBO("inherited-ignores-limbo", Mode.LEADER),
        /** The old leader keeps reading on its lease after its end-lease entry, which lets its successor skip the wait. */
        END_LEASE_KEEPS_READING("end-lease-keeps-reading", Mode.LEADER),
        /** Timer-only leases with ε = 0 while clocks drift within ±20 % (breaks §4). */
        TIMER_WITHOUT_DRIFT_MARGIN("timer-no-drift-margin", Mode.LEADER_TIMER),
        /**
         * With membership changes: a new leader skips its wait when its predecessor is no voter of the membership it
         * applied, while the removed predecessor may still lead and read on its lease (breaks rule LL1).
         */
        LL_SKIPS_WAIT_FOR_REMOVED_LEADER("ll-skips-wait-for-removed-leader", Mode.LEADER_TIMER),
        /** A quorum-lease holder reads k while it holds an accepted but unapplied write to k (breaks Moraru §3). */
        QL_READ_WITH_PENDING_WRITE("ql-read-pending-write", Mode.QUORUM),
        /** A write commits without waiting for the holders of its key (breaks Moraru §3). */
        QL_COMMIT_WITHOUT_HOLDERS("ql-commit-without-holders", Mode.QUORUM),
        /** A quorum-lease holder reads without applying, or holding, the slots its promises report (breaks rule 4c). */
        QL_READ_BEHIND_PROMISES("ql-read-behind-promises", Mode.QUORUM),
        /** After a configuration change, writes wait only for the new configuration's holders (breaks the change rule). */
        QL_CONFIG_DROPS_OLD_HOLDERS("ql-config-drops-old-holders", Mode.QUORUM_AUTO),
        /** Holders ignore configuration changes: they read under version 0 with promises of any version (breaks the change rule). */
        QL_HOLDER_IGNORES_CONFIG("ql-holder-ignores-config", Mode.QUORUM_AUTO),
        /**
         * With membership changes: holders read as if every replica voted, counting promises of spares and removed
         * replicas and reading after their own removal, while writes wait only for voters (breaks rules QL1–QL2).
         */
        QL_IGNORES_MEMBERSHIP("ql-ignores-membership", Mode.QUORUM),
        /**
         * The same with configurations through the log: holders read under every replica id rather than the configuration's
         * holders among the voters they applied, while writes wait only for voters (breaks rules QL1, QL2 and QL5).
         */
        QL_AUTO_IGNORES_MEMBERSHIP("ql-auto-ignores-membership", Mode.QUORUM_AUTO),
        /**
         * Megastore with membership changes: every replica, voter or not, reads on its leases, and a removed replica keeps
         * reading until its leases lapse while writes and the removal wait only for the voters (breaks Megastore §4.4.1 as
         * rules QL1–QL3 carry it: a leaving replica's lease must be invalidated or lapse before its removal completes).
         */
        MEGASTORE_IGNORES_MEMBERSHIP("megastore-ignores-membership", Mode.MEGASTORE);

        private final String cliName;
        private final Mode mode;

        Control(String cliName, Mode mode) {
            this.cliName = cliName;
            this.mode = mode;
        }

        public String cliName() {
            return cliName;
        }

        /** The lease mode this control breaks (null for {@link #NONE}). */
        public Mode mode() {
            return mode;
        }

        public static Control fromCliName(String name) {
            return SimLeaseModes.fromCliName(Control.class, name);
        }
    }

    /** The simulated lease world of {@code mode}. */
    public static SimLeases world(Mode mode) {
        return world(mode, Control.NONE);
    }

    /** The simulated lease world of {@code mode}, broken by {@code control} (which must belong to that mode). */
    public static SimLeases world(Mode mode, Control control) {
        return world(mode, control, LEASE_NANOS);
    }

    /** As {@link #world(Mode, Control)} with lease duration Δ = {@code leaseNanos}. */
    public static SimLeases world(Mode mode, Control control, long leaseNanos) {
        if (control != Control.NONE && control.mode() != mode) {
            throw new IllegalArgumentException("lease control " + control.cliName() + " needs --lease "
                    + control.mode().cliName() + ", not " + mode.cliName());
        }
        String name = mode.cliName() + (control == Control.NONE ? "" : "/" + control.cliName());
        return switch (mode) {
            case NONE -> SimLeases.NONE;
            case LEADER -> {
                LeaderLeaseConfig config = LeaderLeaseConfig.bounded(leaseNanos)
                        .withDeferredCommit(control != Control.NO_DEFERRED_COMMIT)
                        .withInheritedReads(true, control != Control.INHERITED_IGNORES_LIMBO)
                        .withEndLeaseStopsReads(control != Control.END_LEASE_KEEPS_READING);
                yield SimLeases.of(name, factory(config)).withHandoverFaults(true);
            }
            case LEADER_TIMER -> {
                long margin = control == Control.TIMER_WITHOUT_DRIFT_MARGIN ? 0 : TIMER_DRIFT_PPM;
                LeaderLeaseConfig config = LeaderLeaseConfig.timer(leaseNanos, margin)
                        .withWaitsForNonVoters(control != Control.LL_SKIPS_WAIT_FOR_REMOVED_LEADER);
                yield SimLeases.of(name, factory(config))
                        .withDriftWithin(TIMER_DRIFT_PPM, false).withHandoverFaults(true);
            }
            case QUORUM -> {
                QuorumLeaseConfig config = quorumConfig(leaseNanos).withChecks(control != Control.QL_READ_WITH_PENDING_WRITE,
                        control != Control.QL_COMMIT_WITHOUT_HOLDERS);
                if (control == Control.QL_READ_BEHIND_PROMISES) {
                    config = config.withoutPromisedSlotCheck();
                }
                yield quorumWorld(name, control == Control.QL_IGNORES_MEMBERSHIP ? config.ignoringMembership() : config,
                        QUORUM_DRIFT_PPM);
            }
            case QUORUM_AUTO -> {
                AutoAssignment auto = autoAssignment();
                QuorumLeaseConfig config = quorumAutoConfig(leaseNanos);
                yield quorumAutoWorld(name, control == Control.QL_AUTO_IGNORES_MEMBERSHIP ? config.ignoringMembership() : config,
                        control == Control.QL_CONFIG_DROPS_OLD_HOLDERS ? auto.withoutOldHolders()
                                : control == Control.QL_HOLDER_IGNORES_CONFIG ? auto.withHoldersIgnoringChanges() : auto,
                        QUORUM_DRIFT_PPM);
            }
            case MEGASTORE -> {
                QuorumLeaseConfig config = quorumConfig(leaseNanos).withAssignment(KeyAssignment.ALL);
                yield quorumWorld(name, control == Control.MEGASTORE_IGNORES_MEMBERSHIP ? config.ignoringMembership() : config,
                        QUORUM_DRIFT_PPM);
            }
        };
    }

    private static LeaseHooksFactory factory(LeaderLeaseConfig config) {
        return (nodeId, clusterSize) -> new LeaderLease(config, KeyExtractor.KV);
    }

    static <E extends Enum<E>> E fromCliName(Class<E> type, String name) {
        String wanted = name.toLowerCase(Locale.ROOT);
        StringBuilder names = new StringBuilder();
        for (E value : type.getEnumConstants()) {
            String cli = value instanceof Mode m ? m.cliName() : ((Control) value).cliName();
            if (cli.equals(wanted)) {
                return value;
            }
            names.append(names.length() == 0 ? "" : ", ").append(cli);
        }
        throw new IllegalArgumentException("unknown " + (type == Mode.class ? "lease mode" : "lease control") + " '" + name
                + "' (expected one of " + names + ")");
    }
}
