package io.synod.core.erasure;

/**
 * Small dense matrices over {@link GaloisField}, as {@code int[row][column]} with entries 0..255.
 *
 * <p>Only used to build encoding and decoding matrices (once per codec or per erasure pattern),
 * never on the per-byte path, so clarity wins over speed here. Methods never modify their
 * arguments.
 */
final class GfMatrix {

    private GfMatrix() {
    }

    /** V[r][c] = r^c with the row index r taken as a field element (so row 0 is 1,0,0,... ). */
    static int[][] vandermonde(int rowCount, int columnCount) {
        if (rowCount < 1 || rowCount > GaloisField.ORDER || columnCount < 1) {
            throw new IllegalArgumentException("Vandermonde size must be 1..256 rows by >= 1 columns, got "
                    + rowCount + "x" + columnCount);
        }
        int[][] matrix = new int[rowCount][columnCount];
        for (int r = 0; r < rowCount; r++) {
            for (int c = 0; c < columnCount; c++) {
                matrix[r][c] = GaloisField.power(r, c);
            }
        }
        return matrix;
    }

    /** Returns left x right. */
    static int[][] multiply(int[][] left, int[][] right) {
        int inner = right.length;
        if (left.length == 0 || left[0].length != inner) {
            throw new IllegalArgumentException("cannot multiply " + left.length + "x"
                    + (left.length == 0 ? 0 : left[0].length) + " by " + inner + "x" + right[0].length);
        }
        int columns = right[0].length;
        int[][] product = new int[left.length][columns];
        for (int r = 0; r < left.length; r++) {
            for (int c = 0; c < columns; c++) {
                int sum = 0;
                for (int k = 0; k < inner; k++) {
                    sum ^= GaloisField.multiply(left[r][k], right[k][c]);
                }
                product[r][c] = sum;
            }
        }
        return product;
    }

    /** Returns a copy of rows {@code from} (inclusive) to {@code to} (exclusive). */
    static int[][] rows(int[][] matrix, int from, int to) {
        if (from < 0 || to > matrix.length || from > to) {
            throw new IllegalArgumentException("row range " + from + ".." + to + " outside 0.." + matrix.length);
        }
        int[][] copy = new int[to - from][];
        for (int r = from; r < to; r++) {
            copy[r - from] = matrix[r].clone();
        }
        return copy;
    }

    /**
     * Returns the inverse of a square matrix by Gauss-Jordan elimination.
     *
     * @throws IllegalStateException if the matrix is singular; for the matrices this codec builds
     *     that would mean a broken invariant (any D rows of the encoding matrix are independent)
     */
    static int[][] invert(int[][] square) {
        int size = square.length;
        for (int[] row : square) {
            if (row.length != size) {
                throw new IllegalArgumentException("matrix to invert must be square, got "
                        + size + " rows and a row of length " + row.length);
            }
        }
        // Work on [square | identity] and reduce the left half to the identity.
        int[][] work = new int[size][2 * size];
        for (int r = 0; r < size; r++) {
            System.arraycopy(square[r], 0, work[r], 0, size);
            work[r][size + r] = 1;
        }
        for (int pivotColumn = 0; pivotColumn < size; pivotColumn++) {
            int pivotRow = pivotColumn;
            while (pivotRow < size && work[pivotRow][pivotColumn] == 0) {
                pivotRow++;
            }
            if (pivotRow == size) {
                throw new IllegalStateException("singular " + size + "x" + size
                        + " matrix: no pivot in column " + pivotColumn);
            }
            int[] swap = work[pivotRow];
            work[pivotRow] = work[pivotColumn];
            work[pivotColumn] = swap;

            int[] pivot = work[pivotColumn];
            int scale = GaloisField.divide(1, pivot[pivotColumn]);
            for (int c = 0; c < 2 * size; c++) {
                pivot[c] = GaloisField.multiply(pivot[c], scale);
            }
            for (int r = 0; r < size; r++) {
                int factor = work[r][pivotColumn];
                if (r != pivotColumn && factor != 0) {
                    for (int c = 0; c < 2 * size; c++) {
                        work[r][c] ^= GaloisField.multiply(factor, pivot[c]);
                    }
                }
            }
        }
        int[][] inverse = new int[size][size];
        for (int r = 0; r < size; r++) {
            System.arraycopy(work[r], size, inverse[r], 0, size);
        }
        return inverse;
    }

    /** True if the matrix is the square identity. */
    static boolean isIdentity(int[][] matrix) {
        for (int r = 0; r < matrix.length; r++) {
            if (matrix[r].length != matrix.length) {
                return false;
            }
            for (int c = 0; c < matrix.length; c++) {
                if (matrix[r][c] != (r == c ? 1 : 0)) {
                    return false;
                }
            }
        }
        return true;
    }
}
