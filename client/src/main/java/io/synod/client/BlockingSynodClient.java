package io.synod.client;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The blocking facade of a {@link SynodClient}: the same calls, waiting for the answer. Failures are
 * thrown as the {@link SynodException} subclass the asynchronous call fails with. Thread-safe; shares
 * the client's connections (closing it closes the client).
 */
public final class BlockingSynodClient implements AutoCloseable {
    private final SynodClient client;

    BlockingSynodClient(SynodClient client) {
        this.client = client;
    }

    /** The asynchronous client behind this facade. */
    public SynodClient async() {
        return client;
    }

    public GetResult get(String key) {
        return await(client.get(key));
    }

    public GetResult get(String key, Consistency consistency) {
        return await(client.get(key, consistency));
    }

    public ListResult readList(String key) {
        return await(client.readList(key));
    }

    public ListResult readList(String key, Consistency consistency) {
        return await(client.readList(key, consistency));
    }

    public ScanResult scan(String start, String end, int limit) {
        return await(client.scan(start, end, limit));
    }

    public ScanResult scan(String start, String end, int limit, Consistency consistency) {
        return await(client.scan(start, end, limit, consistency));
    }

    public WriteResult put(String key, byte[] value) {
        return await(client.put(key, value));
    }

    public WriteResult put(String key, String value) {
        return await(client.put(key, value));
    }

    public WriteResult delete(String key) {
        return await(client.delete(key));
    }

    /** Admin: see {@link SynodClient#changeCoding}. */
    public CodingChangeResult changeCoding(int group, int failures, int dataShards, int thresholdBytes) {
        return await(client.changeCoding(group, failures, dataShards, thresholdBytes));
    }

    /** Admin: see {@link SynodClient#membership}. */
    public MembershipResult membership(int group, int op, int replica) {
        return await(client.membership(group, op, replica));
    }

    public CasResult compareAndSet(String key, byte[] expected, byte[] value) {
        return await(client.compareAndSet(key, expected, value));
    }

    public CasResult compareAndSet(String key, String expected, String value) {
        return await(client.compareAndSet(key, expected, value));
    }

    public CasResult compareAndSetVersion(String key, long expectedVersion, byte[] value) {
        return await(client.compareAndSetVersion(key, expectedVersion, value));
    }

    public WriteResult append(String key, long element) {
        return await(client.append(key, element));
    }

    private static <T> T await(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SynodException s) {
                throw s;
            }
            throw new SynodException(String.valueOf(cause), cause);
        } catch (CancellationException e) {
            throw new SynodException("cancelled", e);
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
