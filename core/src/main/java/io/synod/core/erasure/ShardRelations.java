package io.synod.core.erasure;

import java.util.Arrays;

/**
 * Finds a cheap way to rebuild one missing shard from more than D shards.
 *
 * <p>Every stripe of a systematic code with parity rows A satisfies {@code A x data ^ parity = 0}:
 * each row of the parity-check matrix {@code H = [A | I]}, and each GF(2^8) combination of rows,
 * is a relation {@code XOR over i of r[i] * shard[i] = 0}. A relation with {@code r[target] != 0}
 * and zero weight on every shard that is not available rebuilds the target:
 * {@code target = XOR over i of (r[i] / r[target]) * shard[i]}. The default decode (the first D
 * present shards through the inverted sub-matrix) is one such relation; others may read more
 * shards but need far fewer table lookups, because shards with equal weight are XOR-ed together
 * first (wide, vectorised XOR) and multiplied once. For example, in the (3,2) code parity 0 is the
 * XOR of the data, so once one of two lost data shards is rebuilt the other is plain XOR; in the
 * (6,3) code parity 0 XOR parity 1 is the XOR of the data, so any lost data shard is the XOR of
 * the seven other shards.
 *
 * <p>The search tries each row of H and each pair of rows {@code H[a] ^ t * H[b]} for every
 * non-zero t (bounded, see {@link #MAX_SEARCH_STEPS}), and prices a relation as one unit per
 * distinct weight other than 1 (one table lookup per byte) plus {@link #XOR_COST} per shard read.
 */
final class ShardRelations {

    // Costs in units of one textbook lookup pass over the bytes (load, lookup, XOR into the
    // output), fitted to same-run measurements on a 2-vCPU AMD EPYC (Zen 3) with OpenJDK 17: a
    // wide XOR or doubling pass runs at about 13 GB/s against about 1.7 GB/s for a lookup pass.

    /** Cost of reading one shard into a wide XOR. */
    static final double XOR_COST = 0.1;

    /** Cost of one wide doubling pass (x * 2 in GF(2^8) on every byte) in the Horner form. */
    static final double DOUBLING_COST = 0.1;

    /** Cost of the final in-place lookup pass that multiplies by the Horner form's scale. */
    static final double SCALE_COST = 0.6;

    /** Cost per data shard of one output computed alone by the paired or product-table loops. */
    static final double SINGLE_COST_PER_DATA_SHARD = 0.75;

    /** Packed groups: fixed cost per data shard per group of up to eight outputs... */
    static final double PACKED_GROUP_COST_PER_DATA_SHARD = 0.77;

    /** ...plus this per data shard per output (unpacking, wider accumulators). */
    static final double PACKED_OUTPUT_COST_PER_DATA_SHARD = 0.14;

    /** Upper bound on relation entries examined per output, so building a plan stays cheap. */
    static final long MAX_SEARCH_STEPS = 4_000_000L;

    /** The Horner form is priced only for stripes up to this many shards (its search is quadratic). */
    static final int HORNER_MAX_SHARDS = 32;

    private ShardRelations() {
    }

    /** A relation's group and its estimated cost. */
    record Choice(OutputGroup group, double cost) {
    }

    /**
     * Estimated cost of computing {@code outputs} outputs with the coded (non-relation) groups over
     * D inputs: one single-output loop, or packed groups of up to eight.
     */
    static double codedCost(int dataShardCount, int outputs) {
        if (outputs == 0) {
            return 0;
        }
        if (outputs == 1) {
            return SINGLE_COST_PER_DATA_SHARD * dataShardCount;
        }
        int groups = (outputs + OutputGroup.MAX_PACKED_OUTPUTS - 1) / OutputGroup.MAX_PACKED_OUTPUTS;
        return dataShardCount * (PACKED_GROUP_COST_PER_DATA_SHARD * groups + PACKED_OUTPUT_COST_PER_DATA_SHARD * outputs);
    }

    /**
     * Returns the cheapest relation found that computes plan output {@code output} (shard
     * {@code target}) from shards flagged in {@code available}, or null if there is none (the
     * search is bounded).
     *
     * @param encodingMatrix the (D+P) x D encoding matrix, top D rows the identity
     * @param available which shards may be read (present, or rebuilt before this output)
     */
    static Choice cheapest(int[][] encodingMatrix, int output, int target, boolean[] available) {
        int totalShardCount = encodingMatrix.length;
        int dataShardCount = encodingMatrix[0].length;
        int parityShardCount = totalShardCount - dataShardCount;
        int[][] checks = new int[parityShardCount][totalShardCount];
        for (int row = 0; row < parityShardCount; row++) {
            System.arraycopy(encodingMatrix[dataShardCount + row], 0, checks[row], 0, dataShardCount);
            checks[row][dataShardCount + row] = 1;
        }
        Pricer pricer = new Pricer(target, available, Double.POSITIVE_INFINITY);
        int[] candidate = new int[totalShardCount];
        for (int a = 0; a < parityShardCount; a++) {
            System.arraycopy(checks[a], 0, candidate, 0, totalShardCount);
            pricer.consider(candidate);
        }
        long pairSteps = (long) parityShardCount * (parityShardCount - 1) / 2 * (GaloisField.ORDER - 1) * totalShardCount;
        if (pairSteps <= MAX_SEARCH_STEPS) {
            for (int a = 0; a < parityShardCount; a++) {
                for (int b = a + 1; b < parityShardCount; b++) {
                    for (int t = 1; t < GaloisField.ORDER; t++) {
                        byte[] times = GaloisField.multiplicationRow(t);
                        for (int i = 0; i < totalShardCount; i++) {
                            candidate[i] = checks[a][i] ^ (times[checks[b][i]] & 0xFF);
                        }
                        pricer.consider(candidate);
                    }
                }
            }
        }
        return pricer.best == null ? null
                : new Choice(toGroup(pricer.best, output, target, pricer.bestHornerScale), pricer.bestCost);
    }

