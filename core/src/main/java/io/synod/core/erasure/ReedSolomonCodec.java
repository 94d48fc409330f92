package io.synod.core.erasure;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Systematic Reed-Solomon erasure codec over GF(2^8), byte-compatible with Backblaze
 * JavaReedSolomon: same field (polynomial 0x11D, generator 2) and the same encoding matrix (a
 * (D+P) x D Vandermonde matrix times the inverse of its top D x D block), so parity computed here
 * equals the parity that library computes, and either can rebuild the other's shards.
 *
 * <p>A codec works on one stripe of D + P equally long shards: data shards 0..D-1 followed by
 * parity shards D..D+P-1. Every method takes the whole stripe and the byte range to code, so a
 * caller can code a large shard set piece by piece. Byte {@code i} of every shard is independent
 * of every other byte position; any length, including 0 and odd lengths, is allowed.
 *
 * <p>Shards are given as {@code byte[][]} (one common offset and length) or as {@link ByteBuffer}s
 * (each buffer's bytes from its position to its limit, all with the same number remaining; the
 * positions and limits are not changed). Heap buffers are coded through their backing arrays at
 * full speed; direct or read-only buffers take a slower byte-at-a-time path. Nothing is copied.
 *
 * <p>Instances are immutable apart from a bounded, lock-free cache of decode matrices (one fixed
 * slot per single lost shard plus 128 slots for multi-shard erasure patterns), so one codec may
 * be shared by any number of threads. Encoding and reconstruction do not allocate once the erasure pattern is
 * cached. Callers must not let one thread write shards that another thread is coding.
 */
public final class ReedSolomonCodec {

    /** Largest D + P: a GF(2^8) Vandermonde matrix has at most 256 distinct rows. */
    public static final int MAX_TOTAL_SHARD_COUNT = GaloisField.ORDER;

    private final int dataShardCount;
    private final int parityShardCount;
    private final int totalShardCount;
    private final int[][] encodingMatrix;
    private final CodingPlan parityPlan;
    private final DecodePlanCache decodePlanCache;
    private final ScratchPool scratch = new ScratchPool(CodingLoops.BLOCK_BYTES);

    /**
     * Creates a codec for {@code dataShardCount} data shards and {@code parityShardCount} parity
     * shards.
     *
     * @throws IllegalArgumentException if either count is below 1 or their sum exceeds 256
     */
    public ReedSolomonCodec(int dataShardCount, int parityShardCount) {
        if (dataShardCount < 1) {
            throw new IllegalArgumentException("dataShardCount must be >= 1, got " + dataShardCount);
        }
        if (parityShardCount < 1) {
            throw new IllegalArgumentException("parityShardCount must be >= 1, got " + parityShardCount);
        }
        if (dataShardCount + parityShardCount > MAX_TOTAL_SHARD_COUNT) {
            throw new IllegalArgumentException("dataShardCount + parityShardCount must be <= "
                    + MAX_TOTAL_SHARD_COUNT + ", got " + dataShardCount + " + " + parityShardCount
                    + " = " + (dataShardCount + parityShardCount));
        }
        this.dataShardCount = dataShardCount;
        this.parityShardCount = parityShardCount;
        this.totalShardCount = dataShardCount + parityShardCount;

        int[][] vandermonde = GfMatrix.vandermonde(totalShardCount, dataShardCount);
        int[][] topInverse = GfMatrix.invert(GfMatrix.rows(vandermonde, 0, dataShardCount));
        this.encodingMatrix = GfMatrix.multiply(vandermonde, topInverse);
        if (!GfMatrix.isIdentity(GfMatrix.rows(encodingMatrix, 0, dataShardCount))) {
            throw new IllegalStateException("encoding matrix for (" + dataShardCount + ","
                    + parityShardCount + ") is not systematic: top block is not the identity");
        }

        long[] parityBits = new long[4];
        for (int shard = dataShardCount; shard < totalShardCount; shard++) {
            parityBits[shard >>> 6] |= 1L << shard;
        }
        this.parityPlan = CodingPlan.forMissing(encodingMatrix, parityBits, true);
        for (int parity = 0; parity < parityShardCount; parity++) {
            if (!Arrays.equals(parityPlan.coefficients[parity], encodingMatrix[dataShardCount + parity])) {
                throw new IllegalStateException("parity plan row " + parity + " differs from the encoding matrix");
            }
        }
        this.decodePlanCache = new DecodePlanCache(encodingMatrix);
    }

    /** Number of data shards D. */
    public int dataShardCount() {
        return dataShardCount;
    }

    /** Number of parity shards P: the most shards that can be lost and rebuilt. */
    public int parityShardCount() {
        return parityShardCount;
    }

    /** D + P. */
    public int totalShardCount() {
        return totalShardCount;
    }

    /**
     * Returns a copy of the (D+P) x D encoding matrix, entries 0..255. Rows 0..D-1 are the
     * identity; parity shard j is row D+j applied to the data shards.
     */
    public int[][] encodingMatrix() {
        return GfMatrix.rows(encodingMatrix, 0, totalShardCount);
    }

