package io.synod.server.config;

import io.synod.coordination.LeaseMode;
import io.synod.coordination.LeaseTiming;
import io.synod.server.config.ServerConfig.AutoSettings;
import io.synod.server.config.ServerConfig.CodingSetting;
import io.synod.server.config.ServerConfig.LeaseSetting;
import io.synod.server.config.ServerConfig.QuorumTimers;
import java.util.Properties;

/**
 * The {@code lease} and {@code lease.*} keys: parsing, the checks that tie them to each other and to the
 * heartbeat and coding, and their properties text. Kept apart from {@link ServerConfig} because the lease modes
 * carry most of the rules between keys; the settings themselves stay records of {@code ServerConfig}.
 */
final class LeaseSettings {
    private LeaseSettings() {
    }

    static LeaseSetting parse(String text, int deltaMillis, int clockBoundMicros, int driftPpm)
            throws ConfigException {
        LeaseMode mode = switch (text) {
            case "none" -> LeaseMode.NONE;
            case "leader" -> LeaseMode.LEADER;
            case "leader-timer" -> LeaseMode.LEADER_TIMER;
            case "quorum" -> LeaseMode.QUORUM;
            case "quorum-auto" -> LeaseMode.QUORUM_AUTO;
            case "megastore" -> LeaseMode.MEGASTORE;
            default -> throw new ConfigException("lease: must be none, leader, leader-timer, quorum, quorum-auto or "
                    + "megastore, got '" + text + "'");
        };
        if (mode == LeaseMode.LEADER && 2L * clockBoundMicros >= 1000L * deltaMillis) {
            throw new ConfigException("lease.clock.bound.us: " + clockBoundMicros + " us of clock error leaves no lease "
                    + "within lease.delta.ms=" + deltaMillis + " (the uncertainty interval must be shorter than delta)");
        }
        return new LeaseSetting(mode, new LeaseTiming(deltaMillis, clockBoundMicros, driftPpm).normalized(mode));
    }

    /**
     * The quorum-lease timers of a {@code quorum}/{@code megastore} setting, checked against t_lease and
     * ε (a holder must get a renewed promise, one guard round trip after asking, before its last one runs
     * out at t_lease(1 - ε), §3.8) and against the heartbeat (a follower hears from the leader at least
     * every heartbeat, so a shorter grace would exclude healthy holders).
     */
    static LeaseSetting withQuorumTimers(LeaseSetting lease, QuorumTimers timers, int heartbeatMillis)
            throws ConfigException {
        if (!LeaseSetting.isQuorum(lease.mode())) {
            return lease;
        }
        long tLease = lease.timing().deltaMillis();
        long holdMicros = tLease * 1000L - tLease * lease.timing().driftPpm() / 1000L;
        if ((timers.renewMillis() + (long) timers.guardMillis()) * 1000L >= holdMicros) {
            throw new ConfigException("lease.renew.ms + lease.guard.ms (" + timers.renewMillis() + " + "
                    + timers.guardMillis() + " ms) must be shorter than t_lease(1 - drift) = " + holdMicros / 1000.0
                    + " ms (lease.delta.ms=" + tLease + ", lease.drift.ppm=" + lease.timing().driftPpm()
                    + "), or a holder's leases lapse between renewals");
        }
        if (timers.graceMillis() <= heartbeatMillis) {
            throw new ConfigException("lease.grace.ms: " + timers.graceMillis() + " ms must exceed heartbeat.ms ("
                    + heartbeatMillis + " ms), or grantors exclude holders that hear from the leader on time");
        }
        return new LeaseSetting(lease.mode(), lease.timing(), timers);
    }

    /** Bytes of a quorum-lease configuration entry listing no key (a put of the reserved key: tag, key, value header). */
    static final int CONFIGURATION_ENTRY_BYTES = 49;

