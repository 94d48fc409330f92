package io.synod.bench.torture;

import io.synod.bench.kv.KvClient;
import io.synod.coordination.ShardMap;
import io.synod.core.check.CheckResult;
import io.synod.core.check.LinearizabilityChecker;
import io.synod.core.check.Verdict;
import io.synod.core.history.History;
import io.synod.core.history.HistoryJson;
import io.synod.server.cli.DemoCommand;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The workload and the end-of-run checks of the real-process fault runs ({@code synod torture},
 * {@code synod nemesis}): client threads doing list appends (60 %) and whole-list reads over keys
 * spread across the groups, every operation recorded in one history; then a final read of every key,
 * the lost-write check (every acknowledged append is in its key's final list) and the linearizability
 * check of the whole history, written to {@code DIR/history.jsonl} (docs/history-format.md).
 */
final class ListAppendWorkload {
    /** What the end-of-run checks found. */
    record Outcome(long acknowledged, long lost, List<String> unreadable, CheckResult check, int keys, double checkSeconds,
            Path historyFile, long longestGapNanos) {
        boolean ok(SharedHistory history) {
            return lost == 0 && unreadable.isEmpty() && check.verdict() == Verdict.LINEARIZABLE && history.ok() > 0;
        }
    }

    private final int clients;
    private final int keys;
    private final int appendsPerKey;
    private final int opTimeoutMillis;
    private final KeySpace keySpace;
    private final SharedHistory history = new SharedHistory();
    private final Map<String, Set<Long>> acknowledged = new ConcurrentHashMap<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong nextValue = new AtomicLong(1);
    private final List<Thread> workers = new ArrayList<>();
    private long workloadFrom;
    private long workloadTo;

    ListAppendWorkload(int groups, int clients, int keys, int appendsPerKey, int opTimeoutMillis) {
        this.clients = clients;
        this.keys = keys;
        this.appendsPerKey = appendsPerKey;
        this.opTimeoutMillis = opTimeoutMillis;
        this.keySpace = new KeySpace(groups);
    }

    SharedHistory history() {
        return history;
    }

    /** Starts one thread per client process, each with its own seed drawn from {@code random}. */
    void start(KvClient client, Random random) {
        for (int p = 0; p < clients; p++) {
            int process = p;
            long workerSeed = random.nextLong();
            Thread t = new Thread(() -> workload(process, new Random(workerSeed), client), "workload-client-" + p);
            t.setDaemon(true);
            workers.add(t);
        }
        workloadFrom = history.nowNanos();
        workers.forEach(Thread::start);
    }

    /** Tells the clients to stop and waits for them (each finishes its operation in flight). */
    void stop() throws InterruptedException {
        stop.set(true);
        for (Thread t : workers) {
            t.join(opTimeoutMillis + 10_000L);
        }
        workloadTo = history.nowNanos();
        for (Thread t : workers) {
            if (t.isAlive()) {
                throw new IllegalStateException("client thread " + t.getName() + " did not stop");
            }
        }
    }

    /**
     * Final reads (recorded in the history too, as one more process, retried until they succeed), the
     * lost-write check, the history file and the linearizability check. Call after {@link #stop()}.
     */
    Outcome finish(KvClient client, Path dir, PrintWriter out) throws IOException, InterruptedException {
        Map<String, long[]> finalLists = new ConcurrentHashMap<>();
        List<String> keyNames = keySpace.allKeys();
        for (String key : keyNames) {
            long[] list = finalRead(client, key, clients);
            if (list != null) {
                finalLists.put(key, list);
            }
        }
        long lost = 0;
        long ackedTotal = 0;
        List<String> unreadable = new ArrayList<>();
        for (String key : keyNames) {
            Set<Long> acked = acknowledged.getOrDefault(key, Set.of());
            ackedTotal += acked.size();
            long[] list = finalLists.get(key);
            if (list == null) {
                unreadable.add(key);
                continue;
            }
            Set<Long> present = new HashSet<>();
            for (long v : list) {
                present.add(v);
            }
            for (long v : acked) {
                if (!present.contains(v)) {
                    lost++;
                    if (lost <= 10) {
                        out.printf("LOST: append %d to %s was acknowledged but is not in the final list%n", v, key);
                    }
                }
            }
        }
        History h = history.history();
        Path file = dir.resolve("history.jsonl");
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            HistoryJson.write(h, w);
        }
        out.printf("wrote %s (%d events); checking linearizability%n", file, h.events().size());
        out.flush();
        long c0 = System.nanoTime();
        CheckResult result = new LinearizabilityChecker().check(h);
        double checkSeconds = (System.nanoTime() - c0) / 1e9;
        return new Outcome(ackedTotal, lost, unreadable, result, keyNames.size(), checkSeconds, file,
                history.longestGapNanos(workloadFrom, workloadTo));
    }

    /** The summary lines both runs print: operations, acknowledged writes, checker, longest gap, history file. */
    void printSummary(PrintWriter out, Outcome o) {
        out.printf("  operations:          ok %d, fail %d, info %d (unknown outcome)%n", history.ok(), history.failed(),
                history.info());
        out.printf("  acknowledged writes: %d appends, lost %d%s%n", o.acknowledged(), o.lost(),
                o.unreadable().isEmpty() ? "" : " (final read failed for " + o.unreadable() + ")");
        out.printf("  checker:             %s (%d keys, %.2f s)%n", o.check().verdict(), o.keys(), o.checkSeconds());
        out.printf("  longest unavailable: %.2f s with no operation completing%n", o.longestGapNanos() / 1e9);
        out.printf("  history:             %s%n", o.historyFile());
    }

    /**
     * The keys in use: slot i holds one key at a time, its first character sending it to group i mod G
     * under the uniform shard map. After {@code appendsPerKey} appends a slot moves on to a fresh
     * key, so lists stay short: every read's whole list is kept in the history, and lists that grow
     * for the whole run made a 200-kill history exhaust the heap.
     */
    private final class KeySpace {
        private final List<String> prefixes;
        private final AtomicReferenceArray<String> current;
        private final AtomicIntegerArray appends;
        private final Set<String> all = ConcurrentHashMap.newKeySet();

        KeySpace(int groups) {
            prefixes = new ArrayList<>(DemoCommand.prefixesPerGroup(ShardMap.uniform(groups)).values());
            current = new AtomicReferenceArray<>(keys);
            appends = new AtomicIntegerArray(keys);
            for (int i = 0; i < keys; i++) {
                current.set(i, name(i, 0));
                all.add(current.get(i));
            }
        }

        private String name(int slot, int generation) {
            return prefixes.get(slot % prefixes.size()) + "torture-" + slot + "-" + generation;
        }

        String key(int slot) {
            return current.get(slot);
        }

        /** Counts an append issued in {@code slot}; the slot's next operation may use a fresh key. */
        void appended(int slot) {
            int n = appends.incrementAndGet(slot);
            if (n % appendsPerKey == 0) {
                String next = name(slot, n / appendsPerKey);
                all.add(next);
                current.set(slot, next);
            }
        }

        List<String> allKeys() {
            return all.stream().sorted().toList();
        }
    }

    private void workload(int process, Random random, KvClient client) {
        // Bounded: a client stops when told to, or after this many operations.
        for (int i = 0; i < 10_000_000 && !stop.get(); i++) {
            int slot = random.nextInt(keys);
            String key = keySpace.key(slot);
            if (random.nextInt(100) < 60) {
                long value = nextValue.getAndIncrement();
                int op = history.invokeAppend(process, key, value);
                keySpace.appended(slot);
                try {
                    client.append(key, value).get(opTimeoutMillis + 5_000L, TimeUnit.MILLISECONDS);
                    history.okAppend(op);
                    acknowledged.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(value);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof KvClient.RejectedException) {
                        history.fail(op);
                    } else {
                        history.info(op);
                    }
                } catch (TimeoutException e) {
                    history.info(op);
                } catch (InterruptedException e) {
                    history.info(op);
                    return;
                }
            } else {
                int op = history.invokeRead(process, key);
                try {
                    long[] list = client.readList(key).get(opTimeoutMillis + 5_000L, TimeUnit.MILLISECONDS);
                    history.okRead(op, list);
                } catch (ExecutionException | TimeoutException e) {
                    history.info(op);
                } catch (InterruptedException e) {
                    history.info(op);
                    return;
                }
            }
        }
    }

    private long[] finalRead(KvClient client, String key, int process) throws InterruptedException {
        for (int attempt = 0; attempt < 10; attempt++) {
            int op = history.invokeRead(process, key);
            try {
                long[] list = client.readList(key).get(opTimeoutMillis + 5_000L, TimeUnit.MILLISECONDS);
                history.okRead(op, list);
                return list;
            } catch (ExecutionException | TimeoutException e) {
                history.info(op);
            }
        }
        return null;
    }
}
