package io.synod.core.erasure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The coding loops once the JIT has compiled (and vectorised) them: the other tests mostly run
 * each loop a few times, often still interpreted, while the relation plans' doubling and XOR loops
 * are written in the exact shape the JIT turns into vector code. Here every kernel kind runs
 * thousands of times per erasure pattern, each result checked against the originals and the
 * schoolbook reference, and the hot calls must not allocate.
 */
class ReedSolomonCodecCompiledTest {

    private static final int CALLS = 3_000;

    /** (D, P) and lost shard sets: XOR, Horner, XOR-grouped lookup, packed and paired plans. */
    private static final int[][][] CASES = {
        {{3, 2}, {0}, {0, 1}, {3, 4}, {1, 4}},
        {{4, 1}, {0}, {2}, {4}},
        {{2, 1}, {0}, {1}, {2}},
        {{6, 3}, {0}, {0, 1}, {6, 7, 8}, {2, 5, 7}},
        {{10, 4}, {0}, {0, 1}, {10, 11, 12, 13}, {0, 3, 9, 12}},
        {{5, 3}, {4}, {0, 4}, {1, 2, 6}},
    };

    @Test
    void hotLoopsStayExactAndDoNotAllocate() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        Random random = new Random(7);
        for (int[][] testCase : CASES) {
            int data = testCase[0][0];
            int parity = testCase[0][1];
            ReedSolomonCodec codec = new ReedSolomonCodec(data, parity);
            ReferenceReedSolomon reference = new ReferenceReedSolomon(data, parity);
            int length = 2 * CodingLoops.BLOCK_BYTES + 37; // several blocks plus a ragged tail
            byte[][] expected = new byte[data + parity][];
            for (int s = 0; s < data; s++) {
                expected[s] = new byte[length];
                random.nextBytes(expected[s]);
            }
            byte[][] parityShards = reference.parity(Arrays.copyOf(expected, data), length);
            System.arraycopy(parityShards, 0, expected, data, parity);
            byte[][] shards = new byte[data + parity][];
            for (int s = 0; s < shards.length; s++) {
                shards[s] = expected[s].clone();
            }
            for (int p = 0; p < CALLS / 10; p++) {
                codec.encodeParity(shards, 0, length); // compile the parity plan too
            }
            for (int s = data; s < shards.length; s++) {
                assertArrayEquals(expected[s], shards[s], "(" + data + "," + parity + ") hot parity shard " + s);
            }
            for (int pattern = 1; pattern < testCase.length; pattern++) {
                boolean[] present = new boolean[data + parity];
                Arrays.fill(present, true);
                for (int lost : testCase[pattern]) {
                    present[lost] = false;
                }
                String what = "(" + data + "," + parity + ") lost " + Arrays.toString(testCase[pattern]);
                codec.reconstruct(shards, present, 0, length); // builds and caches the plan
                long before = threads.getThreadAllocatedBytes(thread);
                for (int call = 0; call < CALLS; call++) {
                    for (int lost : testCase[pattern]) {
                        shards[lost][call % length] ^= (byte) (call | 1); // damage what must be rebuilt
                    }
                    codec.reconstruct(shards, present, 0, length);
                }
                long allocated = threads.getThreadAllocatedBytes(thread) - before;
                for (int s = 0; s < shards.length; s++) {
                    assertArrayEquals(expected[s], shards[s], what + ": shard " + s + " after " + CALLS + " calls");
                }
                assertTrue(allocated < CALLS, what + ": allocated " + allocated + " bytes over " + CALLS + " calls");
            }
        }
    }
}
