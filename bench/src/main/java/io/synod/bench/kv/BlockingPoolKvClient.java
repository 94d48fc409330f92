package io.synod.bench.kv;

import io.synod.core.kv.KvCommand;
import io.synod.core.kv.KvResult;
import io.synod.core.paxos.ClientReply;
import io.synod.server.client.SynodClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * {@link KvClient} over the server module's minimal blocking {@link SynodClient}: a fixed pool of
 * worker threads, each with its own connection set and client id, runs one command at a time. The
 * number of commands in flight is therefore at most the pool size; callers bound it below that.
 * Each command follows NOT_LEADER hints and retries with the same (client id, sequence) until its
 * deadline, so a retried write is applied at most once.
 */
public final class BlockingPoolKvClient implements KvClient {
    private final Map<Integer, InetSocketAddress> servers;
    private final int threads;
    private final int deadlineMillis;
    private final ExecutorService pool;
    private final List<SynodClient> clients = new CopyOnWriteArrayList<>();
    private final ThreadLocal<SynodClient> client;

    /**
     * @param servers        every server's client address, by node id
     * @param threads        worker threads (= connections per server, = commands in flight at most)
     * @param deadlineMillis how long one command may take, retries included, before its outcome is unknown
     * @param clientIdBase   client ids are {@code clientIdBase + 1 .. clientIdBase + threads}; distinct per run
     */
    public BlockingPoolKvClient(Map<Integer, InetSocketAddress> servers, int threads, int deadlineMillis, long clientIdBase) {
        if (servers.isEmpty() || threads < 1 || deadlineMillis < 1 || clientIdBase < 0) {
            throw new IllegalArgumentException("need servers, threads >= 1, a deadline and a client id base >= 0");
        }
        this.servers = Map.copyOf(servers);
        this.threads = threads;
        this.deadlineMillis = deadlineMillis;
        AtomicInteger created = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "kv-client-" + created.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        AtomicInteger ids = new AtomicInteger();
        int socketTimeout = Math.min(deadlineMillis, 5_000);
        this.client = ThreadLocal.withInitial(() -> {
            SynodClient c = new SynodClient(this.servers, clientIdBase + ids.incrementAndGet(), socketTimeout, 16 << 20);
            clients.add(c);
            return c;
        });
    }

    @Override
    public CompletableFuture<Long> put(String key, byte[] value) {
        return call(new KvCommand.Put(key, value), r -> r.slot());
    }

    @Override
    public CompletableFuture<byte[]> get(String key) {
        return call(new KvCommand.Get(key), r -> {
            KvResult result = KvResult.decode(r.result());
            if (result instanceof KvResult.Value v) {
                return v.value();
            }
            return null;
        });
    }

    @Override
    public CompletableFuture<Long> append(String key, long element) {
        return call(new KvCommand.Append(key, element), r -> r.slot());
    }

    @Override
    public CompletableFuture<long[]> readList(String key) {
        return call(new KvCommand.ReadList(key), r -> {
            KvResult result = KvResult.decode(r.result());
            if (result instanceof KvResult.ListValue l) {
                return l.elements();
            }
            throw new IllegalStateException("read of list " + key + " answered " + result);
        });
    }

    private <T> CompletableFuture<T> call(KvCommand command, Function<SynodClient.Result, T> onOk) {
        CompletableFuture<T> future = new CompletableFuture<>();
        byte[] payload = command.encode();
        try {
            pool.execute(() -> {
                try {
                    SynodClient.Result r = client.get().execute(payload, deadlineMillis);
                    if (r.status() == ClientReply.Status.OK) {
                        KvResult result = KvResult.decode(r.result());
                        if (result instanceof KvResult.Error e) {
                            future.completeExceptionally(new RejectedException("state machine error: " + e.message()));
                        } else {
                            future.complete(onOk.apply(r));
                        }
                    } else if (r.status() == ClientReply.Status.REJECTED) {
                        future.completeExceptionally(new RejectedException("server rejected the command"));
                    } else {
                        future.completeExceptionally(new OutcomeUnknownException("final status " + r.status(), null));
                    }
                } catch (IOException e) {
                    future.completeExceptionally(new OutcomeUnknownException(e.getMessage(), e));
                } catch (RuntimeException e) {
                    future.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            future.completeExceptionally(new RejectedException("client closed"));
        }
        return future;
    }

    @Override
    public String description() {
        return "server module's blocking SynodClient, " + threads + " connections per server";
    }

    @Override
    public void close() {
        pool.shutdownNow();
        try {
            pool.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (SynodClient c : clients) {
            c.close();
        }
    }
}
