package io.synod.bench.locks;


import java.io.Closeable;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.curator.framework.CuratorFramework;

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

    /** Creates the lock object of one primitive for one ZooKeeper client session on one lock path. */
    @FunctionalInterface
    interface Factory {
        LockUnderTest create(LockPrimitive primitive, CuratorFramework client,
                             String lockPath);
    }

    /**
     * Creates the lock object of one primitive for client session {@code clientIndex} of a backend (ZooKeeper or
     * Synod) on one lock path: what {@link LockWorkload} needs, whatever the backend's client type.
     */
    @FunctionalInterface
    interface ClientLocks {
        LockUnderTest create(LockPrimitive primitive, int clientIndex, String lockPath);

        /** ZooKeeper: client k is the k-th Curator session. */
        static ClientLocks of(Factory factory, List<CuratorFramework> clients) {
            List<CuratorFramework> copy = List.copyOf(clients);
            return (primitive, clientIndex, lockPath) -> factory.create(primitive, copy.get(clientIndex), lockPath);
        }
    }
}
