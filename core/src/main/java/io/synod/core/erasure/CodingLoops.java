package io.synod.core.erasure;

import java.nio.ByteBuffer;

/**
 * The byte-crunching loops that run a {@link CodingPlan} over shard bytes.
 *
 * <p>Why this shape is faster than a plain "for each input, for each output, for each byte" loop:
 * <ul>
 *   <li>Inputs are combined four (or fewer) at a time in registers, so each output byte is loaded
 *       and stored once per four inputs instead of once per input.</li>
 *   <li>Work is cut into {@link #BLOCK_BYTES} blocks so an output block and the input blocks it
 *       reads stay in the L1 cache while all of a block's passes run.</li>
 *   <li>Multiplication is one load from the coefficient's full 256-entry row.</li>
 *   <li>An output whose coefficients are all 1 (e.g. the first parity of (3,2)) is a plain XOR,
 *       which the JIT turns into wide vector XORs.</li>
 * </ul>
 * Shards are {@code byte[]} (all at one common offset) or {@link ByteBuffer}s (each at its own
 * position). Heap buffers are coded through their backing arrays; if any buffer has no accessible
 * array (direct or read-only), the whole call takes the slower absolute get/put path. Nothing here
 * allocates.
 */
final class CodingLoops {

    /** Bytes per block: 4 inputs + 1 output of this size use 20 KiB, inside a 32 KiB L1. */
    static final int BLOCK_BYTES = 4096;

    /** How many inputs one register-accumulating pass combines. */
    private static final int INPUTS_PER_PASS = 4;

    private CodingLoops() {
    }

