package io.synod.core.erasure;

/**
 * Arithmetic in GF(2^8) with reduction polynomial x^8+x^4+x^3+x^2+1 (0x11D) and generator 2.
 *
 * <p>This is the field Backblaze JavaReedSolomon uses, so matrices and parity built from it match
 * that library byte for byte. Elements are ints in 0..255; addition is XOR and is not wrapped here.
 * All tables are computed once at class initialisation and never written afterwards, so every
 * method is safe to call from any thread.
 */
final class GaloisField {

    /** Number of field elements. */
    static final int ORDER = 256;

    /** The reduction polynomial including the x^8 term (Backblaze's constant 29 is its low byte). */
    static final int REDUCTION_POLYNOMIAL = 0x11D;

    /** The primitive element whose powers enumerate the non-zero elements. */
    static final int GENERATOR = 2;

    /** Order of the multiplicative group: exponents are taken modulo this. */
    private static final int MULTIPLICATIVE_ORDER = ORDER - 1;

    /** EXP[i] = GENERATOR^i, stored twice over so EXP[log a + log b] never needs a modulo. */
    private static final int[] EXP = new int[2 * MULTIPLICATIVE_ORDER];

    /** LOG[x] = discrete log of x for x in 1..255; LOG[0] = -1 because log 0 is undefined. */
    private static final int[] LOG = new int[ORDER];

    /**
     * MULTIPLICATION_ROWS[c][x] = c * x. A full 256-entry row per coefficient lets the coding loops
     * multiply a whole shard by a constant with one table load per byte.
     */
    private static final byte[][] MULTIPLICATION_ROWS = new byte[ORDER][ORDER];

    /**
     * PRODUCTS[(c << 8) | x] = c * x: all rows in one array. It is static final with a length the
     * JIT knows, so a loop indexing it with {@code c * 256 + (x & 0xFF)} for a coefficient c known to
     * be in 0..255 needs no bounds check per byte, which per-row arrays do. Read-only by contract.
     */
    static final byte[] PRODUCTS = new byte[ORDER * ORDER];

    static {
        LOG[0] = -1;
        int element = 1;
        for (int power = 0; power < MULTIPLICATIVE_ORDER; power++) {
            // Always-on check that the generator is primitive: a repeat before 255 steps would make
            // LOG ambiguous and every matrix built on it wrong.
            if (power > 0 && element == 1) {
                throw new IllegalStateException("generator " + GENERATOR + " has order " + power
                        + " modulo 0x" + Integer.toHexString(REDUCTION_POLYNOMIAL) + ", expected 255");
            }
            EXP[power] = element;
            EXP[power + MULTIPLICATIVE_ORDER] = element;
            LOG[element] = power;
            element <<= 1;
            if (element >= ORDER) {
                element ^= REDUCTION_POLYNOMIAL;
            }
        }
        if (element != 1) {
            throw new IllegalStateException("generator power 255 is " + element + ", expected 1");
        }
        for (int a = 0; a < ORDER; a++) {
            for (int b = 0; b < ORDER; b++) {
                MULTIPLICATION_ROWS[a][b] = (byte) multiply(a, b);
                PRODUCTS[(a << 8) | b] = MULTIPLICATION_ROWS[a][b];
            }
        }
    }

    private GaloisField() {
    }

    /** Returns GENERATOR^power for power in 0..254. */
    static int exp(int power) {
        checkRange("power", power, 0, MULTIPLICATIVE_ORDER - 1);
        return EXP[power];
    }

    /** Returns the discrete log (base GENERATOR) of a non-zero element. */
    static int log(int element) {
        checkRange("element", element, 1, ORDER - 1);
        return LOG[element];
    }

    /** Returns a * b. */
    static int multiply(int a, int b) {
        checkElement(a);
        checkElement(b);
        if (a == 0 || b == 0) {
            return 0;
        }
        return EXP[LOG[a] + LOG[b]];
    }

    /** Returns a / b for non-zero b. */
    static int divide(int a, int b) {
        checkElement(a);
        checkRange("divisor", b, 1, ORDER - 1);
        if (a == 0) {
            return 0;
        }
        return EXP[LOG[a] - LOG[b] + MULTIPLICATIVE_ORDER];
    }

    /** Returns a^n for n &gt;= 0, with a^0 = 1 for every a including 0. */
    static int power(int a, int n) {
        checkElement(a);
        if (n < 0) {
            throw new IllegalArgumentException("exponent must be >= 0, got " + n);
        }
        if (n == 0) {
            return 1;
        }
        if (a == 0) {
            return 0;
        }
        return EXP[(int) (((long) LOG[a] * n) % MULTIPLICATIVE_ORDER)];
    }

    /**
     * Returns the shared row {@code x -> coefficient * x}. Callers must treat it as read-only: it
     * is handed out without a copy because the coding loops look it up on their hot path.
     */
    static byte[] multiplicationRow(int coefficient) {
        checkElement(coefficient);
        return MULTIPLICATION_ROWS[coefficient];
    }

    private static void checkElement(int element) {
        checkRange("field element", element, 0, ORDER - 1);
    }

    private static void checkRange(String what, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(what + " must be in " + min + ".." + max + ", got " + value);
        }
    }
}