    /**
     * Computes the parity shards from the data shards over bytes {@code [offset, offset+length)}.
     *
     * @param shards D data shards followed by P parity shards (overwritten), all the same length
     * @throws IllegalArgumentException on a wrong shard count, a null or aliased shard, differing
     *     shard lengths, or a range outside the shards
     */
    public void encodeParity(byte[][] shards, int offset, int length) {
        checkArrayShards(shards, offset, length);
        checkOutputsDoNotAlias(shards, parityPlan, parityShardCount, length);
        CodingLoops.run(parityPlan, false, shards, offset, length, scratch);
    }

    /**
     * Computes the parity shards from the data shards, each buffer from its position to its limit.
     *
     * @param shards D data buffers followed by P writable parity buffers, all with equal remaining
     * @throws IllegalArgumentException on a wrong shard count, a null, aliased or read-only output
     *     buffer, or differing remaining lengths
     */
    public void encodeParity(ByteBuffer[] shards) {
        int length = checkBufferShards(shards);
        checkOutputsDoNotAlias(shards, parityPlan, parityShardCount, length);
        CodingLoops.run(parityPlan, false, shards, 0, length, scratch);
    }

    /**
     * Returns true if every parity shard matches the data shards over
     * {@code [offset, offset+length)}. Reads the shards only; does not allocate.
     *
     * @throws IllegalArgumentException on a wrong shard count, a null shard, differing shard
     *     lengths, or a range outside the shards
     */
    public boolean isParityCorrect(byte[][] shards, int offset, int length) {
        checkArrayShards(shards, offset, length);
        return CodingLoops.matches(parityPlan, shards, offset, length);
    }

    /**
     * Returns true if every parity buffer matches the data buffers, each from position to limit.
     *
     * @throws IllegalArgumentException on a wrong shard count, a null shard or differing remaining
     */
    public boolean isParityCorrect(ByteBuffer[] shards) {
        int length = checkBufferShards(shards);
        return CodingLoops.matches(parityPlan, shards, 0, length);
    }

    /**
     * Rebuilds every missing shard, data and parity, over {@code [offset, offset+length)}. The
     * arrays of missing shards must be supplied (their contents are overwritten), which keeps this
     * call allocation-free. Present shards are only read.
     *
     * @param shardPresent {@code shardPresent[i]} is false for each shard to rebuild
     * @throws NotEnoughShardsException if more than P shards are missing
     * @throws IllegalArgumentException on a wrong shard or flag count, a null or aliased shard,
     *     differing shard lengths, or a range outside the shards
     */
    public void reconstruct(byte[][] shards, boolean[] shardPresent, int offset, int length) {
        reconstruct(shards, shardPresent, offset, length, false);
    }

    /**
     * Rebuilds only the missing data shards (what a reader needs to return the value), leaving
     * missing parity shards untouched. Otherwise as {@link #reconstruct(byte[][], boolean[], int, int)}.
     */
    public void reconstructData(byte[][] shards, boolean[] shardPresent, int offset, int length) {
        reconstruct(shards, shardPresent, offset, length, true);
    }

    /**
     * Rebuilds every missing shard, data and parity, in buffers coded from position to limit.
     * Missing shards' buffers must be supplied and writable; their contents are overwritten.
     *
     * @throws NotEnoughShardsException if more than P shards are missing
     * @throws IllegalArgumentException on a wrong shard or flag count, a null, aliased or
     *     read-only output buffer, or differing remaining lengths
     */
    public void reconstruct(ByteBuffer[] shards, boolean[] shardPresent) {
        reconstruct(shards, shardPresent, false);
    }

    /**
     * Rebuilds only the missing data shards in buffers, leaving missing parity buffers untouched.
     * Otherwise as {@link #reconstruct(ByteBuffer[], boolean[])}.
     */
    public void reconstructData(ByteBuffer[] shards, boolean[] shardPresent) {
        reconstruct(shards, shardPresent, true);
    }

    private void reconstruct(byte[][] shards, boolean[] shardPresent, int offset, int length, boolean dataOnly) {
        checkArrayShards(shards, offset, length);
        CodingPlan plan = planFor(shardPresent);
        if (plan == null) {
            return;
        }
        int outputCount = dataOnly ? plan.dataOutputCount : plan.outputShardIndexes.length;
        checkOutputsDoNotAlias(shards, plan, outputCount, length);
        CodingLoops.run(plan, dataOnly, shards, offset, length, scratch);
    }

    private void reconstruct(ByteBuffer[] shards, boolean[] shardPresent, boolean dataOnly) {
        int length = checkBufferShards(shards);
        CodingPlan plan = planFor(shardPresent);
        if (plan == null) {
            return;
        }
        int outputCount = dataOnly ? plan.dataOutputCount : plan.outputShardIndexes.length;
        checkOutputsDoNotAlias(shards, plan, outputCount, length);
        CodingLoops.run(plan, dataOnly, shards, 0, length, scratch);
    }

