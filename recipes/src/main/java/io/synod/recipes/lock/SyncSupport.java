package io.synod.recipes.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Blocking on the few background steps the synchronous locks share with the asynchronous ones. */
final class SyncSupport {

    private static final Logger LOG = LoggerFactory.getLogger(SyncSupport.class);

    private SyncSupport() {}

    /**
     * Waits for a node deletion (see {@link NodeReaper}), at most one session timeout: longer means ZooKeeper is
     * unreachable, and the deletion goes on in the background until it succeeds or the session ends.
     */
    static void await(CompletableFuture<Void> deletion, LockBase lock) throws LockException, InterruptedException {
        String lockPath = lock.lockPath;
        try {
            deletion.get(lock.backend.sessionTimeoutMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new LockCoordinationException(lockPath, "release not confirmed within the session timeout; deletion continues in the background",
                    KeeperException.Code.OPERATIONTIMEOUT, e);
        } catch (ExecutionException e) {
            Throwable cause = LockBase.unwrap(e);
            if (cause instanceof LockException lockException) {
                throw lockException;
            }
            throw new LockCoordinationException(lockPath, "release failed: " + cause, KeeperException.Code.SYSTEMERROR, cause);
        }
    }

    /** For clean-up nobody waits for: a final failure (refused, or retry budget spent) is logged. */
    static void logIfFailed(CompletableFuture<Void> cleanup, String lockPath) {
        cleanup.whenComplete((ignored, error) -> {
            if (error != null) {
                LOG.warn("clean-up of lock nodes under {} failed: {}", lockPath, error.toString());
            }
        });
    }
}
