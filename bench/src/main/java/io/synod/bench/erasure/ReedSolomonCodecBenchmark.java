package io.synod.bench.erasure;

import io.synod.core.erasure.ReedSolomonCodec;
import java.util.Arrays;
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

    private TextbookCodingLoop textbookEncode;
    private byte[][] dataShards;
    private byte[][] parityShards;
    private TextbookCodingLoop textbookDecode1;
    private byte[][] decode1Inputs;
    private byte[][] decode1Outputs;
    private TextbookCodingLoop textbookDecode2;
    private byte[][] decode2Inputs;
    private byte[][] decode2Outputs;

    /** Builds the codec and one encoded stripe of random data, and checks the textbook loop against it. */
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
        Arrays.fill(presentExceptData0, true);
        presentExceptData0[0] = false;
        presentExceptData0And1 = presentExceptData0.clone();
        if (data >= 2 && parity >= 2) {
            presentExceptData0And1[1] = false;
        }

        textbookEncode = TextbookCodingLoop.parity(codec);
        dataShards = Arrays.copyOfRange(shards, 0, data);
        parityShards = Arrays.copyOfRange(shards, data, data + parity);
        textbookDecode1 = TextbookCodingLoop.rebuild(codec, presentExceptData0);
        decode1Inputs = select(TextbookCodingLoop.inputsFor(codec, presentExceptData0));
        decode1Outputs = new byte[][] {shards[0]};
        if (!presentExceptData0And1[1]) {
            textbookDecode2 = TextbookCodingLoop.rebuild(codec, presentExceptData0And1);
            decode2Inputs = select(TextbookCodingLoop.inputsFor(codec, presentExceptData0And1));
            decode2Outputs = new byte[][] {shards[0], shards[1]};
        }
        checkTextbookMatchesCodec();
    }

    /** The reference must compute the same bytes, or comparing speeds would mean nothing. */
    private void checkTextbookMatchesCodec() {
        byte[][] expected = new byte[shards.length][];
        for (int s = 0; s < shards.length; s++) {
            expected[s] = shards[s].clone();
        }
        textbookEncode();
        textbookDecode1();
        if (textbookDecode2 != null) {
            textbookDecode2();
        }
        requireShards(expected, "textbook loop disagrees with the codec");
        // The codec's own rebuilds too (this also builds their decode plans here, untimed, as the
        // real workload's plan cache would have them).
        encode();
        decode1();
        if (textbookDecode2 != null) {
            decode2();
        }
        requireShards(expected, "codec rebuild is wrong");
    }

    private void requireShards(byte[][] expected, String problem) {
        for (int s = 0; s < shards.length; s++) {
            if (!Arrays.equals(expected[s], shards[s])) {
                throw new IllegalStateException(problem + " on shard " + s + " for " + config);
            }
        }
    }

    private byte[][] select(int[] indexes) {
        byte[][] selected = new byte[indexes.length][];
        for (int i = 0; i < indexes.length; i++) {
            selected[i] = shards[indexes[i]];
        }
        return selected;
    }

    /** Our codec computing the parity. */
    @Benchmark
    public byte[][] encode() {
        codec.encodeParity(shards, 0, shardBytes);
        return shards;
    }

    /** Our codec rebuilding data shard 0. */
    @Benchmark
    public byte[][] decode1() {
        codec.reconstruct(shards, presentExceptData0, 0, shardBytes);
        return shards;
    }

    /** Our codec rebuilding data shards 0 and 1 (needs P >= 2). */
    @Benchmark
    public byte[][] decode2() {
        if (presentExceptData0And1[1]) { // setUp could not mark shard 1 absent
            throw new IllegalStateException("decode2 needs D >= 2 and P >= 2, got " + config
                    + ": two missing data shards cannot be rebuilt");
        }
        codec.reconstruct(shards, presentExceptData0And1, 0, shardBytes);
        return shards;
    }

    /** Same-run reference: {@link TextbookCodingLoop} computing the parity. */
    @Benchmark
    public byte[][] textbookEncode() {
        textbookEncode.code(dataShards, parityShards, shardBytes);
        return parityShards;
    }

    /** Same-run reference: {@link TextbookCodingLoop} rebuilding data shard 0. */
    @Benchmark
    public byte[][] textbookDecode1() {
        textbookDecode1.code(decode1Inputs, decode1Outputs, shardBytes);
        return decode1Outputs;
    }

    /** Same-run reference: {@link TextbookCodingLoop} rebuilding data shards 0 and 1. */
    @Benchmark
    public byte[][] textbookDecode2() {
        if (textbookDecode2 == null) {
            throw new IllegalStateException("textbookDecode2 needs D >= 2 and P >= 2, got " + config);
        }
        textbookDecode2.code(decode2Inputs, decode2Outputs, shardBytes);
        return decode2Outputs;
    }

    static int dataShards(String config) {
        return Integer.parseInt(config.substring(0, config.indexOf('+')));
    }

    static int parityShards(String config) {
        return Integer.parseInt(config.substring(config.indexOf('+') + 1));
    }
}