    /**
     * With {@code quorum-auto} and coded accepts, a configuration entry (49 + 16 bytes per listed key) must
     * stay below the coding threshold: a coded one is applied by followers from its header, and the policy
     * cannot read it back until it is rebuilt, so those followers would hold no key (safe, but no local reads).
     */
    static void checkConfigurationsStayUncoded(LeaseSetting lease, CodingSetting coding) throws ConfigException {
        if (lease.mode() != LeaseMode.QUORUM_AUTO || !coding.explicit() || coding.dataShards() <= 1) {
            return;
        }
        long largest = CONFIGURATION_ENTRY_BYTES + 16L * lease.quorum().auto().maxKeys();
        if (largest >= coding.thresholdBytes()) {
            throw new ConfigException("lease.auto.max.keys: a configuration of " + lease.quorum().auto().maxKeys()
                    + " keys is a " + largest + "-byte entry, at or above coding.threshold.bytes ("
                    + coding.thresholdBytes() + "): it would be coded and followers could not read it back; list at most "
                    + Math.max(0, (coding.thresholdBytes() - 1 - CONFIGURATION_ENTRY_BYTES) / 16)
                    + " keys or raise the threshold");
        }
    }

    /** The {@code lease.auto.*} keys, each range-checked, the report size checked against the counter's. */
    static AutoSettings parseAuto(Properties p) throws ConfigException {
        int period = ServerConfig.integer(p, "lease.auto.period.ms", 10, LeaseTiming.MAX_DELTA_MILLIS);
        int reportKeys = ServerConfig.integer(p, "lease.auto.report.keys", 1, 4096);
        int counterKeys = ServerConfig.integer(p, "lease.auto.counter.keys", 1, 65_536);
        if (reportKeys > counterKeys) {
            throw new ConfigException("lease.auto.report.keys (" + reportKeys + ") must be at most lease.auto.counter.keys ("
                    + counterKeys + "): a replica reports only keys it counts");
        }
        int maxKeys = ServerConfig.integer(p, "lease.auto.max.keys", 0, 4096);
        int minReads = ServerConfig.integer(p, "lease.auto.min.reads", 1, 1_000_000_000);
        String stickyText = ServerConfig.str(p, "lease.auto.stickiness");
        double stickiness;
        try {
            stickiness = Double.parseDouble(stickyText);
        } catch (NumberFormatException e) {
            throw new ConfigException("lease.auto.stickiness: '" + stickyText + "' is not a number");
        }
        if (!(stickiness >= 1 && stickiness <= 100)) {
            throw new ConfigException("lease.auto.stickiness: " + stickyText + " is outside 1..100");
        }
        int halfLife = ServerConfig.integer(p, "lease.auto.half.life.periods", 1, 1000);
        String unlisted = ServerConfig.str(p, "lease.auto.unlisted");
        if (!unlisted.equals("leader") && !unlisted.equals("all")) {
            throw new ConfigException("lease.auto.unlisted: must be leader or all, got '" + unlisted + "'");
        }
        return new AutoSettings(period, reportKeys, counterKeys, maxKeys, minReads, stickiness, halfLife,
                unlisted.equals("all"));
    }

    static String toProperties(LeaseSetting lease) {
        LeaseTiming t = lease.timing();
        return switch (lease.mode()) {
            case NONE -> "";
            case LEADER -> "\nlease.delta.ms=" + t.deltaMillis() + "\nlease.clock.bound.us=" + t.clockBoundMicros();
            case QUORUM, QUORUM_AUTO, MEGASTORE -> "\nlease.delta.ms=" + t.deltaMillis() + "\nlease.drift.ppm=" + t.driftPpm()
                    + "\nlease.guard.ms=" + lease.quorum().guardMillis() + "\nlease.renew.ms=" + lease.quorum().renewMillis()
                    + "\nlease.grace.ms=" + lease.quorum().graceMillis()
                    + (lease.mode() == LeaseMode.QUORUM_AUTO ? autoProperties(lease.quorum().auto()) : "");
            default -> "\nlease.delta.ms=" + t.deltaMillis() + "\nlease.drift.ppm=" + t.driftPpm();
        };
    }

    private static String autoProperties(AutoSettings a) {
        return "\nlease.auto.period.ms=" + a.periodMillis() + "\nlease.auto.report.keys=" + a.reportKeys()
                + "\nlease.auto.counter.keys=" + a.counterKeys() + "\nlease.auto.max.keys=" + a.maxKeys()
                + "\nlease.auto.min.reads=" + a.minReads() + "\nlease.auto.stickiness=" + a.stickiness()
                + "\nlease.auto.half.life.periods=" + a.halfLifePeriods() + "\nlease.auto.unlisted="
                + (a.unlistedToAll() ? "all" : "leader");
    }
}
