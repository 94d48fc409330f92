package io.synod.bench.kv;

import io.synod.client.BadRequestException;
import io.synod.client.SynodClient;
import io.synod.client.TlsFiles;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * {@link KvClient} over the Java SDK ({@link io.synod.client.SynodClient}): asynchronous, pipelined
 * (many requests in flight on one connection per server), shard routing, leader discovery, retries
 * with the same (client id, sequence). Reads are {@code LINEARIZABLE} (the SDK's default).
 * The SDK's {@link BadRequestException} means the command definitely did not take effect; every other
 * failure of a write (timeout, {@code OutcomeUnknownException}, unavailable) leaves its outcome unknown.
 */
public final class SdkKvClient implements KvClient {
    private final SynodClient client;
    private final int maxInFlight;

    /** {@code tls}: the cluster's client certificate files, or null for an insecure cluster. */
    public SdkKvClient(Map<Integer, InetSocketAddress> servers, int maxInFlight, Duration timeout, TlsFiles tls) {
        this.maxInFlight = maxInFlight;
        this.client = SynodClient.builder().servers(new ArrayList<>(servers.values())).timeout(timeout).tls(tls)
                .connectTimeout(Duration.ofSeconds(30)).maxInFlight(maxInFlight).build();
    }

    @Override
    public CompletableFuture<Long> put(String key, byte[] value) {
        return map(client.put(key, value), r -> r.slot());
    }

    @Override
    public CompletableFuture<byte[]> get(String key) {
        return map(client.get(key), r -> r.exists() ? r.value() : null);
    }

    @Override
    public CompletableFuture<Long> append(String key, long element) {
        return map(client.append(key, element), r -> r.slot());
    }

    @Override
    public CompletableFuture<long[]> readList(String key) {
        return map(client.readList(key), r -> r.elements());
    }

    private static <R, T> CompletableFuture<T> map(CompletableFuture<R> call, Function<R, T> onOk) {
        CompletableFuture<T> out = new CompletableFuture<>();
        call.whenComplete((r, error) -> {
            if (error == null) {
                try {
                    out.complete(onOk.apply(r));
                } catch (RuntimeException e) {
                    out.completeExceptionally(e);
                }
                return;
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof BadRequestException) {
                out.completeExceptionally(new RejectedException(cause.getMessage()));
            } else {
                out.completeExceptionally(new OutcomeUnknownException(String.valueOf(cause.getMessage()), cause));
            }
        });
        return out;
    }

    @Override
    public String description() {
        return "Java SDK (io.synod.client.SynodClient), async, up to " + maxInFlight + " requests in flight";
    }

    @Override
    public void close() {
        client.close();
    }
}
