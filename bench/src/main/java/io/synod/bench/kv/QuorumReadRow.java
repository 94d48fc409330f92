package io.synod.bench.kv;

import io.synod.client.Consistency;
import io.synod.client.ServedBy;
import io.synod.client.SynodClient;
import io.synod.coordination.ShardMap;
import io.synod.leases.KeyAssignment;
import io.synod.server.cli.DemoCommand;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntUnaryOperator;

/**
 * The quorum-lease read row of {@code synod bench kv}: on one real 3-node cluster with
 * {@code lease=quorum} (Moraru et al., SoCC 2014; docs/leases.md, "On the server"), LINEARIZABLE
 * reads sent to a follower ({@code SynodClient.Builder.readFrom}) against reads through the log
 * ({@code Consistency.LOG}, to the leader, one replication round each), same keys, same load, same
 * run. The keys are ones the follower holds a lease on under the static hashed assignment (2 of 3
 * keys at N = 3): the row measures the reads a nearby holder can answer, not a mix. Every reply says
 * which path served it; the row reports how many follower-run reads were answered under a lease.
 */
final class QuorumReadRow {
    static final int NODES = 3;
    static final int GROUPS = 4;

    /** What the row measured; {@code reader} is the node the follower run read from. */
    record Result(int reader, LoadRun.Result log, LoadRun.Result follower, long leaseInFollowerRun, long readsInFollowerRun) {
        double ratio() {
            return follower.opsPerSecond() / log.opsPerSecond();
        }
    }

    private QuorumReadRow() {}

    static Result measure(Path clusterDir, int threads, int window, int keyCount, long warmup, long measure,
            IntUnaryOperator scramble, boolean insecure, PrintWriter out, Consumer<String> progress) throws Exception {
        try (ProcessCluster cluster = ProcessCluster.start(clusterDir, NODES, GROUPS, 4_000, List.of("lease=quorum"),
                out, false, insecure)) {
            // The reader: the node that leads the fewest groups, so most of its reads are follower reads.
            Map<Integer, Integer> leaders = cluster.leaders();
            int reader = 0;
            int fewest = Integer.MAX_VALUE;
            for (int node = 0; node < NODES; node++) {
                int led = Collections.frequency(leaders.values(), node);
                if (led < fewest) {
                    fewest = led;
                    reader = node;
                }
            }
            String[] keys = new String[keyCount];
            List<String> prefixes = new ArrayList<>(DemoCommand.prefixesPerGroup(ShardMap.uniform(GROUPS)).values());
            for (int i = 0, n = 0; n < keyCount; i++) {
                String key = prefixes.get(i % prefixes.size()) + "kvbench-" + i;
                if ((KeyAssignment.HASHED_MAJORITY.holders(key, NODES) & (1L << reader)) != 0) {
                    keys[n++] = key;
                }
            }
            List<InetSocketAddress> servers = new ArrayList<>(cluster.clientAddresses().values());
            try (SynodClient client = SynodClient.builder().servers(servers).timeout(Duration.ofSeconds(30))
                    .connectTimeout(Duration.ofSeconds(30)).maxInFlight(window).tls(cluster.clientTls()).build();
                 SynodClient near = SynodClient.builder().servers(servers).timeout(Duration.ofSeconds(30))
                         .connectTimeout(Duration.ofSeconds(30)).maxInFlight(window).readFrom(reader)
                         .tls(cluster.clientTls()).build()) {
                progress.accept(String.format("quorum reads: %d server processes, %d groups, lease=quorum (t_lease 1000 ms, "
                        + "guard 500 ms, renew 250 ms); reader node %d leads %d of %d groups; writing %d keys of 1 KiB "
                        + "it holds", NODES, GROUPS, reader, fewest, GROUPS, keyCount));
                LeaseReadRow.writeKeys(client, keys, window);
                LoadRun.Result log = LoadRun.run(threads, window, warmup, measure, i ->
                        client.get(keys[scramble.applyAsInt(i)], Consistency.LOG));
                progress.accept(String.format("quorum reads: read through the log (Consistency.LOG): %.0f ops/s, p50 %.2f ms, "
                        + "p99 %.2f ms, %d failed", log.opsPerSecond(), log.latency().medianMillis(), log.latency().p99Millis(),
                        log.failed()));
                AtomicLong leased = new AtomicLong();
                AtomicLong all = new AtomicLong();
                LoadRun.Result follower = LoadRun.run(threads, window, warmup, measure, i -> {
                    all.incrementAndGet();
                    return LeaseReadRow.count(near.get(keys[scramble.applyAsInt(i)], Consistency.LINEARIZABLE), ServedBy.LEASE, leased);
                });
                progress.accept(String.format("quorum reads: LINEARIZABLE via node %d: %.0f ops/s, p50 %.2f ms, p99 %.2f ms, "
                        + "%d failed, %d of %d answered under a lease", reader, follower.opsPerSecond(),
                        follower.latency().medianMillis(), follower.latency().p99Millis(), follower.failed(), leased.get(),
                        all.get()));
                return new Result(reader, log, follower, leased.get(), all.get());
            }
        }
    }

    /** Prints the row and its ratio, and writes {@code kv-quorum-reads.csv}. */
    static void report(Result r, Path dir, PrintWriter out) throws IOException {
        out.println();
        LeaseReadRow.printComparison(out, "quorum-lease row (synod-3x4, quorum)", "log reads", "follower", "fol./log",
                r.log(), r.follower(), r.ratio());
        out.printf("reads sent to node %d (a follower in most groups) of keys it holds: %d of %d answered under a lease "
                + "(the others by the leader after a refusal)%n", r.reader(), r.leaseInFollowerRun(), r.readsInFollowerRun());
        LeaseReadRow.comparisonCsv("log reads", "follower reads", "follower/log", r.log(), r.follower(), r.ratio())
                .write(dir.resolve("kv-quorum-reads.csv"));
        out.flush();
    }
}