    /** Prices relations for one target and keeps the cheapest under the budget. */
    private static final class Pricer {
        private final int target;
        private final boolean[] available;
        private final int[] countByWeight = new int[GaloisField.ORDER];
        private final int[] weights = new int[GaloisField.ORDER];
        private double bestCost;
        private int[] best;
        private int bestHornerScale;

        Pricer(int target, boolean[] available, double budget) {
            this.target = target;
            this.available = available;
            this.bestCost = budget;
        }

        void consider(int[] r) {
            if (r[target] == 0) {
                return;
            }
            int reads = 0;
            for (int i = 0; i < r.length; i++) {
                if (i != target && r[i] != 0) {
                    if (!available[i]) {
                        return;
                    }
                    reads++;
                }
            }
            byte[] divide = GaloisField.multiplicationRow(GaloisField.divide(1, r[target]));
            int distinct = 0;
            for (int i = 0; i < r.length; i++) {
                if (i != target && r[i] != 0) {
                    int weight = divide[r[i]] & 0xFF;
                    if (countByWeight[weight]++ == 0) {
                        weights[distinct++] = weight;
                    }
                }
            }
            int lookups = distinct - (countByWeight[1] > 0 ? 1 : 0);
            double cost = lookups + XOR_COST * reads;
            int hornerScale = 0;
            if (r.length <= HORNER_MAX_SHARDS) {
                // Scales worth trying make one weight 1: the scale is that weight (or 1 itself).
                for (int candidate = -1; candidate < distinct; candidate++) {
                    int scale = candidate < 0 ? 1 : weights[candidate];
                    byte[] unscale = GaloisField.multiplicationRow(GaloisField.divide(1, scale));
                    int all = 0;
                    int xors = 0;
                    for (int w = 0; w < distinct; w++) {
                        int scaled = unscale[weights[w]] & 0xFF;
                        all |= scaled;
                        xors += countByWeight[weights[w]] * Integer.bitCount(scaled);
                    }
                    int doublings = Integer.SIZE - 1 - Integer.numberOfLeadingZeros(all);
                    double horner = DOUBLING_COST * doublings + XOR_COST * xors + (scale == 1 ? 0 : SCALE_COST);
                    if (horner < cost) {
                        cost = horner;
                        hornerScale = scale;
                    }
                }
            }
            for (int w = 0; w < distinct; w++) {
                countByWeight[weights[w]] = 0;
            }
            if (cost < bestCost) {
                bestCost = cost;
                best = r.clone();
                bestHornerScale = hornerScale;
            }
        }
    }

    /** Groups the shards of relation {@code r} by weight: the weight-1 term first, then ascending weight. */
    private static OutputGroup toGroup(int[] r, int output, int target, int hornerScale) {
        int[] weights = new int[r.length];
        int[] termCountByWeight = new int[GaloisField.ORDER];
        for (int i = 0; i < r.length; i++) {
            if (i != target && r[i] != 0) {
                weights[i] = GaloisField.divide(r[i], r[target]);
                termCountByWeight[weights[i]]++;
            }
        }
        int termCount = 0;
        for (int weight = 1; weight < GaloisField.ORDER; weight++) {
            termCount += termCountByWeight[weight] > 0 ? 1 : 0;
        }
        int[] coefficients = new int[termCount];
        int[][] shards = new int[termCount][];
        int term = 0;
        for (int weight = 1; weight < GaloisField.ORDER; weight++) {
            if (termCountByWeight[weight] == 0) {
                continue;
            }
            coefficients[term] = weight;
            shards[term] = new int[termCountByWeight[weight]];
            int found = 0;
            for (int i = 0; i < r.length; i++) {
                if (i != target && weights[i] == weight) {
                    shards[term][found++] = i;
                }
            }
            term++;
        }
        if (Arrays.stream(shards).mapToInt(s -> s.length).sum() == 0) {
            throw new IllegalStateException("relation for shard " + target + " reads no shard");
        }
        return OutputGroup.sum(output, coefficients, shards, hornerScale);
    }
}
