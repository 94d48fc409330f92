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
 *   <li>An output computed by a {@link ShardRelations relation} ({@link OutputGroup.Kind#SUM})
 *       XORs equal-weight shards with wide vector XORs and multiplies each weight once, or is
 *       built in the Horner form from vectorised doublings and XORs plus one lookup pass.</li>
 *   <li>Any other single output is bound by table loads, one per input byte, through the
 *       bounds-check-free {@link GaloisField#PRODUCTS} table, four inputs per loop; where the plan
 *       has pair rows, one load from a 64 KiB row indexed by two input bytes serves two inputs.</li>
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

    /**
     * Bytes per block for SUM groups: the output block (and the two scratch term blocks) are
     * rewritten by every wide pass, so they should stay in L1/L2, while each pass is long enough
     * that its call overhead is small (2 KiB blocks measured clearly slower).
     */
    static final int SUM_BYTES = 8 * 1024;

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
            BufferCodingLoops.run(plan, groupCount, shards, length, scratch);
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
            int length, ScratchPool pool) {
        boolean needsScratch = false;
        for (int g = 0; g < groupCount; g++) {
            OutputGroup group = plan.groups[g];
            needsScratch |= group.kind == OutputGroup.Kind.PACKED
                    || (group.kind == OutputGroup.Kind.SUM && group.hornerScale == 0);
        }
        ScratchPool.Scratch scratch = needsScratch ? pool.take() : null;
        try {
            for (int g = 0; g < groupCount; g++) {
                OutputGroup group = plan.groups[g];
                int step = group.kind == OutputGroup.Kind.PACKED ? BLOCK_BYTES
                        : group.kind != OutputGroup.Kind.SUM ? STREAM_BYTES
                        : SUM_BYTES;
                for (int blockStart = 0; blockStart < length; blockStart += step) {
                    int blockLength = Math.min(step, length - blockStart);
                    switch (group.kind) {
                        case XOR:
                            xorGroup(plan, group, shards, commonOffset, blockStart, blockLength);
                            break;
                        case SINGLE:
                            singleGroup(plan, group, shards, commonOffset, blockStart, blockLength);
                            break;
                        case SUM:
                            if (group.hornerScale == 0) {
                                sumGroup(plan, group, shards, commonOffset, blockStart, blockLength, scratch.terms);
                            } else {
                                hornerGroup(plan, group, shards, commonOffset, blockStart, blockLength);
                            }
                            break;
                        default:
                            packedGroup(plan, group, shards, commonOffset, blockStart, blockLength, scratch.sums);
                            break;
                    }
                }
            }
        } finally {
            if (scratch != null) {
                pool.give(scratch);
            }
        }
    }

    private static void xorGroup(CodingPlan plan, OutputGroup group, Object[] shards, int commonOffset,
            int blockStart, int blockLength) {
        Object outShard = shards[plan.outputShardIndexes[group.outputs[0]]];
        xorShards(plan.inputShardIndexes, shards, commonOffset, blockStart, blockLength,
                arrayOf(outShard), offsetOf(outShard, commonOffset) + blockStart);
    }

    /** Writes the XOR of the given shards' bytes [blockStart, blockStart + length) to out[q...]. */
    private static void xorShards(int[] indexes, Object[] shards, int commonOffset, int blockStart, int length,
            byte[] out, int q) {
        // Copy, then one shard per loop: a loop reading two shards measured 3x slower (the JIT
        // vectorises a single-input XOR loop but not this two-input one).
        Object first = shards[indexes[0]];
        System.arraycopy(arrayOf(first), offsetOf(first, commonOffset) + blockStart, out, q, length);
        for (int k = 1; k < indexes.length; k++) {
            Object shard = shards[indexes[k]];
            xorInto(arrayOf(shard), offsetOf(shard, commonOffset) + blockStart, out, q, length);
        }
    }

    private static void singleGroup(CodingPlan plan, OutputGroup group, Object[] shards, int commonOffset,
            int blockStart, int blockLength) {
        int[] inputs = plan.inputShardIndexes;
        int[] coefficients = group.coefficients;
        Object outShard = shards[plan.outputShardIndexes[group.outputs[0]]];
        byte[] out = arrayOf(outShard);
        int q = offsetOf(outShard, commonOffset) + blockStart;
        int in = 0;
        if (group.pairRows != null) {
            // Chunks of four inputs: a pair row for the first two (one lookup) and the product
            // table for the other two, all in one loop, so the output is written once per chunk.
            for (; in + 1 < inputs.length; in += 4) {
                Object first = shards[inputs[in]];
                Object second = shards[inputs[in + 1]];
                byte[] pairRow = group.pairRows[in / 4];
                byte[] a0 = arrayOf(first);
                int p0 = offsetOf(first, commonOffset) + blockStart;
                byte[] a1 = arrayOf(second);
                int p1 = offsetOf(second, commonOffset) + blockStart;
                int rest = Math.min(2, inputs.length - in - 2);
                if (rest == 2) {
                    Object third = shards[inputs[in + 2]];
                    Object fourth = shards[inputs[in + 3]];
                    pairProducts2(a0, p0, a1, p1, pairRow,
                            arrayOf(third), offsetOf(third, commonOffset) + blockStart, coefficients[in + 2],
                            arrayOf(fourth), offsetOf(fourth, commonOffset) + blockStart, coefficients[in + 3],
                            out, q, blockLength, in > 0);
                } else if (rest == 1) {
                    Object third = shards[inputs[in + 2]];
                    pairProducts1(a0, p0, a1, p1, pairRow,
                            arrayOf(third), offsetOf(third, commonOffset) + blockStart, coefficients[in + 2],
                            out, q, blockLength, in > 0);
                } else {
                    pairInto(a0, p0, a1, p1, pairRow, out, q, blockLength, in > 0);
                }
            }
            if (in != inputs.length - 1) {
                return; // every input done; else one is left (D = 4k + 1) for the loop below
            }
        }
        // Without pair rows: up to four inputs per loop through the bounds-check-free product table,
        // so the output is read and written once per four inputs.
        while (in < inputs.length) {
            Object s0 = shards[inputs[in]];
            byte[] a0 = arrayOf(s0);
            int p0 = offsetOf(s0, commonOffset) + blockStart;
            if (in + 3 < inputs.length) {
                Object s1 = shards[inputs[in + 1]];
                Object s2 = shards[inputs[in + 2]];
                Object s3 = shards[inputs[in + 3]];
                products4(a0, p0, coefficients[in],
                        arrayOf(s1), offsetOf(s1, commonOffset) + blockStart, coefficients[in + 1],
                        arrayOf(s2), offsetOf(s2, commonOffset) + blockStart, coefficients[in + 2],
                        arrayOf(s3), offsetOf(s3, commonOffset) + blockStart, coefficients[in + 3],
                        out, q, blockLength, in > 0);
                in += 4;
            } else if (in + 1 < inputs.length) {
                Object s1 = shards[inputs[in + 1]];
                products2(a0, p0, coefficients[in], arrayOf(s1), offsetOf(s1, commonOffset) + blockStart,
                        coefficients[in + 1], out, q, blockLength, in > 0);
                in += 2;
            } else {
                products1(a0, p0, coefficients[in], out, q, blockLength, in > 0);
                in++;
            }
        }
    }

    /**
     * One block of a {@link OutputGroup.Kind#SUM} group: the weight-1 term XOR-ed straight into the
     * output, then the other terms two per loop, each term's shards XOR-ed into a scratch block
     * first when it has more than one.
     */
    private static void sumGroup(CodingPlan plan, OutputGroup group, Object[] shards, int commonOffset,
            int blockStart, int blockLength, byte[] terms) {
        Object outShard = shards[plan.outputShardIndexes[group.outputs[0]]];
        byte[] out = arrayOf(outShard);
        int q = offsetOf(outShard, commonOffset) + blockStart;
        int[] coefficients = group.termCoefficients;
        int[][] termShards = group.termShards;
        int term = 0;
        boolean accumulate = false;
        if (coefficients[0] == 1) {
            xorShards(termShards[0], shards, commonOffset, blockStart, blockLength, out, q);
            term = 1;
            accumulate = true;
        }
        int half = terms.length / 2;
        for (; term < coefficients.length; term += 2) {
            byte[] a;
            int pa;
            if (termShards[term].length == 1) {
                Object s = shards[termShards[term][0]];
                a = arrayOf(s);
                pa = offsetOf(s, commonOffset) + blockStart;
            } else {
                xorShards(termShards[term], shards, commonOffset, blockStart, blockLength, terms, 0);
                a = terms;
                pa = 0;
            }
            if (term + 1 == coefficients.length) {
                products1(a, pa, coefficients[term], out, q, blockLength, accumulate);
                break;
            }
            byte[] b;
            int pb;
            if (termShards[term + 1].length == 1) {
                Object s = shards[termShards[term + 1][0]];
                b = arrayOf(s);
                pb = offsetOf(s, commonOffset) + blockStart;
            } else {
                xorShards(termShards[term + 1], shards, commonOffset, blockStart, blockLength, terms, half);
                b = terms;
                pb = half;
            }
            products2(a, pa, coefficients[term], b, pb, coefficients[term + 1], out, q, blockLength, accumulate);
            accumulate = true;
        }
    }

    /**
     * One block of a SUM group in the Horner form: from the highest bit of the weights down, double
     * the output block and XOR in every shard whose term's weight has that bit; then multiply by
     * the scale. Every pass is a plain loop over bytes that the JIT turns into wide vector code.
     */
    private static void hornerGroup(CodingPlan plan, OutputGroup group, Object[] shards, int commonOffset,
            int blockStart, int blockLength) {
        Object outShard = shards[plan.outputShardIndexes[group.outputs[0]]];
        byte[] out = arrayOf(outShard);
        int q = offsetOf(outShard, commonOffset) + blockStart;
        int[] weights = group.hornerWeights;
        int[][] termShards = group.termShards;
        boolean written = false;
        for (int bit = group.hornerTopBit; bit >= 0; bit--) {
            if (written) {
                doubleInPlace(out, q, blockLength);
            }
            for (int term = 0; term < weights.length; term++) {
                if ((weights[term] & (1 << bit)) == 0) {
                    continue;
                }
                for (int shardIndex : termShards[term]) {
                    Object shard = shards[shardIndex];
                    if (written) {
                        xorInto(arrayOf(shard), offsetOf(shard, commonOffset) + blockStart, out, q, blockLength);
                    } else {
                        System.arraycopy(arrayOf(shard), offsetOf(shard, commonOffset) + blockStart, out, q, blockLength);
                        written = true;
                    }
                }
            }
        }
        if (group.hornerScale != 1) {
            productsInPlace(out, q, group.hornerScale, blockLength);
        }
    }

    /**
     * out[i] = 2 * out[i] in GF(2^8): shift left, and XOR the low byte of the polynomial 0x11D if
     * the top bit was set. Written with {@code s + s} and {@code s >> 31} on the sign-extended byte
     * because that form is the one the JIT vectorises (measured: about 13 GB/s against 1.7 GB/s
     * for the {@code s << 1} / {@code s >> 7} form).
     */
    private static void doubleInPlace(byte[] out, int q, int length) {
        int end = q + length;
        for (int i = q; i < end; i++) {
            int s = out[i];
            out[i] = (byte) ((s + s) ^ ((s >> 31) & (GaloisField.REDUCTION_POLYNOMIAL & 0xFF)));
        }
    }

    private static void productsInPlace(byte[] out, int q, int c, int length) {
        int b = (c & 0xFF) * 256;
        int end = q + length;
        for (int i = q; i < end; i++) {
            out[i] = GaloisField.PRODUCTS[b + (out[i] & 0xFF)];
        }
    }

    private static void pairProducts1(byte[] first, int p0, byte[] second, int p1, byte[] pairRow,
            byte[] in2, int p2, int c2, byte[] out, int q, int length, boolean accumulate) {
        int delta0 = p0 - q;
        int delta1 = p1 - q;
        int delta2 = p2 - q;
        int b2 = (c2 & 0xFF) * 256;
        int end = q + length;
        if (accumulate) {
            for (int i = q; i < end; i++) {
                out[i] ^= (byte) (pairRow[(first[i + delta0] & 0xFF) << 8 | (second[i + delta1] & 0xFF)]
                        ^ GaloisField.PRODUCTS[b2 + (in2[i + delta2] & 0xFF)]);
            }
        } else {
            for (int i = q; i < end; i++) {
                out[i] = (byte) (pairRow[(first[i + delta0] & 0xFF) << 8 | (second[i + delta1] & 0xFF)]
                        ^ GaloisField.PRODUCTS[b2 + (in2[i + delta2] & 0xFF)]);
            }
        }
    }

    private static void pairProducts2(byte[] first, int p0, byte[] second, int p1, byte[] pairRow,
            byte[] in2, int p2, int c2, byte[] in3, int p3, int c3, byte[] out, int q, int length, boolean accumulate) {
        int delta0 = p0 - q;
        int delta1 = p1 - q;
        int delta2 = p2 - q;
        int delta3 = p3 - q;
        int b2 = (c2 & 0xFF) * 256;
        int b3 = (c3 & 0xFF) * 256;
        int end = q + length;
        if (accumulate) {
            for (int i = q; i < end; i++) {
                out[i] ^= (byte) (pairRow[(first[i + delta0] & 0xFF) << 8 | (second[i + delta1] & 0xFF)]
                        ^ GaloisField.PRODUCTS[b2 + (in2[i + delta2] & 0xFF)]
                        ^ GaloisField.PRODUCTS[b3 + (in3[i + delta3] & 0xFF)]);
            }
        } else {
            for (int i = q; i < end; i++) {
                out[i] = (byte) (pairRow[(first[i + delta0] & 0xFF) << 8 | (second[i + delta1] & 0xFF)]
                        ^ GaloisField.PRODUCTS[b2 + (in2[i + delta2] & 0xFF)]
                        ^ GaloisField.PRODUCTS[b3 + (in3[i + delta3] & 0xFF)]);
            }
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

    // The products loops index GaloisField.PRODUCTS with c * 256 + (x & 0xFF), c in 0..255: the
    // JIT knows that array's length and the index range, so it drops the per-byte bounds check a
    // separate 256-entry row per coefficient needs. One index over the output with a fixed input
    // delta: measured ~25% faster than two offsets.

    private static void products1(byte[] in0, int p0, int c0, byte[] out, int q, int length, boolean accumulate) {
        int b0 = (c0 & 0xFF) * 256;
        int d0 = p0 - q;
        int end = q + length;
        if (accumulate) {
            for (int i = q; i < end; i++) {
                out[i] ^= GaloisField.PRODUCTS[b0 + (in0[i + d0] & 0xFF)];
            }
        } else {
            for (int i = q; i < end; i++) {
                out[i] = GaloisField.PRODUCTS[b0 + (in0[i + d0] & 0xFF)];
            }
        }
    }

    private static void products2(byte[] in0, int p0, int c0, byte[] in1, int p1, int c1,
            byte[] out, int q, int length, boolean accumulate) {
        int b0 = (c0 & 0xFF) * 256;
        int b1 = (c1 & 0xFF) * 256;
        int d0 = p0 - q;
        int d1 = p1 - q;
        int end = q + length;
        if (accumulate) {
            for (int i = q; i < end; i++) {
                out[i] ^= (byte) (GaloisField.PRODUCTS[b0 + (in0[i + d0] & 0xFF)]
                        ^ GaloisField.PRODUCTS[b1 + (in1[i + d1] & 0xFF)]);
            }
        } else {
            for (int i = q; i < end; i++) {
                out[i] = (byte) (GaloisField.PRODUCTS[b0 + (in0[i + d0] & 0xFF)]
                        ^ GaloisField.PRODUCTS[b1 + (in1[i + d1] & 0xFF)]);
            }
        }
    }

    private static void products4(byte[] in0, int p0, int c0, byte[] in1, int p1, int c1,
            byte[] in2, int p2, int c2, byte[] in3, int p3, int c3,
            byte[] out, int q, int length, boolean accumulate) {
        int b0 = (c0 & 0xFF) * 256;
        int b1 = (c1 & 0xFF) * 256;
        int b2 = (c2 & 0xFF) * 256;
        int b3 = (c3 & 0xFF) * 256;
        int d0 = p0 - q;
        int d1 = p1 - q;
        int d2 = p2 - q;
        int d3 = p3 - q;
        int end = q + length;
        if (accumulate) {
            for (int i = q; i < end; i++) {
                out[i] ^= (byte) (GaloisField.PRODUCTS[b0 + (in0[i + d0] & 0xFF)]
                        ^ GaloisField.PRODUCTS[b1 + (in1[i + d1] & 0xFF)]
                        ^ GaloisField.PRODUCTS[b2 + (in2[i + d2] & 0xFF)]
                        ^ GaloisField.PRODUCTS[b3 + (in3[i + d3] & 0xFF)]);
            }
        } else {
            for (int i = q; i < end; i++) {
                out[i] = (byte) (GaloisField.PRODUCTS[b0 + (in0[i + d0] & 0xFF)]
                        ^ GaloisField.PRODUCTS[b1 + (in1[i + d1] & 0xFF)]
                        ^ GaloisField.PRODUCTS[b2 + (in2[i + d2] & 0xFF)]
                        ^ GaloisField.PRODUCTS[b3 + (in3[i + d3] & 0xFF)]);
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
}
