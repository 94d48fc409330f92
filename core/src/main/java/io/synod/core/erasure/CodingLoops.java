package io.synod.core.erasure;

import java.nio.ByteBuffer;

/**
 * The byte-crunching loops that run a {@link CodingPlan} over shard bytes.
 *
 * <p>Why this shape is faster than a plain "for each input, for each output, for each byte" loop:
 * <ul>
 *   <li>Several outputs share one pass over the inputs ({@link OutputGroup.Kind#PACKED}): one load
 *       from an input's packed 256-entry {@code long} row yields that input's term for up to eight
 *       outputs, so a (10,4) stripe byte costs 10 table loads instead of 40.</li>
 *   <li>Packed passes combine two inputs in registers, so an accumulator word is loaded and
 *       stored once per two inputs.</li>
 *   <li>A single output (P = 1 parity, one lost shard) is bound by table loads, one per input
 *       byte; where the plan has pair rows, one load from a 64 KiB row indexed by two input
 *       bytes serves two inputs.</li>
 *   <li>Work is cut into {@link #BLOCK_BYTES} blocks so the outputs or accumulators of a block and
 *       the input blocks it reads stay in the L1/L2 cache while all of a block's passes run.</li>
 *   <li>Each kernel is one plain counted loop, indexed by the output position with a fixed input
 *       delta: the shape the JIT compiles best. Unrolling by hand, two offsets per loop and
 *       several inputs per single-output loop all measured slower.</li>
 *   <li>An output whose coefficients are all 1 (e.g. the first parity of (3,2)) is a plain XOR,
 *       which the JIT turns into wide vector XORs.</li>
 * </ul>
 * All multiplication is by full-byte table lookup; no split-nibble (shuffle) technique is used.
 * Shards are {@code byte[]} (all at one common offset) or {@link ByteBuffer}s (each at its own
 * position). Heap buffers are coded through their backing arrays; if any buffer has no accessible
 * array (direct or read-only), the whole call takes the slower absolute get/put path. The packed
 * and buffer loops borrow their accumulator block from a {@link ScratchPool}, so nothing
 * allocates in steady state.
 */
final class CodingLoops {

    /** Positions per block: the packed accumulator block is 8 x this many bytes. */
    static final int BLOCK_BYTES = 2048;

    /**
     * How many inputs one packed pass combines in registers: two measured fastest (one re-reads
     * the accumulators too often, four loses more to register pressure than it saves).
     */
    private static final int INPUTS_PER_PASS = 2;

    /**
     * Bytes per call for XOR and single-output groups, which need no scratch: large enough that
     * per-call overhead vanishes (block size measured to make no difference for them).
     */
    private static final int STREAM_BYTES = 16 * 1024;

    private CodingLoops() {
    }

    /**
     * Computes the plan's outputs over {@code length} bytes: all of them, or with {@code dataOnly}
     * only the missing data shards.
     *
     * @param shards all shards, each a {@code byte[]} or a {@link ByteBuffer}
     * @param commonOffset start offset in every {@code byte[]} shard (buffers use their position)
     * @param scratch where the packed loop borrows its accumulator block
     */
    static void run(CodingPlan plan, boolean dataOnly, Object[] shards, int commonOffset, int length,
            ScratchPool scratch) {
        if (length == 0) {
            return;
        }
        int groupCount = dataOnly ? plan.dataGroupCount : plan.groups.length;
        if (allHaveArrays(shards)) {
            runOnArrays(plan, groupCount, shards, commonOffset, length, scratch);
        } else {
            runOnBuffers(plan, groupCount, shards, length, scratch);
        }
    }

