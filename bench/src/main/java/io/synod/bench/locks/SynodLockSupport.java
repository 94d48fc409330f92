package io.synod.bench.locks;

/** Where the Synod lock recipes ({@code SynodLocks}) meet the benchmark. */
public final class SynodLockSupport {

    private SynodLockSupport() {
    }

    /** The Synod lock recipes as locks under test: {@link SynodRecipesLocks}. */
    public static SynodLockFactory factory() {
        return new SynodRecipesLocks();
    }
}
