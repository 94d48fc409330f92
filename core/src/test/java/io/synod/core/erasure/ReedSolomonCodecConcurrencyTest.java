package io.synod.core.erasure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One codec shared by several threads, each rebuilding its own stripes under erasure patterns
 * drawn from far more patterns than the decode-plan cache holds, so threads race on cache slots
 * and on the pooled accumulator blocks. Every result must still be exact.
 */
class ReedSolomonCodecConcurrencyTest {

    private static final int THREADS = 6;
    private static final int ROUNDS_PER_THREAD = 150;

    @Test
    void sharedCodecIsExactUnderConcurrentUse() throws Exception {
        ReedSolomonCodec codec = new ReedSolomonCodec(10, 6);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long seed = 1000 + t;
                results.add(pool.submit(() -> {
                    start.await();
                    return rebuildRepeatedly(codec, new Random(seed));
                }));
            }
            start.countDown();
            int checked = 0;
            for (Future<Integer> result : results) {
                checked += result.get(2, TimeUnit.MINUTES);
            }
            assertTrue(checked == THREADS * ROUNDS_PER_THREAD);
        } finally {
            pool.shutdownNow();
        }
    }

    private static int rebuildRepeatedly(ReedSolomonCodec codec, Random random) {
        int total = codec.totalShardCount();
        int length = 3 * CodingLoops.BLOCK_BYTES + 5;
        byte[][] stripe = new byte[total][length];
        for (int s = 0; s < codec.dataShardCount(); s++) {
            random.nextBytes(stripe[s]);
        }
        codec.encodeParity(stripe, 0, length);
        byte[][] work = new byte[total][length];
        int rounds = 0;
        for (int round = 0; round < ROUNDS_PER_THREAD; round++) {
            boolean[] present = ReedSolomonCodecPropertyTest.randomErasures(random, total, codec.parityShardCount());
            for (int s = 0; s < total; s++) {
                if (present[s]) {
                    System.arraycopy(stripe[s], 0, work[s], 0, length);
                } else {
                    java.util.Arrays.fill(work[s], (byte) 0);
                }
            }
            codec.reconstruct(work, present, 0, length);
            for (int s = 0; s < total; s++) {
                assertArrayEquals(stripe[s], work[s], "round " + round + " shard " + s);
            }
            rounds++;
        }
        return rounds;
    }
}
