package io.synod.coordination;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException;

/** Shared plumbing of the Curator implementations: blocking calls with clear errors, decoding with the path named. */
final class Zk {
    private Zk() {}

    @FunctionalInterface
    interface Call<T> {
        T call() throws Exception;
    }

    /** Runs a blocking ZooKeeper call; every failure becomes a {@link CoordinationException} naming {@code what}. */
    static <T> T call(String what, Call<T> call) {
        try {
            return call.call();
        } catch (KeeperException.NoNodeException e) {
            throw new CoordinationException(what + ": znode " + e.getPath() + " does not exist (was the cluster created?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordinationException(what + ": interrupted", e);
        } catch (CoordinationException | IllegalArgumentException | IllegalStateException e) {
            throw e;
        } catch (KeeperException e) {
            throw new CoordinationException(what + " failed: " + e.getMessage(), e);
        } catch (Exception e) {
            throw new CoordinationException(what + " failed: " + e, e);
        }
    }

    /** Decodes a znode's bytes; a malformed one raises {@link MetadataFormatException} with the path first. */
    static <T> T decode(String path, byte[] bytes, Function<byte[], T> decoder) {
        try {
            return decoder.apply(bytes);
        } catch (MetadataFormatException e) {
            throw new MetadataFormatException("znode " + path + ": " + e.getMessage());
        }
    }

    /** A one-thread scheduler with a named daemon thread; cancelled tasks leave the queue at once. */
    static ScheduledExecutorService dispatcher(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }
}