    /**
     * Returns true if every output of the plan (the parity rows) equals the recomputed value. Reads
     * every byte at most once per output and stops at the first mismatch.
     */
    static boolean matches(CodingPlan plan, Object[] shards, int commonOffset, int length) {
        int[] inputs = plan.inputShardIndexes;
        int[] outputs = plan.outputShardIndexes;
        for (int out = 0; out < outputs.length; out++) {
            byte[][] rows = plan.multiplicationRows[out];
            Object expected = shards[outputs[out]];
            for (int i = 0; i < length; i++) {
                int sum = 0;
                for (int in = 0; in < inputs.length; in++) {
                    sum ^= rows[in][byteAt(shards[inputs[in]], commonOffset, i) & 0xFF];
                }
                if ((byte) sum != byteAt(expected, commonOffset, i)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean allHaveArrays(Object[] shards) {
        for (Object shard : shards) {
            if (shard instanceof ByteBuffer && !((ByteBuffer) shard).hasArray()) {
                return false;
            }
        }
        return true;
    }

    private static byte[] arrayOf(Object shard) {
        return shard instanceof byte[] ? (byte[]) shard : ((ByteBuffer) shard).array();
    }

    private static int offsetOf(Object shard, int commonOffset) {
        if (shard instanceof byte[]) {
            return commonOffset;
        }
        ByteBuffer buffer = (ByteBuffer) shard;
        return buffer.arrayOffset() + buffer.position();
    }

    private static byte byteAt(Object shard, int commonOffset, int i) {
        if (shard instanceof byte[]) {
            return ((byte[]) shard)[commonOffset + i];
        }
        ByteBuffer buffer = (ByteBuffer) shard;
        return buffer.get(buffer.position() + i);
    }

    private static void runOnArrays(CodingPlan plan, int groupCount, Object[] shards, int commonOffset,
            int length, ScratchPool scratch) {
        boolean packed = false;
        for (int g = 0; g < groupCount; g++) {
            packed |= plan.groups[g].kind == OutputGroup.Kind.PACKED;
        }
        long[] sums = packed ? scratch.take() : null;
        try {
            for (int g = 0; g < groupCount; g++) {
                OutputGroup group = plan.groups[g];
                int step = group.kind == OutputGroup.Kind.PACKED ? BLOCK_BYTES : STREAM_BYTES;
                for (int blockStart = 0; blockStart < length; blockStart += step) {
                    int blockLength = Math.min(step, length - blockStart);
                    switch (group.kind) {
                        case XOR:
                            xorGroup(plan, group, shards, commonOffset, blockStart, blockLength);
                            break;
                        case SINGLE:
                            singleGroup(plan, group, shards, commonOffset, blockStart, blockLength);
                            break;
                        default:
                            packedGroup(plan, group, shards, commonOffset, blockStart, blockLength, sums);
                            break;
                    }
                }
            }
        } finally {
            if (sums != null) {
                scratch.give(sums);
            }
        }
    }

    private static void xorGroup(CodingPlan plan, OutputGroup group, Object[] shards, int commonOffset,
            int blockStart, int blockLength) {
        int[] inputs = plan.inputShardIndexes;
        Object outShard = shards[plan.outputShardIndexes[group.outputs[0]]];
        byte[] outArray = arrayOf(outShard);
        int outOffset = offsetOf(outShard, commonOffset) + blockStart;
        Object first = shards[inputs[0]];
        System.arraycopy(arrayOf(first), offsetOf(first, commonOffset) + blockStart, outArray, outOffset, blockLength);
        for (int in = 1; in < inputs.length; in++) {
            Object shard = shards[inputs[in]];
            xorInto(arrayOf(shard), offsetOf(shard, commonOffset) + blockStart, outArray, outOffset, blockLength);
        }
    }

    private static void singleGroup(CodingPlan plan, OutputGroup group, Object[] shards, int commonOffset,
            int blockStart, int blockLength) {
        // One input per pass, the textbook order: combining inputs in one loop measured slower here
        // (the lookups, not the output traffic, bound a single output).
        int[] inputs = plan.inputShardIndexes;
        byte[][] rows = group.rows;
        Object outShard = shards[plan.outputShardIndexes[group.outputs[0]]];
        byte[] out = arrayOf(outShard);
        int q = offsetOf(outShard, commonOffset) + blockStart;
        int in = 0;
        if (group.pairRows != null) {
            for (; in + 1 < inputs.length; in += 2) {
                Object first = shards[inputs[in]];
                Object second = shards[inputs[in + 1]];
                pairInto(arrayOf(first), offsetOf(first, commonOffset) + blockStart,
                        arrayOf(second), offsetOf(second, commonOffset) + blockStart,
                        group.pairRows[in / 2], out, q, blockLength, in > 0);
            }
        }
        for (; in < inputs.length; in++) {
            Object shard = shards[inputs[in]];
            multiplyInto(arrayOf(shard), offsetOf(shard, commonOffset) + blockStart, rows[in], out, q, blockLength, in > 0);
        }
    }

    private static void pairInto(byte[] first, int p0, byte[] second, int p1, byte[] pairRow,
            byte[] out, int q, int length, boolean accumulate) {
        int delta0 = p0 - q;
        int delta1 = p1 - q;
        int end = q + length;
        if (accumulate) {
            for (int i = q; i < end; i++) {
                out[i] ^= pairRow[(first[i + delta0] & 0xFF) << 8 | (second[i + delta1] & 0xFF)];
            }
        } else {
            for (int i = q; i < end; i++) {
                out[i] = pairRow[(first[i + delta0] & 0xFF) << 8 | (second[i + delta1] & 0xFF)];
            }
        }
    }

    private static void packedGroup(CodingPlan plan, OutputGroup group, Object[] shards, int commonOffset,
            int blockStart, int blockLength, long[] sums) {
        int[] inputs = plan.inputShardIndexes;
        long[][] rows = group.packedRows;
        for (int in = 0; in < inputs.length; in += INPUTS_PER_PASS) {
            boolean accumulate = in > 0;
            Object s0 = shards[inputs[in]];
            byte[] a0 = arrayOf(s0);
            int o0 = offsetOf(s0, commonOffset) + blockStart;
            if (in + 1 < inputs.length) {
                Object s1 = shards[inputs[in + 1]];
                packed2(a0, o0, rows[in], arrayOf(s1), offsetOf(s1, commonOffset) + blockStart, rows[in + 1],
                        sums, blockLength, accumulate);
            } else {
                packed1(a0, o0, rows[in], sums, blockLength, accumulate);
            }
        }
        for (int lane = 0; lane < group.outputs.length; lane++) {
            Object outShard = shards[plan.outputShardIndexes[group.outputs[lane]]];
            unpack(sums, blockLength, Byte.SIZE * lane, arrayOf(outShard), offsetOf(outShard, commonOffset) + blockStart);
        }
    }

    /** Writes byte lane {@code shift / 8} of each sum to consecutive output bytes. */
    private static void unpack(long[] sums, int length, int shift, byte[] out, int q) {
        for (int i = 0; i < length; i++) {
            out[q + i] = (byte) (sums[i] >>> shift);
        }
    }

    private static void xorInto(byte[] in, int inOffset, byte[] out, int outOffset, int length) {
        int delta = inOffset - outOffset;
        int end = outOffset + length;
        for (int i = outOffset; i < end; i++) {
            out[i] ^= in[i + delta];
        }
    }

    private static void multiplyInto(byte[] in0, int p0, byte[] t0,
            byte[] out, int q, int length, boolean accumulate) {
        // One index over the output with a fixed input delta: measured ~25% faster than two offsets.
        int delta = p0 - q;
        int end = q + length;
        if (accumulate) {
            for (int i = q; i < end; i++) {
                out[i] ^= t0[in0[i + delta] & 0xFF];
            }
        } else {
            for (int i = q; i < end; i++) {
                out[i] = t0[in0[i + delta] & 0xFF];
            }
        }
    }

    private static void packed1(byte[] in0, int p0, long[] t0,
            long[] sums, int length, boolean accumulate) {
        if (accumulate) {
            for (int i = 0; i < length; i++) {
                sums[i] ^= t0[in0[p0 + i] & 0xFF];
            }
        } else {
            for (int i = 0; i < length; i++) {
                sums[i] = t0[in0[p0 + i] & 0xFF];
            }
        }
    }

    private static void packed2(byte[] in0, int p0, long[] t0, byte[] in1, int p1, long[] t1,
            long[] sums, int length, boolean accumulate) {
        if (accumulate) {
            for (int i = 0; i < length; i++) {
                sums[i] ^= t0[in0[p0 + i] & 0xFF] ^ t1[in1[p1 + i] & 0xFF];
            }
        } else {
            for (int i = 0; i < length; i++) {
                sums[i] = t0[in0[p0 + i] & 0xFF] ^ t1[in1[p1 + i] & 0xFF];
            }
        }
    }

    /**
     * Path for buffers without an accessible array (direct or read-only): absolute {@code get} and
     * {@code put} per byte, so it is slower than the array path. Every group accumulates in the
     * pooled {@code long} block (a byte lane per output), so each output byte is written once per
     * block and each input byte read once per group.
     */
    private static void runOnBuffers(CodingPlan plan, int groupCount, Object[] shards, int length,
            ScratchPool scratch) {
        int[] inputs = plan.inputShardIndexes;
        long[] sums = scratch.take();
        try {
            for (int blockStart = 0; blockStart < length; blockStart += BLOCK_BYTES) {
                int blockLength = Math.min(BLOCK_BYTES, length - blockStart);
                for (int g = 0; g < groupCount; g++) {
                    OutputGroup group = plan.groups[g];
                    for (int in = 0; in < inputs.length; in++) {
                        ByteBuffer input = (ByteBuffer) shards[inputs[in]];
                        int p = input.position() + blockStart;
                        boolean accumulate = in > 0;
                        switch (group.kind) {
                            case XOR:
                                for (int i = 0; i < blockLength; i++) {
                                    long term = input.get(p + i) & 0xFF;
                                    sums[i] = accumulate ? sums[i] ^ term : term;
                                }
                                break;
                            case SINGLE: {
                                byte[] row = group.rows[in];
                                for (int i = 0; i < blockLength; i++) {
                                    long term = row[input.get(p + i) & 0xFF] & 0xFF;
                                    sums[i] = accumulate ? sums[i] ^ term : term;
                                }
                                break;
                            }
                            default: {
                                long[] row = group.packedRows[in];
                                for (int i = 0; i < blockLength; i++) {
                                    long term = row[input.get(p + i) & 0xFF];
                                    sums[i] = accumulate ? sums[i] ^ term : term;
                                }
                                break;
                            }
                        }
                    }
                    for (int lane = 0; lane < group.outputs.length; lane++) {
                        ByteBuffer output = (ByteBuffer) shards[plan.outputShardIndexes[group.outputs[lane]]];
                        int q = output.position() + blockStart;
                        int shift = Byte.SIZE * lane;
                        for (int i = 0; i < blockLength; i++) {
                            output.put(q + i, (byte) (sums[i] >>> shift));
                        }
                    }
                }
            }
        } finally {
            scratch.give(sums);
        }
    }
}
