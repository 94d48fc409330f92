package io.synod.core.erasure;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A bounded, lock-free cache of decode plans keyed by the set of missing shards.
 *
 * <p>Plans for a single missing shard, the commonest loss, each have a fixed slot and are never
 * evicted; they may carry pair rows (64 KiB each, see {@link OutputGroup#pairRows}) when
 * {@link #MAX_PAIR_ROW_BYTES} covers one plan per shard. Other patterns share a two-way
 * set-associative array of {@link #CAPACITY} slots: a pattern may live in its home slot or the next
 * one; a miss builds the plan and stores it in an empty one of the two, else over the home slot.
 * Plans are immutable, so a racing reader sees either the old or the new plan, both correct for
 * their own key (checked on every hit). Lookups compare four longs and never allocate, which keeps
 * reconstruction allocation-free once a pattern is cached.
 */
final class DecodePlanCache {

    /** Slots for multi-shard patterns; a power of two. Holds every 2-shard loss of a (10,4) codec. */
    static final int CAPACITY = 128;

    /** Most pair-row memory the single-loss plans of one codec may hold together. */
    static final long MAX_PAIR_ROW_BYTES = 8L << 20;

    private final int[][] encodingMatrix;
    private final AtomicReferenceArray<CodingPlan> slots = new AtomicReferenceArray<>(CAPACITY);
    private final AtomicReferenceArray<CodingPlan> singleLossPlans;
    private final boolean pairSingleLossInputs;

    DecodePlanCache(int[][] encodingMatrix) {
        this.encodingMatrix = encodingMatrix;
        int totalShardCount = encodingMatrix.length;
        int dataShardCount = encodingMatrix[0].length;
        this.singleLossPlans = new AtomicReferenceArray<>(totalShardCount);
        long pairRowBytes = (long) totalShardCount * OutputGroup.pairRowCount(dataShardCount)
                * GaloisField.ORDER * GaloisField.ORDER;
        this.pairSingleLossInputs = dataShardCount <= OutputGroup.MAX_PAIRED_INPUTS && pairRowBytes <= MAX_PAIR_ROW_BYTES;
    }

    /** Returns the plan rebuilding exactly the given missing set (256-bit map), building it on a miss. */
    CodingPlan planFor(long bits0, long bits1, long bits2, long bits3) {
        int lost = Long.bitCount(bits0) + Long.bitCount(bits1) + Long.bitCount(bits2) + Long.bitCount(bits3);
        if (lost == 1) {
            return singleLossPlan(bits0, bits1, bits2, bits3);
        }
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
        CodingPlan built = CodingPlan.forMissing(encodingMatrix, new long[] {bits0, bits1, bits2, bits3}, false);
        if (cached == null) {
            slots.set(home, built);
        } else if (next == null) {
            slots.set(neighbour, built);
        } else {
            slots.set(home, built);
        }
        return built;
    }

    private CodingPlan singleLossPlan(long bits0, long bits1, long bits2, long bits3) {
        int shard = bits0 != 0 ? Long.numberOfTrailingZeros(bits0)
                : bits1 != 0 ? 64 + Long.numberOfTrailingZeros(bits1)
                : bits2 != 0 ? 128 + Long.numberOfTrailingZeros(bits2)
                : 192 + Long.numberOfTrailingZeros(bits3);
        CodingPlan cached = singleLossPlans.get(shard);
        if (cached != null) {
            return cached;
        }
        CodingPlan built = CodingPlan.forMissing(encodingMatrix, new long[] {bits0, bits1, bits2, bits3},
                pairSingleLossInputs);
        // A racing builder may win; either plan is correct, and keeping the first bounds memory.
        return singleLossPlans.compareAndSet(shard, null, built) ? built : singleLossPlans.get(shard);
    }

    private static int slotOf(long bits0, long bits1, long bits2, long bits3) {
        long hash = bits0 * 0x9E3779B97F4A7C15L;
        hash = (hash ^ bits1) * 0x9E3779B97F4A7C15L;
        hash = (hash ^ bits2) * 0x9E3779B97F4A7C15L;
        hash = (hash ^ bits3) * 0x9E3779B97F4A7C15L;
        return (int) (hash >>> 32) & (CAPACITY - 1);
    }
}
