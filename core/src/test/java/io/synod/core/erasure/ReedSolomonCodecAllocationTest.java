package io.synod.core.erasure;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Encoding and rebuilding a cached erasure pattern must not allocate: the replication layer runs
 * them per large value, and garbage there turns into GC pauses on the event loop.
 */
class ReedSolomonCodecAllocationTest {

    private static final int CALLS = 2_000;

    @Test
    void encodeAndCachedReconstructDoNotAllocate() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
                "this JVM cannot count allocated bytes per thread");
        long thread = Thread.currentThread().getId();

        ReedSolomonCodec codec = new ReedSolomonCodec(10, 4);
        int length = 3 * CodingLoops.BLOCK_BYTES + 11;
        byte[][] shards = new byte[14][length];
        for (int s = 0; s < 10; s++) {
            Arrays.fill(shards[s], (byte) (s * 29 + 3));
        }
        boolean[] twoDataMissing = new boolean[14];
        Arrays.fill(twoDataMissing, true);
        twoDataMissing[0] = false;
        twoDataMissing[7] = false;
        boolean[] oneParityMissing = new boolean[14];
        Arrays.fill(oneParityMissing, true);
        oneParityMissing[12] = false;
        // Warm up: fills the decode-plan cache and the scratch pool.
        codec.encodeParity(shards, 0, length);
        codec.reconstruct(shards, twoDataMissing, 0, length);
        codec.reconstruct(shards, oneParityMissing, 0, length);

        long before = threads.getThreadAllocatedBytes(thread);
        for (int call = 0; call < CALLS; call++) {
            codec.encodeParity(shards, 0, length);
            codec.reconstruct(shards, twoDataMissing, 0, length);
            codec.reconstructData(shards, oneParityMissing, 0, length);
        }
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        // One object per call would be at least 16 bytes a call; less than one byte a call leaves
        // room only for one-off JVM bookkeeping (JIT, class init), not for per-call garbage.
        int calls = 3 * CALLS;
        assertTrue(allocated < calls, "allocated " + allocated + " bytes over " + calls + " calls");
        assertTrue(codec.isParityCorrect(shards, 0, length), "the loop still computed correct parity");
    }
}
