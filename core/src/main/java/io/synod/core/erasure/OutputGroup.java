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

    private OutputGroup(Kind kind, int[] outputs, byte[][] rows, long[][] packedRows) {
        this.kind = kind;
        this.outputs = outputs;
        this.rows = rows;
        this.packedRows = packedRows;
    }

    static OutputGroup xor(int output) {
        return new OutputGroup(Kind.XOR, new int[] {output}, null, null);
    }

    /** A SINGLE group for one output, else a PACKED group. */
    static OutputGroup of(int[] outputs, int[][] coefficients) {
        if (outputs.length < 1 || outputs.length > MAX_PACKED_OUTPUTS) {
            throw new IllegalArgumentException("a group holds 1.." + MAX_PACKED_OUTPUTS + " outputs, got " + outputs.length);
        }
        int inputCount = coefficients[outputs[0]].length;
        if (outputs.length == 1) {
            byte[][] rows = new byte[inputCount][];
            for (int in = 0; in < inputCount; in++) {
                rows[in] = GaloisField.multiplicationRow(coefficients[outputs[0]][in]);
            }
            return new OutputGroup(Kind.SINGLE, outputs, rows, null);
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
        return new OutputGroup(Kind.PACKED, outputs, null, packedRows);
    }
}
