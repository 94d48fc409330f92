package io.synod.bench.erasure;

import io.synod.core.erasure.ReedSolomonCodec;

/**
 * The plain Reed-Solomon coding loop, measured in the same JVM run as {@link ReedSolomonCodec} so
 * the comparison does not depend on the machine: for each input shard, for each output shard, for
 * each byte, one lookup in the coefficient's 256-entry multiplication row, the first input
 * assigning and later inputs XOR-ing into the output. This is the loop order of Backblaze's
 * default {@code InputOutputByteTableCodingLoop} (written here from that description, not from
 * its code); the CSV baseline measures the real library on another machine.
 *
 * <p>Coefficient rows are computed once (as our codec's cache does), so decode here measures only
 * the coding loop, without the per-call matrix inversion the Backblaze baseline includes.
 */
final class TextbookCodingLoop {

    private static final byte[][] MULTIPLICATION_TABLE = multiplicationTable();

    /** rows[output][input] = multiplication row of that coefficient. */
    private final byte[][][] rows;

    private TextbookCodingLoop(int[][] coefficients) {
        rows = new byte[coefficients.length][][];
        for (int out = 0; out < coefficients.length; out++) {
            rows[out] = new byte[coefficients[out].length][];
            for (int in = 0; in < coefficients[out].length; in++) {
                rows[out][in] = MULTIPLICATION_TABLE[coefficients[out][in]];
            }
        }
    }

    /** The loop computing the codec's parity from its data shards. */
    static TextbookCodingLoop parity(ReedSolomonCodec codec) {
        int[][] matrix = codec.encodingMatrix();
        int[][] parityRows = new int[codec.parityShardCount()][];
        System.arraycopy(matrix, codec.dataShardCount(), parityRows, 0, parityRows.length);
        return new TextbookCodingLoop(parityRows);
    }

    /**
     * The loop rebuilding the shards absent in {@code present} from the first D present shards, the
     * textbook decode: invert the encoding matrix's rows of those shards (Gauss-Jordan over
     * GF(2^8), written here independently of the codec) and apply the missing shards' rows of
     * encoding matrix x inverse.
     */
    static TextbookCodingLoop rebuild(ReedSolomonCodec codec, boolean[] present) {
        int[][] matrix = codec.encodingMatrix();
        int[] inputs = inputsFor(codec, present);
        int d = inputs.length;
        int[][] work = new int[d][2 * d];
        for (int r = 0; r < d; r++) {
            System.arraycopy(matrix[inputs[r]], 0, work[r], 0, d);
            work[r][d + r] = 1;
        }
        for (int col = 0; col < d; col++) {
            int pivot = col;
            while (work[pivot][col] == 0) {
                pivot++; // an MDS code's square sub-matrix is invertible, so a pivot exists
            }
            int[] swap = work[pivot];
            work[pivot] = work[col];
            work[col] = swap;
            int scale = inverse(work[col][col]);
            for (int c = 0; c < 2 * d; c++) {
                work[col][c] = multiply(work[col][c], scale);
            }
            for (int r = 0; r < d; r++) {
                int factor = work[r][col];
                if (r != col && factor != 0) {
                    for (int c = 0; c < 2 * d; c++) {
                        work[r][c] ^= multiply(factor, work[col][c]);
                    }
                }
            }
        }
        int missing = 0;
        for (boolean p : present) {
            missing += p ? 0 : 1;
        }
        int[][] coefficients = new int[missing][d];
        int out = 0;
        for (int s = 0; s < present.length; s++) {
            if (!present[s]) {
                for (int in = 0; in < d; in++) {
                    int sum = 0;
                    for (int k = 0; k < d; k++) {
                        sum ^= multiply(matrix[s][k], work[k][d + in]);
                    }
                    coefficients[out][in] = sum;
                }
                out++;
            }
        }
        return new TextbookCodingLoop(coefficients);
    }

    private static int multiply(int a, int b) {
        return MULTIPLICATION_TABLE[a][b] & 0xFF;
    }

    private static int inverse(int a) {
        for (int b = 1; b < 256; b++) {
            if (multiply(a, b) == 1) {
                return b;
            }
        }
        throw new IllegalArgumentException("0 has no inverse");
    }

    /** The first D present shard indexes: the inputs a rebuild reads. */
    static int[] inputsFor(ReedSolomonCodec codec, boolean[] present) {
        int[] inputs = new int[codec.dataShardCount()];
        int found = 0;
        for (int s = 0; s < present.length && found < inputs.length; s++) {
            if (present[s]) {
                inputs[found++] = s;
            }
        }
        if (found < inputs.length) {
            throw new IllegalArgumentException("need " + inputs.length + " present shards, have " + found);
        }
        return inputs;
    }

    /** outputs[j][0..length) = XOR over k of coefficient(j,k) * inputs[k][0..length). */
    void code(byte[][] inputs, byte[][] outputs, int length) {
        for (int in = 0; in < inputs.length; in++) {
            byte[] input = inputs[in];
            for (int out = 0; out < outputs.length; out++) {
                byte[] row = rows[out][in];
                byte[] output = outputs[out];
                if (in == 0) {
                    for (int i = 0; i < length; i++) {
                        output[i] = row[input[i] & 0xFF];
                    }
                } else {
                    for (int i = 0; i < length; i++) {
                        output[i] ^= row[input[i] & 0xFF];
                    }
                }
            }
        }
    }

    /** Full 256 x 256 table for GF(2^8) mod 0x11D, built by shift-and-add from the definition. */
    private static byte[][] multiplicationTable() {
        byte[][] table = new byte[256][256];
        for (int a = 0; a < 256; a++) {
            for (int b = 0; b < 256; b++) {
                int product = 0;
                int shifted = a;
                for (int bit = 0; bit < 8; bit++) {
                    if ((b & (1 << bit)) != 0) {
                        product ^= shifted;
                    }
                    shifted <<= 1;
                    if ((shifted & 0x100) != 0) {
                        shifted ^= 0x11D;
                    }
                }
                table[a][b] = (byte) product;
            }
        }
        return table;
    }
}
