package io.synod.bench.jmh;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.protocol.KvCommand;
import io.synod.server.cli.DemoCommand;
import io.synod.server.log.NodeLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The durable log's group commit: append {@code batch} entries of one group to a {@link NodeLog} in a temporary
 * directory, then one fsync ({@code sync}), as a group's runner does per Ready. One operation = one batch;
 * entries per second = ops/s x batch. Segments are preallocated (64 MiB) and rolled as they fill; old
 * ones are deleted so the directory stays small.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LogAppendBenchmark {
    @Param({"1", "64"})
    public int batch;

    @Param({"1024"})
    public int valueBytes;

    private Path dir;
    private NodeLog log;
    private Entry[] template;
    private long slot;

    @Setup(Level.Trial)
    public void open() throws IOException {
        dir = Files.createTempDirectory("synod-jmh-log");
        log = NodeLog.open(dir, 64L << 20);
        Ballot ballot = new Ballot(1, 0);
        template = new Entry[batch];
        for (int i = 0; i < batch; i++) {
            template[i] = new Entry(1, ballot, new Command(42, 1, new KvCommand.Put("key-" + i, new byte[valueBytes]).encode()));
        }
    }

    @Benchmark
    public long appendBatchAndSync() {
        List<Entry> entries = new ArrayList<>(template.length);
        for (Entry t : template) {
            slot++;
            entries.add(new Entry(slot, t.ballot(), t.command()));
        }
        log.syncThrough(log.append(0, entries));
        if (slot % 65_536 < batch) {
            log.compacted(0, slot - batch);
        }
        return slot;
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        log.close();
        DemoCommand.deleteTree(dir);
    }
}
