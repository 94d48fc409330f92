package io.synod.core.erasure;

/**
 * Outputs of a {@link CodingPlan} that one pass over the inputs computes together. Three kinds,
 * chosen by what is cheapest for the coefficients:
 * <ul>
 *   <li>{@link Kind#XOR}: one output whose coefficients are all 1, so plain XOR (wide vectors).</li>
 *   <li>{@link Kind#SINGLE}: one output, one 256-entry multiplication row per input.</li>
 *   <li>{@link Kind#PACKED}: 2..8 outputs. Each input has one 256-entry {@code long} row whose
 *       byte j is coefficient(output j) * x, so one table load serves every output of the group
 *       instead of one load per output.</li>
 * </ul>
 * Immutable.
 */
final class OutputGroup {

    /** Outputs per packed group: one byte lane of a long each. */
    static final int MAX_PACKED_OUTPUTS = Long.BYTES;

    enum Kind { XOR, SINGLE, PACKED, SUM }

    final Kind kind;

    /** Indexes into the plan's outputs (not shard indexes), ascending. */
    final int[] outputs;

    /** For {@link Kind#SINGLE}: rows[input] multiplies by that input's coefficient. */
    final byte[][] rows;

    /** For {@link Kind#SINGLE}: the coefficient of each input (0..255), for {@link GaloisField#PRODUCTS}. */
    final int[] coefficients;

    /**
     * For {@link Kind#SUM}: output = XOR over terms t of termCoefficients[t] * (XOR of the shards
     * termShards[t]). Shard indexes are absolute, not plan inputs. A weight-1 term, if any, is first.
     */
    final int[] termCoefficients;
    final int[][] termShards;

    /**
     * For {@link Kind#SUM}: 0 to compute with one table lookup per term; else the scale w of the
     * shift-and-XOR (Horner) form: output = w * (XOR over terms t of hornerWeights[t] * term t),
     * where the weighted sum is built bit by bit, highest bit {@link #hornerTopBit} first, from
     * doublings (x * 2 in GF(2^8): a shift and a conditional XOR of 0x1D, which the JIT vectorises)
     * and XORs of the term shards, then one lookup pass multiplies by w (skipped if w = 1).
     */
    final int hornerScale;
    final int[] hornerWeights;
    final int hornerTopBit;

    /** For {@link Kind#PACKED}: packedRows[input][x] has coefficient(outputs[j], input) * x in byte j. */
    final long[][] packedRows;

    /**
     * For {@link Kind#SINGLE}, optional: pairRows[m][(x << 8) | y] = c(4m) * x ^ c(4m+1) * y, so one
     * lookup serves two inputs; inputs 4m+2 and 4m+3 go through the product table in the same loop.
     * 64 KiB each, so only the parity plan and single-loss plans get them (see
     * {@link #MAX_PAIRED_INPUTS}); null where unused.
     */
    final byte[][] pairRows;

    /** Inputs up to which a paired single group is built: at most 4 x 64 KiB of pair rows. */
    static final int MAX_PAIRED_INPUTS = 16;

    /** Pair rows a paired single group over {@code inputCount} inputs has: one per four inputs. */
    static int pairRowCount(int inputCount) {
        return (inputCount + 2) / 4;
    }

    private OutputGroup(Kind kind, int[] outputs, byte[][] rows, int[] coefficients, long[][] packedRows,
            byte[][] pairRows, int[] termCoefficients, int[][] termShards, int hornerScale) {
        this.kind = kind;
        this.outputs = outputs;
        this.rows = rows;
        this.coefficients = coefficients;
        this.packedRows = packedRows;
        this.pairRows = pairRows;
        this.termCoefficients = termCoefficients;
        this.termShards = termShards;
        this.hornerScale = hornerScale;
        if (hornerScale == 0) {
            this.hornerWeights = null;
            this.hornerTopBit = -1;
        } else {
            this.hornerWeights = new int[termCoefficients.length];
            int all = 0;
            for (int term = 0; term < termCoefficients.length; term++) {
                hornerWeights[term] = GaloisField.divide(termCoefficients[term], hornerScale);
                all |= hornerWeights[term];
            }
            this.hornerTopBit = Integer.SIZE - 1 - Integer.numberOfLeadingZeros(all);
        }
    }

