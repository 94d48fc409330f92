package io.synod.bench.kv;

import java.util.concurrent.CompletableFuture;

/**
 * One system under test of {@code synod bench kv}: a fixed set of keys (0..keys-1), written and read
 * linearizably. Futures complete exceptionally when an operation fails; the load generator counts those.
 */
interface BenchTarget extends AutoCloseable {
    String name();

    /** Writes {@code value} to key {@code key}. */
    CompletableFuture<?> write(int key, byte[] value);

    /** Reads key {@code key} linearizably. */
    CompletableFuture<?> read(int key);

    @Override
    void close();
}
