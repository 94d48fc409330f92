package io.synod.bench.locks;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The experiments of the seed paper that {@code synod bench locks} reproduces, with the figure each one mirrors. */
public enum Experiment {
    BASELINE("baseline", "Fig. 7", "sync vs async latency of create/set/get/exists/getChildren"),
    CREATE_GRID("create-grid", "Figs. 8-9", "async and sync create latency over client RTT x server RTT"),
    LOCK_GRID("lock-grid", "Fig. 10", "the locks over client RTT x server RTT"),
    SERVER_RTT("server-rtt", "Fig. 11", "server-server RTT sweep at a fixed client RTT"),
    CONTENTION_HIGH_RTT("contention-high-rtt", "Fig. 13", "critical-section sweep at high client RTT"),
    CONTENTION_LOW_RTT("contention-low-rtt", "Fig. 14", "critical-section sweep at low client RTT"),
    LOW_CONTENTION_RTT("low-contention-rtt", "Fig. 15", "client RTT sweep at low contention"),
    HIGH_CONTENTION_RTT("high-contention-rtt", "Fig. 16", "client RTT sweep at high contention");

    private final String cliName;
    private final String figure;
    private final String description;

    Experiment(String cliName, String figure, String description) {
        this.cliName = cliName;
        this.figure = figure;
        this.description = description;
    }

    public String cliName() {
        return cliName;
    }

    public String figure() {
        return figure;
    }

    public String description() {
        return description;
    }

    public static Experiment fromCliName(String name) {
        for (Experiment experiment : values()) {
            if (experiment.cliName.equals(name.trim())) {
                return experiment;
            }
        }
        throw new IllegalArgumentException("unknown experiment '" + name + "'; known: " + allNames());
    }

    public static String allNames() {
        return Arrays.stream(values()).map(Experiment::cliName).collect(Collectors.joining(", "));
    }
}