    static OutputGroup xor(int output) {
        return new OutputGroup(Kind.XOR, new int[] {output}, null, null, null, null, null, null, 0);
    }

    /**
     * A SUM group for one output; see {@link #termCoefficients}. {@code hornerScale} 0 computes it
     * with lookups, else in the Horner form with that scale (see {@link #hornerScale}).
     */
    static OutputGroup sum(int output, int[] termCoefficients, int[][] termShards, int hornerScale) {
        if (hornerScale < 0 || hornerScale >= GaloisField.ORDER) {
            throw new IllegalArgumentException("hornerScale must be in 0..255, got " + hornerScale);
        }
        if (termCoefficients.length == 0 || termCoefficients.length != termShards.length) {
            throw new IllegalArgumentException("a sum needs one or more terms, each with a coefficient");
        }
        for (int term = 0; term < termCoefficients.length; term++) {
            if (termCoefficients[term] < 1 || termCoefficients[term] >= GaloisField.ORDER || termShards[term].length == 0
                    || (term > 0 && termCoefficients[term] == 1)) {
                throw new IllegalArgumentException("term " + term + " has coefficient " + termCoefficients[term]
                        + " and " + termShards[term].length + " shards");
            }
        }
        return new OutputGroup(Kind.SUM, new int[] {output}, null, null, null, null, termCoefficients, termShards,
                hornerScale);
    }


    /**
     * A SINGLE group for one output (with pair rows if {@code pairInputs} and it has 2 to
     * {@link #MAX_PAIRED_INPUTS} inputs), else a PACKED group.
     */
    static OutputGroup of(int[] outputs, int[][] coefficients, boolean pairInputs) {
        if (outputs.length < 1 || outputs.length > MAX_PACKED_OUTPUTS) {
            throw new IllegalArgumentException("a group holds 1.." + MAX_PACKED_OUTPUTS + " outputs, got " + outputs.length);
        }
        int inputCount = coefficients[outputs[0]].length;
        if (outputs.length == 1) {
            byte[][] rows = new byte[inputCount][];
            for (int in = 0; in < inputCount; in++) {
                rows[in] = GaloisField.multiplicationRow(coefficients[outputs[0]][in]);
            }
            byte[][] pairRows = null;
            if (pairInputs && inputCount >= 2 && inputCount <= MAX_PAIRED_INPUTS) {
                pairRows = new byte[pairRowCount(inputCount)][GaloisField.ORDER * GaloisField.ORDER];
                for (int pair = 0; pair < pairRows.length; pair++) {
                    byte[] first = rows[4 * pair];
                    byte[] second = rows[4 * pair + 1];
                    for (int x = 0; x < GaloisField.ORDER; x++) {
                        for (int y = 0; y < GaloisField.ORDER; y++) {
                            pairRows[pair][(x << 8) | y] = (byte) (first[x] ^ second[y]);
                        }
                    }
                }
            }
            return new OutputGroup(Kind.SINGLE, outputs, rows, coefficients[outputs[0]].clone(), null, pairRows,
                    null, null, 0);
        }
        long[][] packedRows = new long[inputCount][GaloisField.ORDER];
        for (int in = 0; in < inputCount; in++) {
            for (int lane = 0; lane < outputs.length; lane++) {
                byte[] row = GaloisField.multiplicationRow(coefficients[outputs[lane]][in]);
                for (int x = 0; x < GaloisField.ORDER; x++) {
                    packedRows[in][x] |= (long) (row[x] & 0xFF) << (Byte.SIZE * lane);
                }
            }
        }
        return new OutputGroup(Kind.PACKED, outputs, null, null, packedRows, null, null, null, 0);
    }
}
