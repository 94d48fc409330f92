package io.synod.bench.jmh;

import io.synod.protocol.KvCommand;
import io.synod.server.cli.DemoCommand;
import io.synod.server.state.RocksKvStateMachine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * Applying committed commands to the RocksDB state machine ({@link RocksKvStateMachine} in a temporary
 * directory): one operation applies {@code batch} puts of {@code valueBytes} over 10,000 keys, as a
 * group's loop applies a committed batch (each command is one RocksDB WriteBatch with the applied slot).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RocksApplyBenchmark {
    @Param({"64"})
    public int batch;

    @Param({"128", "1024"})
    public int valueBytes;

    private Path dir;
    private RocksKvStateMachine machine;
    private byte[][] payloads;
    private long slot;

    @Setup(Level.Trial)
    public void open() throws IOException {
        dir = Files.createTempDirectory("synod-jmh-rocks");
        machine = new RocksKvStateMachine(dir.resolve("rocksdb"));
        payloads = new byte[10_000][];
        for (int i = 0; i < payloads.length; i++) {
            payloads[i] = new KvCommand.Put("key-" + i, new byte[valueBytes]).encode();
        }
    }

    @Benchmark
    public long applyBatch() {
        for (int i = 0; i < batch; i++) {
            slot++;
            machine.apply(slot, payloads[(int) (slot % payloads.length)]);
        }
        return slot;
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        machine.close();
        DemoCommand.deleteTree(dir);
    }
}
