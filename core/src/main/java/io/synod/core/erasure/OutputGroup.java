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

    enum Kind { XOR, SINGLE, PACKED }

    final Kind kind;

    /** Indexes into the plan's outputs (not shard indexes), ascending. */
    final int[] outputs;

    /** For {@link Kind#SINGLE}: rows[input] multiplies by that input's coefficient. */
    final byte[][] rows;

    /** For {@link Kind#PACKED}: packedRows[input][x] has coefficient(outputs[j], input) * x in byte j. */
    final long[][] packedRows;

    /**
     * For {@link Kind#SINGLE}, optional: pairRows[m][(x << 8) | y] = c(2m) * x ^ c(2m+1) * y, so one
     * lookup serves two inputs. 64 KiB each, so only the parity plan gets them (see
     * {@link #MAX_PAIRED_INPUTS}); null where unused.
     */
    final byte[][] pairRows;

    /** Inputs up to which a paired single group is built: at most 8 x 64 KiB of pair rows. */
    static final int MAX_PAIRED_INPUTS = 16;

    private OutputGroup(Kind kind, int[] outputs, byte[][] rows, long[][] packedRows, byte[][] pairRows) {
        this.kind = kind;
        this.outputs = outputs;
        this.rows = rows;
        this.packedRows = packedRows;
        this.pairRows = pairRows;
    }

    static OutputGroup xor(int output) {
        return new OutputGroup(Kind.XOR, new int[] {output}, null, null, null);
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
                pairRows = new byte[inputCount / 2][GaloisField.ORDER * GaloisField.ORDER];
                for (int pair = 0; pair < pairRows.length; pair++) {
                    byte[] first = rows[2 * pair];
                    byte[] second = rows[2 * pair + 1];
                    for (int x = 0; x < GaloisField.ORDER; x++) {
                        for (int y = 0; y < GaloisField.ORDER; y++) {
                            pairRows[pair][(x << 8) | y] = (byte) (first[x] ^ second[y]);
                        }
                    }
                }
            }
            return new OutputGroup(Kind.SINGLE, outputs, rows, null, pairRows);
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
        return new OutputGroup(Kind.PACKED, outputs, null, packedRows, null);
    }
}