    /** Returns the plan for the shards flagged absent, or null if none is. */
    private CodingPlan planFor(boolean[] shardPresent) {
        if (shardPresent == null) {
            throw new IllegalArgumentException("shardPresent must not be null");
        }
        if (shardPresent.length != totalShardCount) {
            throw new IllegalArgumentException("shardPresent must have " + totalShardCount
                    + " flags (one per shard), got " + shardPresent.length);
        }
        long bits0 = 0;
        long bits1 = 0;
        long bits2 = 0;
        long bits3 = 0;
        int missingCount = 0;
        for (int shard = 0; shard < totalShardCount; shard++) {
            if (!shardPresent[shard]) {
                missingCount++;
                long bit = 1L << shard;
                switch (shard >>> 6) {
                    case 0: bits0 |= bit; break;
                    case 1: bits1 |= bit; break;
                    case 2: bits2 |= bit; break;
                    default: bits3 |= bit; break;
                }
            }
        }
        if (missingCount == 0) {
            return null;
        }
        if (missingCount > parityShardCount) {
            throw new NotEnoughShardsException(missingCount + " of " + totalShardCount
                    + " shards are missing but at most " + parityShardCount
                    + " (the parity shard count) can be rebuilt: need " + dataShardCount
                    + " present shards, have " + (totalShardCount - missingCount),
                    totalShardCount - missingCount, dataShardCount);
        }
        return decodePlanCache.planFor(bits0, bits1, bits2, bits3);
    }

    private void checkArrayShards(byte[][] shards, int offset, int length) {
        checkShardCount(shards);
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, got " + offset);
        }
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0, got " + length);
        }
        int shardLength = -1;
        for (int shard = 0; shard < totalShardCount; shard++) {
            if (shards[shard] == null) {
                throw new IllegalArgumentException("shard " + shard + " is null");
            }
            if (shard == 0) {
                shardLength = shards[0].length;
            } else if (shards[shard].length != shardLength) {
                throw new IllegalArgumentException("shard lengths differ: shard 0 has " + shardLength
                        + " bytes but shard " + shard + " has " + shards[shard].length);
            }
        }
        if ((long) offset + length > shardLength) {
            throw new IllegalArgumentException("offset " + offset + " + length " + length
                    + " exceeds the shard length " + shardLength);
        }
    }

    private int checkBufferShards(ByteBuffer[] shards) {
        checkShardCount(shards);
        int length = -1;
        for (int shard = 0; shard < totalShardCount; shard++) {
            if (shards[shard] == null) {
                throw new IllegalArgumentException("shard " + shard + " is null");
            }
            if (shard == 0) {
                length = shards[0].remaining();
            } else if (shards[shard].remaining() != length) {
                throw new IllegalArgumentException("shard lengths differ: shard 0 has " + length
                        + " bytes remaining but shard " + shard + " has " + shards[shard].remaining());
            }
        }
        return length;
    }

    private void checkShardCount(Object[] shards) {
        if (shards == null) {
            throw new IllegalArgumentException("shards must not be null");
        }
        if (shards.length != totalShardCount) {
            throw new IllegalArgumentException("expected " + totalShardCount + " shards (" + dataShardCount
                    + " data + " + parityShardCount + " parity), got " + shards.length);
        }
    }

    /**
     * Rejects outputs that are read-only or share storage with another shard: writing one would
     * silently corrupt an input or another output.
     */
    private void checkOutputsDoNotAlias(Object[] shards, CodingPlan plan, int outputCount, int length) {
        for (int out = 0; out < outputCount; out++) {
            int outIndex = plan.outputShardIndexes[out];
            Object output = shards[outIndex];
            if (output instanceof ByteBuffer && ((ByteBuffer) output).isReadOnly()) {
                throw new IllegalArgumentException("shard " + outIndex + " is a read-only buffer but must be written");
            }
            for (int other = 0; other < totalShardCount; other++) {
                if (other != outIndex && overlap(output, shards[other], length)) {
                    throw new IllegalArgumentException("shard " + outIndex + " shares storage with shard "
                            + other + ": every shard written must be distinct");
                }
            }
        }
    }

    private static boolean overlap(Object first, Object second, int length) {
        if (first == second) {
            return true;
        }
        if (first instanceof ByteBuffer && second instanceof ByteBuffer) {
            ByteBuffer a = (ByteBuffer) first;
            ByteBuffer b = (ByteBuffer) second;
            if (length == 0 || !a.hasArray() || !b.hasArray() || a.array() != b.array()) {
                return false;
            }
            int aStart = a.arrayOffset() + a.position();
            int bStart = b.arrayOffset() + b.position();
            return aStart < bStart + length && bStart < aStart + length;
        }
        return false;
    }

    @Override
    public String toString() {
        return "ReedSolomonCodec(" + dataShardCount + " data, " + parityShardCount + " parity)";
    }
}
