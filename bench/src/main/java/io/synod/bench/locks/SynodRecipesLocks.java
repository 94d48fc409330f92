package io.synod.bench.locks;

import io.synod.client.SynodClient;
import io.synod.recipes.lock.LockOptions;
import io.synod.recipes.lock.SynodLocks;

/**
 * The Synod lock recipes of {@code synod-recipes} ({@link SynodLocks}), each with the same strategy as its ZooKeeper
 * twin in {@link RecipesLocks}, as locks under test.
 */
public final class SynodRecipesLocks implements SynodLockFactory {

    @Override
    public LockUnderTest create(LockPrimitive primitive, SynodClient client, String lockPath) {
        if (primitive == LockPrimitive.ADAPTIVE) {
            return new RecipesLocks.Async(primitive, SynodLocks.adaptiveLock(client, lockPath));
        }
        LockOptions options = LockOptions.builder().strategy(primitive.strategy()).build();
        return switch (primitive.kind()) {
            case SYNC_QUEUE -> new RecipesLocks.Sync(primitive, SynodLocks.queueLock(client, lockPath, options));
            case SYNC_TAS -> new RecipesLocks.Sync(primitive, SynodLocks.tasLock(client, lockPath, options));
            case ASYNC_QUEUE -> new RecipesLocks.Async(primitive, SynodLocks.asyncQueueLock(client, lockPath, options));
            case ASYNC_TAS -> new RecipesLocks.Async(primitive, SynodLocks.asyncTasLock(client, lockPath, options));
        };
    }
}
