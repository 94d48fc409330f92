package io.synod.bench.locks;


import java.io.Closeable;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * One client's handle on the lock being measured. Sync primitives are driven through the blocking
 * methods from a dedicated thread; async primitives through the {@link CompletionStage} methods, with
 * no thread blocked while waiting. Acquire methods return the holder's fencing token.
 */
public interface LockUnderTest extends Closeable {

    LockPrimitive primitive();

    Optional<Long> acquireBlocking(Duration timeout) throws Exception;

    void releaseBlocking() throws Exception;

    CompletionStage<Optional<Long>> acquireAsync(Duration timeout);

    CompletionStage<Void> releaseAsync();

    /** Creates the lock object of one primitive for one client session on one lock path. */
    @FunctionalInterface
    interface Factory {
        LockUnderTest create(LockPrimitive primitive, org.apache.curator.framework.CuratorFramework client,
                             String lockPath);
    }
}
