package io.synod.core.erasure;

/**
 * A deliberately naive Reed-Solomon implementation to check the optimised codec against. It
 * shares no code with main: multiplication is schoolbook carry-less multiply with bit-by-bit
 * reduction by 0x11D, matrices are built and inverted directly from the definitions in the vectors
 * README, and every byte is computed with a plain triple loop.
 */
final class ReferenceReedSolomon {

    private final int data;
    private final int parity;
    private final int[][] matrix;

    ReferenceReedSolomon(int data, int parity) {
        this.data = data;
        this.parity = parity;
        int total = data + parity;
        int[][] vandermonde = new int[total][data];
        for (int r = 0; r < total; r++) {
            for (int c = 0; c < data; c++) {
                vandermonde[r][c] = pow(r, c);
            }
        }
        int[][] top = new int[data][];
        System.arraycopy(vandermonde, 0, top, 0, data);
        matrix = times(vandermonde, inverse(top));
    }

    static int mul(int a, int b) {
        int product = 0;
        for (int bit = 0; bit < 8; bit++) {
            if ((b & (1 << bit)) != 0) {
                product ^= a << bit;
            }
        }
        for (int bit = 15; bit >= 8; bit--) {
            if ((product & (1 << bit)) != 0) {
                product ^= 0x11D << (bit - 8);
            }
        }
        return product;
    }

    static int pow(int a, int n) {
        int result = 1;
        for (int i = 0; i < n; i++) {
            result = mul(result, a);
        }
        return result;
    }

    static int inv(int a) {
        for (int candidate = 1; candidate < 256; candidate++) {
            if (mul(a, candidate) == 1) {
                return candidate;
            }
        }
        throw new ArithmeticException("0 has no inverse");
    }

    static int[][] times(int[][] left, int[][] right) {
        int[][] product = new int[left.length][right[0].length];
        for (int r = 0; r < left.length; r++) {
            for (int c = 0; c < right[0].length; c++) {
                for (int k = 0; k < right.length; k++) {
                    product[r][c] ^= mul(left[r][k], right[k][c]);
                }
            }
        }
        return product;
    }

    static int[][] inverse(int[][] square) {
        int n = square.length;
        int[][] a = new int[n][2 * n];
        for (int r = 0; r < n; r++) {
            System.arraycopy(square[r], 0, a[r], 0, n);
            a[r][n + r] = 1;
        }
        for (int col = 0; col < n; col++) {
            int pivot = col;
            while (a[pivot][col] == 0) {
                pivot++;
            }
            int[] swap = a[pivot];
            a[pivot] = a[col];
            a[col] = swap;
            int scale = inv(a[col][col]);
            for (int c = 0; c < 2 * n; c++) {
                a[col][c] = mul(a[col][c], scale);
            }
            for (int r = 0; r < n; r++) {
                if (r != col) {
                    int factor = a[r][col];
                    for (int c = 0; c < 2 * n; c++) {
                        a[r][c] ^= mul(factor, a[col][c]);
                    }
                }
            }
        }
        int[][] result = new int[n][n];
        for (int r = 0; r < n; r++) {
            System.arraycopy(a[r], n, result[r], 0, n);
        }
        return result;
    }

    int[][] matrix() {
        return matrix;
    }

    /** Returns the P parity shards for the D data shards (each {@code length} bytes from 0). */
    byte[][] parity(byte[][] dataShards, int length) {
        byte[][] parityShards = new byte[parity][length];
        for (int j = 0; j < parity; j++) {
            for (int i = 0; i < length; i++) {
                int sum = 0;
                for (int k = 0; k < data; k++) {
                    sum ^= mul(matrix[data + j][k], dataShards[k][i] & 0xFF);
                }
                parityShards[j][i] = (byte) sum;
            }
        }
        return parityShards;
    }

    /**
     * Rebuilds all D data shards from present shards, using the LAST D present ones (the codec
     * uses the first D, so agreement also checks that the choice does not matter).
     */
    byte[][] dataFrom(byte[][] shards, boolean[] present, int length) {
        int[] rows = new int[data];
        int found = 0;
        for (int s = shards.length - 1; s >= 0 && found < data; s--) {
            if (present[s]) {
                rows[data - 1 - found++] = s;
            }
        }
        if (found < data) {
            throw new IllegalArgumentException("not enough shards");
        }
        int[][] sub = new int[data][];
        for (int r = 0; r < data; r++) {
            sub[r] = matrix[rows[r]];
        }
        int[][] decode = inverse(sub);
        byte[][] dataShards = new byte[data][length];
        for (int k = 0; k < data; k++) {
            for (int i = 0; i < length; i++) {
                int sum = 0;
                for (int r = 0; r < data; r++) {
                    sum ^= mul(decode[k][r], shards[rows[r]][i] & 0xFF);
                }
                dataShards[k][i] = (byte) sum;
            }
        }
        return dataShards;
    }
}
