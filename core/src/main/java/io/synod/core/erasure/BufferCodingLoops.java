package io.synod.core.erasure;

import java.nio.ByteBuffer;

/**
 * The coding loops over {@link java.nio.ByteBuffer}s without an accessible array (direct or read-only),
 * split from {@link CodingLoops}, whose array loops are the fast path.
 */
final class BufferCodingLoops {
    private BufferCodingLoops() {}

    /**
     * Path for buffers without an accessible array (direct or read-only): absolute {@code get} and
     * {@code put} per byte, so it is slower than the array path. Every group accumulates in the
     * pooled {@code long} block (a byte lane per output), so each output byte is written once per
     * block and each input byte read once per group.
     */
    static void run(CodingPlan plan, int groupCount, Object[] shards, int length,
            ScratchPool scratch) {
        int[] inputs = plan.inputShardIndexes;
        ScratchPool.Scratch block = scratch.take();
        long[] sums = block.sums;
        try {
            for (int blockStart = 0; blockStart < length; blockStart += CodingLoops.BLOCK_BYTES) {
                int blockLength = Math.min(CodingLoops.BLOCK_BYTES, length - blockStart);
                for (int g = 0; g < groupCount; g++) {
                    OutputGroup group = plan.groups[g];
                    if (group.kind == OutputGroup.Kind.SUM) {
                        sumOnBuffers(plan, group, shards, blockStart, blockLength);
                        continue;
                    }
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
            scratch.give(block);
        }
    }

    /** A SUM group over buffers, one position at a time with absolute get/put. */
    private static void sumOnBuffers(CodingPlan plan, OutputGroup group, Object[] shards, int blockStart,
            int blockLength) {
        ByteBuffer output = (ByteBuffer) shards[plan.outputShardIndexes[group.outputs[0]]];
        int q = output.position() + blockStart;
        int[] coefficients = group.termCoefficients;
        int[][] termShards = group.termShards;
        for (int i = 0; i < blockLength; i++) {
            int sum = 0;
            for (int term = 0; term < coefficients.length; term++) {
                int x = 0;
                for (int shard : termShards[term]) {
                    ByteBuffer input = (ByteBuffer) shards[shard];
                    x ^= input.get(input.position() + blockStart + i);
                }
                sum ^= coefficients[term] == 1 ? x : GaloisField.PRODUCTS[coefficients[term] * 256 + (x & 0xFF)];
            }
            output.put(q + i, (byte) sum);
        }
    }
}