    /**
     * Computes the first {@code outputCount} outputs of {@code plan} over {@code length} bytes.
     *
     * @param shards all shards, each a {@code byte[]} or a {@link ByteBuffer}
     * @param commonOffset start offset in every {@code byte[]} shard (buffers use their position)
     */
    static void run(CodingPlan plan, int outputCount, Object[] shards, int commonOffset, int length) {
        if (outputCount == 0 || length == 0) {
            return;
        }
        if (allHaveArrays(shards)) {
            runOnArrays(plan, outputCount, shards, commonOffset, length);
        } else {
            runOnBuffers(plan, outputCount, shards, length);
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

    private static void runOnArrays(CodingPlan plan, int outputCount, Object[] shards, int commonOffset,
            int length) {
        int[] inputs = plan.inputShardIndexes;
        int inputCount = inputs.length;
        for (int blockStart = 0; blockStart < length; blockStart += BLOCK_BYTES) {
            int blockLength = Math.min(BLOCK_BYTES, length - blockStart);
            for (int out = 0; out < outputCount; out++) {
                Object outShard = shards[plan.outputShardIndexes[out]];
                byte[] outArray = arrayOf(outShard);
                int outOffset = offsetOf(outShard, commonOffset) + blockStart;
                byte[][] rows = plan.multiplicationRows[out];
                if (plan.xorOnly[out]) {
                    Object first = shards[inputs[0]];
                    System.arraycopy(arrayOf(first), offsetOf(first, commonOffset) + blockStart,
                            outArray, outOffset, blockLength);
                    for (int in = 1; in < inputCount; in++) {
                        Object shard = shards[inputs[in]];
                        xorInto(arrayOf(shard), offsetOf(shard, commonOffset) + blockStart,
                                outArray, outOffset, blockLength);
                    }
                    continue;
                }
                for (int in = 0; in < inputCount; in += INPUTS_PER_PASS) {
                    boolean accumulate = in > 0;
                    int passInputs = Math.min(INPUTS_PER_PASS, inputCount - in);
                    Object s0 = shards[inputs[in]];
                    byte[] a0 = arrayOf(s0);
                    int o0 = offsetOf(s0, commonOffset) + blockStart;
                    if (passInputs == 1) {
                        multiply1(a0, o0, rows[in], outArray, outOffset, blockLength, accumulate);
                        continue;
                    }
                    Object s1 = shards[inputs[in + 1]];
                    byte[] a1 = arrayOf(s1);
                    int o1 = offsetOf(s1, commonOffset) + blockStart;
                    if (passInputs == 2) {
                        multiply2(a0, o0, rows[in], a1, o1, rows[in + 1],
                                outArray, outOffset, blockLength, accumulate);
                        continue;
                    }
                    Object s2 = shards[inputs[in + 2]];
                    byte[] a2 = arrayOf(s2);
                    int o2 = offsetOf(s2, commonOffset) + blockStart;
                    if (passInputs == 3) {
                        multiply3(a0, o0, rows[in], a1, o1, rows[in + 1], a2, o2, rows[in + 2],
                                outArray, outOffset, blockLength, accumulate);
                        continue;
                    }
                    Object s3 = shards[inputs[in + 3]];
                    multiply4(a0, o0, rows[in], a1, o1, rows[in + 1], a2, o2, rows[in + 2],
                            arrayOf(s3), offsetOf(s3, commonOffset) + blockStart, rows[in + 3],
                            outArray, outOffset, blockLength, accumulate);
                }
            }
        }
    }

    private static void xorInto(byte[] in, int inOffset, byte[] out, int outOffset, int length) {
        for (int i = 0; i < length; i++) {
            out[outOffset + i] ^= in[inOffset + i];
        }
    }

    private static void multiply1(byte[] in0, int p0, byte[] t0,
            byte[] out, int q, int length, boolean accumulate) {
        if (accumulate) {
            for (int i = 0; i < length; i++) {
                out[q + i] ^= t0[in0[p0 + i] & 0xFF];
            }
        } else {
            for (int i = 0; i < length; i++) {
                out[q + i] = t0[in0[p0 + i] & 0xFF];
            }
        }
    }

    private static void multiply2(byte[] in0, int p0, byte[] t0, byte[] in1, int p1, byte[] t1,
            byte[] out, int q, int length, boolean accumulate) {
        if (accumulate) {
            for (int i = 0; i < length; i++) {
                out[q + i] ^= (byte) (t0[in0[p0 + i] & 0xFF] ^ t1[in1[p1 + i] & 0xFF]);
            }
        } else {
            for (int i = 0; i < length; i++) {
                out[q + i] = (byte) (t0[in0[p0 + i] & 0xFF] ^ t1[in1[p1 + i] & 0xFF]);
            }
        }
    }

    private static void multiply3(byte[] in0, int p0, byte[] t0, byte[] in1, int p1, byte[] t1,
            byte[] in2, int p2, byte[] t2, byte[] out, int q, int length, boolean accumulate) {
        if (accumulate) {
            for (int i = 0; i < length; i++) {
                out[q + i] ^= (byte) (t0[in0[p0 + i] & 0xFF] ^ t1[in1[p1 + i] & 0xFF]
                        ^ t2[in2[p2 + i] & 0xFF]);
            }
        } else {
            for (int i = 0; i < length; i++) {
                out[q + i] = (byte) (t0[in0[p0 + i] & 0xFF] ^ t1[in1[p1 + i] & 0xFF]
                        ^ t2[in2[p2 + i] & 0xFF]);
            }
        }
    }

    private static void multiply4(byte[] in0, int p0, byte[] t0, byte[] in1, int p1, byte[] t1,
            byte[] in2, int p2, byte[] t2, byte[] in3, int p3, byte[] t3,
            byte[] out, int q, int length, boolean accumulate) {
        if (accumulate) {
            for (int i = 0; i < length; i++) {
                out[q + i] ^= (byte) (t0[in0[p0 + i] & 0xFF] ^ t1[in1[p1 + i] & 0xFF]
                        ^ t2[in2[p2 + i] & 0xFF] ^ t3[in3[p3 + i] & 0xFF]);
            }
        } else {
            for (int i = 0; i < length; i++) {
                out[q + i] = (byte) (t0[in0[p0 + i] & 0xFF] ^ t1[in1[p1 + i] & 0xFF]
                        ^ t2[in2[p2 + i] & 0xFF] ^ t3[in3[p3 + i] & 0xFF]);
            }
        }
    }

    /**
     * Slow path for buffers without an accessible array: one input at a time with absolute
     * get/put, still block by block so the output block stays in cache across inputs.
     */
    private static void runOnBuffers(CodingPlan plan, int outputCount, Object[] shards, int length) {
        int[] inputs = plan.inputShardIndexes;
        for (int blockStart = 0; blockStart < length; blockStart += BLOCK_BYTES) {
            int blockEnd = Math.min(blockStart + BLOCK_BYTES, length);
            for (int out = 0; out < outputCount; out++) {
                ByteBuffer outBuffer = (ByteBuffer) shards[plan.outputShardIndexes[out]];
                int q = outBuffer.position();
                byte[][] rows = plan.multiplicationRows[out];
                for (int in = 0; in < inputs.length; in++) {
                    ByteBuffer inBuffer = (ByteBuffer) shards[inputs[in]];
                    int p = inBuffer.position();
                    byte[] row = rows[in];
                    if (in == 0) {
                        for (int i = blockStart; i < blockEnd; i++) {
                            outBuffer.put(q + i, row[inBuffer.get(p + i) & 0xFF]);
                        }
                    } else {
                        for (int i = blockStart; i < blockEnd; i++) {
                            outBuffer.put(q + i, (byte) (outBuffer.get(q + i) ^ row[inBuffer.get(p + i) & 0xFF]));
                        }
                    }
                }
            }
        }
    }
}
