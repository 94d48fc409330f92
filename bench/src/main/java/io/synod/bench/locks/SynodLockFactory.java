package io.synod.bench.locks;

import io.synod.client.SynodClient;

/**
 * Creates the lock object of one primitive for one Synod client (its own session) on one lock key: the Synod
 * counterpart of {@link LockUnderTest.Factory}. The implementation over the {@code SynodLocks} recipes is
 * {@link SynodLockSupport#factory()}.
 */
@FunctionalInterface
public interface SynodLockFactory {
    LockUnderTest create(LockPrimitive primitive, SynodClient client, String lockPath);
}
