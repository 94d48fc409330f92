package io.synod.sim;

import java.util.Locale;

/**
 * Which faults the simulator injects during the fault phase of a seed. Every profile ends with the
 * same liveness phase (faults healed, every node restarted, a stable election oracle).
 */
public enum FaultProfile {
    /** A healthy cluster: random but loss-free network latency, a benign oracle. */
    NONE(false, false, false),
    /** Crashes and restarts (unsynced writes lost, torn last record), the oracle reacting to them. */
    CRASH(true, false, false),
    /** Partitions, loss, duplication, reordering, and a hostile election oracle. */
    NET(false, true, false),
    /** Clock drift changes, forward clock jumps and process pauses. */
    CLOCK(false, false, true),
    /** Everything above at once. */
    ALL(true, true, true);

    private final boolean crashes;
    private final boolean network;
    private final boolean clocks;

    FaultProfile(boolean crashes, boolean network, boolean clocks) {
        this.crashes = crashes;
        this.network = network;
        this.clocks = clocks;
    }

    public boolean crashes() {
        return crashes;
    }

    /** Network faults; the hostile election oracle comes with them (a partitioned leader is what makes two leaders). */
    public boolean network() {
        return network;
    }

    public boolean clocks() {
        return clocks;
    }

    /** The command-line name: none, crash, net, clock, all. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a command-line name; throws {@link IllegalArgumentException} listing the valid names. */
    public static FaultProfile fromCliName(String name) {
        for (FaultProfile profile : values()) {
            if (profile.cliName().equals(name)) {
                return profile;
            }
        }
        throw new IllegalArgumentException("unknown fault profile '" + name + "' (expected none, crash, net, clock or all)");
    }
}
