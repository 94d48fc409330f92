package io.synod.bench.locks;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** The coordination service the lock experiments run on ({@code --backend zk|synod|both}). */
public enum Backend {
    /** A ZooKeeper ensemble of separate JVMs, locks from {@code ZkLocks}. */
    ZK("zk", "ZooKeeper"),
    /** A Synod cluster of three server processes (plus ZooKeeper for leader election), locks from {@code SynodLocks}. */
    SYNOD("synod", "Synod");

    private final String cliName;
    private final String label;

    Backend(String cliName, String label) {
        this.cliName = cliName;
        this.label = label;
    }

    public String cliName() {
        return cliName;
    }

    public String label() {
        return label;
    }

    /** {@code zk}, {@code synod} or {@code both}, in the order they run (ZooKeeper first). */
    public static Set<Backend> parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "zk" -> EnumSet.of(ZK);
            case "synod" -> EnumSet.of(SYNOD);
            case "both" -> EnumSet.of(ZK, SYNOD);
            default -> throw new IllegalArgumentException("--backend must be zk, synod or both, was '" + text + "'");
        };
    }
}
