package io.synod.core.erasure;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What one coding pass computes: each output shard is a GF(2^8) linear combination of the same D
 * input shards. Encoding is the plan "inputs = data shards, outputs = parity shards"; each erasure
 * pattern has its own plan "inputs = the first D present shards, outputs = the missing shards".
 * An output may instead come from a cheaper parity-check relation ({@link ShardRelations}) that
 * reads other present shards or outputs computed before it; on a consistent stripe every choice
 * gives the same bytes.
 *
 * <p>Immutable after construction, so one instance may be shared by any number of threads.
 */
final class CodingPlan {

    /** Shard indexes read, ascending; exactly D of them. */
    final int[] inputShardIndexes;

    /** Shard indexes written, ascending, so missing data shards come before missing parity. */
    final int[] outputShardIndexes;

    /** How many leading outputs are data shards (index &lt; D). */
    final int dataOutputCount;

    /** coefficients[output][input]: output = XOR over inputs of coefficient * input. */
    final int[][] coefficients;

    /** multiplicationRows[output][input] = the 256-entry row for that coefficient. */
    final byte[][][] multiplicationRows;

    /** True where every coefficient of the output is 1, so plain XOR computes it. */
    final boolean[] xorOnly;

    /**
     * Outputs in the order the array loops compute them: groups of data outputs first, then groups
     * of parity outputs, so "data only" is a prefix of {@link #dataGroupCount} groups.
     */
    final OutputGroup[] groups;

    /** How many leading groups hold data outputs only. */
    final int dataGroupCount;

    /** The set of missing shard indexes this plan rebuilds, as a 256-bit map (the cache key). */
    final long missingBits0;
    final long missingBits1;
    final long missingBits2;
    final long missingBits3;

    private CodingPlan(int[][] encodingMatrix, int[] inputShardIndexes, int[] outputShardIndexes, int dataOutputCount,
            int[][] coefficients, long[] missingBits, boolean pairInputs) {
        this.inputShardIndexes = inputShardIndexes;
        this.outputShardIndexes = outputShardIndexes;
        this.dataOutputCount = dataOutputCount;
        this.coefficients = coefficients;
        this.multiplicationRows = new byte[coefficients.length][][];
        this.xorOnly = new boolean[coefficients.length];
        for (int out = 0; out < coefficients.length; out++) {
            int[] row = coefficients[out];
            multiplicationRows[out] = new byte[row.length][];
            boolean allOnes = true;
            for (int in = 0; in < row.length; in++) {
                multiplicationRows[out][in] = GaloisField.multiplicationRow(row[in]);
                allOnes &= row[in] == 1;
            }
            xorOnly[out] = allOnes;
        }
        // Each output not already plain XOR may instead come from its cheapest parity-check
        // relation (see ShardRelations), reading present shards and outputs of lower index. Such
        // outputs run after the coded groups of their kind (data or parity), in ascending order,
        // so every shard a relation reads is present or already written. Which outputs use their
        // relation: the cheapest ones, as many as minimise the estimated total with the coded
        // groups that compute the rest.
        ShardRelations.Choice[] choices = new ShardRelations.Choice[coefficients.length];
        boolean[] available = new boolean[encodingMatrix.length];
        for (int shard = 0; shard < available.length; shard++) {
            available[shard] = (missingBits[shard >>> 6] & (1L << shard)) == 0;
        }
        int codable = 0;
        for (int out = 0; out < coefficients.length; out++) {
            if (!xorOnly[out]) {
                codable++;
                choices[out] = ShardRelations.cheapest(encodingMatrix, out, outputShardIndexes[out], available);
            }
            available[outputShardIndexes[out]] = true;
        }
        Integer[] byCost = new Integer[coefficients.length];
        int candidates = 0;
        for (int out = 0; out < coefficients.length; out++) {
            if (choices[out] != null) {
                byCost[candidates++] = out;
            }
        }
        Arrays.sort(byCost, 0, candidates, (a, b) -> Double.compare(choices[a].cost(), choices[b].cost()));
        int dataShardCount = inputShardIndexes.length;
        int bestCount = 0;
        double bestTotal = ShardRelations.codedCost(dataShardCount, codable);
        double relationTotal = 0;
        for (int used = 1; used <= candidates; used++) {
            relationTotal += choices[byCost[used - 1]].cost();
            double total = relationTotal + ShardRelations.codedCost(dataShardCount, codable - used);
            if (total < bestTotal) {
                bestTotal = total;
                bestCount = used;
            }
        }
        OutputGroup[] relations = new OutputGroup[coefficients.length];
        for (int i = 0; i < bestCount; i++) {
            relations[byCost[i]] = choices[byCost[i]].group();
        }
        List<OutputGroup> grouped = new ArrayList<>();
        addGroups(grouped, 0, dataOutputCount, relations, pairInputs);
        this.dataGroupCount = grouped.size();
        addGroups(grouped, dataOutputCount, coefficients.length, relations, pairInputs);
        this.groups = grouped.toArray(new OutputGroup[0]);
        this.missingBits0 = missingBits[0];
        this.missingBits1 = missingBits[1];
        this.missingBits2 = missingBits[2];
        this.missingBits3 = missingBits[3];
    }

