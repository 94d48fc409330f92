package io.synod.bench.kv;

import java.util.concurrent.CompletableFuture;

/**
 * The key-value calls that {@code synod torture} and {@code synod bench kv} make against Synod, kept
 * behind one small asynchronous interface (the workloads' vocabulary: put/get, append/read-list, and
 * an outcome that is either definite or unknown). The implementation is {@link SdkKvClient}, the Java
 * SDK ({@code io.synod.client.SynodClient}).
 *
 * <p>Every future completes normally with the result, or exceptionally with
 * {@link KvClient.RejectedException} (the command definitely did not take effect) or
 * {@link KvClient.OutcomeUnknownException} (it may or may not have taken effect: timeout, lost
 * connection, leader change while in flight). Reads are linearizable (served by the group's leader
 * through the log).
 */
public interface KvClient extends AutoCloseable {

    /** Writes {@code value} under {@code key}; completes with the slot it was applied at. */
    CompletableFuture<Long> put(String key, byte[] value);

    /** Reads {@code key} linearizably; completes with its value, or {@code null} when absent. */
    CompletableFuture<byte[]> get(String key);

    /** Appends {@code element} to the list under {@code key}; completes with the slot it was applied at. */
    CompletableFuture<Long> append(String key, long element);

    /** Reads the list under {@code key} linearizably (oldest element first; empty when absent). */
    CompletableFuture<long[]> readList(String key);

    /** What runs underneath, for progress lines and reports. */
    String description();

    @Override
    void close();

    /** The command definitely did not take effect (the server refused it before proposing it). */
    final class RejectedException extends Exception {
        public RejectedException(String message) {
            super(message);
        }
    }

    /** The command's fate is unknown: it may take effect, now or later, or never. */
    final class OutcomeUnknownException extends Exception {
        public OutcomeUnknownException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
