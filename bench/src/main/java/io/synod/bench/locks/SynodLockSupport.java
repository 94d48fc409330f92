package io.synod.bench.locks;

import java.util.Optional;

/**
 * Where the Synod lock recipes ({@code SynodLocks}) meet the benchmark. This build has no Synod lock recipes yet
 * (sessions, ephemeral and sequential keys and watches on the server are issue 12's first part), so
 * {@link #factory()} is empty and {@code --backend synod|both} refuses with {@link #NOT_AVAILABLE}.
 */
public final class SynodLockSupport {

    /** The message {@code synod bench locks --backend synod|both} refuses with. */
    public static final String NOT_AVAILABLE = "Synod lock backend not available in this build (no SynodLocks recipes yet;"
            + " use --backend zk)";

    private SynodLockSupport() {
    }

    /** The Synod lock recipes as locks under test, when this build has them. */
    public static Optional<SynodLockFactory> factory() {
        return Optional.empty();
    }
}