    /**
     * Builds the plan that rebuilds the shards marked in {@code missingBits} from the first D
     * shards that are not missing.
     *
     * @param pairInputs give single-output groups pair rows (64 KiB per input pair): the caller
     *     decides, since it knows how many such plans it will keep
     * @param encodingMatrix the (D+P) x D encoding matrix, top D rows the identity
     * @param missingBits 256-bit map of missing shard indexes: bit i of word i/64
     */
    static CodingPlan forMissing(int[][] encodingMatrix, long[] missingBits, boolean pairInputs) {
        int totalShardCount = encodingMatrix.length;
        int dataShardCount = encodingMatrix[0].length;
        int missingCount = 0;
        for (long word : missingBits) {
            missingCount += Long.bitCount(word);
        }
        if (missingCount < 1 || missingCount > totalShardCount - dataShardCount) {
            throw new IllegalArgumentException("a plan needs 1.." + (totalShardCount - dataShardCount)
                    + " missing shards, got " + missingCount);
        }
        int[] inputs = new int[dataShardCount];
        int[] outputs = new int[missingCount];
        int inputCount = 0;
        int outputCount = 0;
        int dataOutputCount = 0;
        for (int shard = 0; shard < totalShardCount; shard++) {
            if ((missingBits[shard >>> 6] & (1L << shard)) != 0) {
                outputs[outputCount++] = shard;
                if (shard < dataShardCount) {
                    dataOutputCount++;
                }
            } else if (inputCount < dataShardCount) {
                inputs[inputCount++] = shard;
            }
        }
        if (outputCount != missingCount || inputCount != dataShardCount) {
            throw new IllegalArgumentException("missing-shard map names shards beyond index "
                    + (totalShardCount - 1));
        }
        // Present shards = sub x data, so data = inverse(sub) x present shards, and any shard row r
        // of the encoding matrix is (row r x inverse(sub)) applied to the present shards.
        int[][] sub = new int[dataShardCount][];
        for (int r = 0; r < dataShardCount; r++) {
            sub[r] = encodingMatrix[inputs[r]];
        }
        int[][] inverse = GfMatrix.invert(sub);
        if (!GfMatrix.isIdentity(GfMatrix.multiply(sub, inverse))) {
            throw new IllegalStateException("decode matrix inversion failed for inputs "
                    + Arrays.toString(inputs));
        }
        int[][] outputRows = new int[missingCount][];
        for (int out = 0; out < missingCount; out++) {
            outputRows[out] = encodingMatrix[outputs[out]];
        }
        int[][] coefficients = GfMatrix.multiply(outputRows, inverse);
        return new CodingPlan(encodingMatrix, inputs, outputs, dataOutputCount, coefficients, missingBits.clone(),
                pairInputs);
    }

    /**
     * Splits outputs {@code [from, to)} into groups: each all-ones output alone (XOR), the others
     * without a relation in runs of up to {@link OutputGroup#MAX_PACKED_OUTPUTS} sharing one pass
     * over the inputs (a run of one is a single-output group, with pair rows if {@code pairInputs}),
     * then the outputs with a relation, in order.
     */
    private void addGroups(List<OutputGroup> grouped, int from, int to, OutputGroup[] relations, boolean pairInputs) {
        int[] pending = new int[OutputGroup.MAX_PACKED_OUTPUTS];
        int pendingCount = 0;
        for (int out = from; out < to; out++) {
            if (relations[out] != null) {
                continue;
            }
            if (xorOnly[out]) {
                grouped.add(OutputGroup.xor(out));
                continue;
            }
            pending[pendingCount++] = out;
            if (pendingCount == pending.length) {
                grouped.add(OutputGroup.of(Arrays.copyOf(pending, pendingCount), coefficients, pairInputs));
                pendingCount = 0;
            }
        }
        if (pendingCount > 0) {
            grouped.add(OutputGroup.of(Arrays.copyOf(pending, pendingCount), coefficients, pairInputs));
        }
        for (int out = from; out < to; out++) {
            if (relations[out] != null) {
                grouped.add(relations[out]);
            }
        }
    }

    /** True if this plan rebuilds exactly the given missing set. */
    boolean rebuilds(long bits0, long bits1, long bits2, long bits3) {
        return missingBits0 == bits0 && missingBits1 == bits1 && missingBits2 == bits2 && missingBits3 == bits3;
    }
}
