package io.synod.bench.erasure;

import io.synod.core.erasure.ReedSolomonCodec;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Single-thread throughput of {@link ReedSolomonCodec} on one in-cache stripe that is reused,
 * the way the Backblaze baseline in {@code backblaze-baseline-throughput.csv} was measured.
 * One operation codes one stripe; {@link CodecBenchmarkMain} turns ops/s into MB/s of data
 * (D x shard bytes per operation).
 *
 * <p>{@code decode1}/{@code decode2} rebuild data shard 0 (and 1) from the rest, like the
 * baseline's {@code decodeMissing} runs. {@code decode2} needs P &gt;= 2; run through the main
 * class, impossible combinations are skipped and reported.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ReedSolomonCodecBenchmark {

    /** Data and parity shard counts as "D+P". */
    @Param({"3+2", "4+1", "2+1", "6+3", "10+4"})
    public String config;

    /** Bytes per shard. */
    @Param({"1024", "65536", "1048576"})
    public int shardBytes;

    private ReedSolomonCodec codec;
    private byte[][] shards;
    private boolean[] presentExceptData0;
    private boolean[] presentExceptData0And1;

    @Setup
    public void setUp() {
        int data = dataShards(config);
        int parity = parityShards(config);
        codec = new ReedSolomonCodec(data, parity);
        shards = new byte[data + parity][shardBytes];
        Random random = new Random(42);
        for (int s = 0; s < data; s++) {
            random.nextBytes(shards[s]);
        }
        codec.encodeParity(shards, 0, shardBytes);
        presentExceptData0 = new boolean[data + parity];
        java.util.Arrays.fill(presentExceptData0, true);
        presentExceptData0[0] = false;
        presentExceptData0And1 = presentExceptData0.clone();
        if (data >= 2 && parity >= 2) {
            presentExceptData0And1[1] = false;
        }
    }

    @Benchmark
    public byte[][] encode() {
        codec.encodeParity(shards, 0, shardBytes);
        return shards;
    }

    @Benchmark
    public byte[][] decode1() {
        codec.reconstruct(shards, presentExceptData0, 0, shardBytes);
        return shards;
    }

    @Benchmark
    public byte[][] decode2() {
        if (presentExceptData0And1[1]) { // setUp could not mark shard 1 absent
            throw new IllegalStateException("decode2 needs D >= 2 and P >= 2, got " + config
                    + ": two missing data shards cannot be rebuilt");
        }
        codec.reconstruct(shards, presentExceptData0And1, 0, shardBytes);
        return shards;
    }

    static int dataShards(String config) {
        return Integer.parseInt(config.substring(0, config.indexOf('+')));
    }

    static int parityShards(String config) {
        return Integer.parseInt(config.substring(config.indexOf('+') + 1));
    }
}
