package io.synod.client;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Where the client learns servers and the shard map; pushes what it learns into the engine. */
interface Discovery extends AutoCloseable {
    void start(ClientEngine engine);

    /** Asked when a reply suggests the shard map is outdated. */
    void refreshShardMap(ClientEngine engine);

    /** Text for error messages: what the client was given to find the cluster. */
    String describe();

    @Override
    void close();

    /**
     * Waits until {@code ready} (the engine knows a server and the shard map); on a timeout, interrupt or
     * failure runs {@code close} and throws {@link UnavailableException} naming what this discovery was given.
     */
    default void awaitReady(Future<Void> ready, long timeoutMillis, Runnable close) {
        try {
            ready.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            close.run();
            throw new UnavailableException("cannot reach the Synod cluster at " + describe() + " within "
                    + timeoutMillis + " ms (no server answered with its shard map)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close.run();
            throw new UnavailableException("interrupted while connecting to " + describe());
        } catch (ExecutionException e) {
            close.run();
            if (e.getCause() instanceof UnavailableException u) {
                throw new UnavailableException(u.getMessage(), u);
            }
            throw new UnavailableException("cannot reach the Synod cluster at " + describe() + ": "
                    + e.getCause().getMessage(), e.getCause());
        }
    }
}
