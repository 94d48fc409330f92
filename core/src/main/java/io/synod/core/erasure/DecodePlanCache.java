package io.synod.core.erasure;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A bounded, lock-free cache of decode plans keyed by the set of missing shards.
 *
 * <p>Two-way set-associative over a fixed array of {@link #CAPACITY} slots: a pattern may live in
 * its home slot or the next one; a miss builds the plan and stores it in an empty one of the two,
 * else over the home slot. Plans are immutable, so a racing reader sees either the old or the new
 * plan, both correct for their own key (checked on every hit). Lookups compare four longs and never
 * allocate, which keeps reconstruction allocation-free once a pattern is cached.
 */
final class DecodePlanCache {

    /** Slots per codec; a power of two. Enough for every 1- and 2-shard loss of a (10,4) codec. */
    static final int CAPACITY = 128;

    private final int[][] encodingMatrix;
    private final AtomicReferenceArray<CodingPlan> slots = new AtomicReferenceArray<>(CAPACITY);

    DecodePlanCache(int[][] encodingMatrix) {
        this.encodingMatrix = encodingMatrix;
    }

    /** Returns the plan rebuilding exactly the given missing set (256-bit map), building it on a miss. */
    CodingPlan planFor(long bits0, long bits1, long bits2, long bits3) {
        int home = slotOf(bits0, bits1, bits2, bits3);
        int neighbour = (home + 1) & (CAPACITY - 1);
        CodingPlan cached = slots.get(home);
        if (cached != null && cached.rebuilds(bits0, bits1, bits2, bits3)) {
            return cached;
        }
        CodingPlan next = slots.get(neighbour);
        if (next != null && next.rebuilds(bits0, bits1, bits2, bits3)) {
            return next;
        }
        CodingPlan built = CodingPlan.forMissing(encodingMatrix, new long[] {bits0, bits1, bits2, bits3});
        if (cached == null) {
            slots.set(home, built);
        } else if (next == null) {
            slots.set(neighbour, built);
        } else {
            slots.set(home, built);
        }
        return built;
    }

    private static int slotOf(long bits0, long bits1, long bits2, long bits3) {
        long hash = bits0 * 0x9E3779B97F4A7C15L;
        hash = (hash ^ bits1) * 0x9E3779B97F4A7C15L;
        hash = (hash ^ bits2) * 0x9E3779B97F4A7C15L;
        hash = (hash ^ bits3) * 0x9E3779B97F4A7C15L;
        return (int) (hash >>> 32) & (CAPACITY - 1);
    }
}
