package io.synod.leases;

import io.synod.core.sim.LeaseHooksFactory;
import io.synod.core.sim.SimLeases;
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

    /** A lease policy the simulator can run. */
    public enum Mode {
        /** No leases: every read goes through the log. */
        NONE("none"),
        /** LeaseGuard with a bounded-uncertainty clock: deferred commit, inherited reads, idle no-ops. */
        LEADER("leader"),
        /** Timer-only leader leases with drift margin ε (§4); clock faults drift within ±20 % and never jump. */
        LEADER_TIMER("leader-timer");

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
        /** Timer-only leases with ε = 0 while clocks drift within ±20 % (breaks §4). */
        TIMER_WITHOUT_DRIFT_MARGIN("timer-no-drift-margin", Mode.LEADER_TIMER);

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
                        .withInheritedReads(true, control != Control.INHERITED_IGNORES_LIMBO);
                yield SimLeases.of(name, factory(config));
            }
            case LEADER_TIMER -> {
                long margin = control == Control.TIMER_WITHOUT_DRIFT_MARGIN ? 0 : TIMER_DRIFT_PPM;
                yield SimLeases.of(name, factory(LeaderLeaseConfig.timer(leaseNanos, margin)))
                        .withDriftWithin(TIMER_DRIFT_PPM, false);
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
