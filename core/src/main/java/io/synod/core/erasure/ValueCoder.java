package io.synod.core.erasure;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Splits a value into D data shards plus P parity shards for RS-Paxos coded accepts, and rebuilds
 * the value from any D intact shards.
 *
 * <p>A value of L bytes (L may be 0) becomes D data payloads of S = ceil(L / D) bytes, the value's
 * bytes in order with the last payloads zero-padded, and P parity payloads computed by
 * {@link ReedSolomonCodec}. Each {@link ValueShard} records D, P, its index, L and the value's
 * CRC32C, and carries its own checksum. Rebuilding checks that the shards agree with each other
 * and with this coder, ignores corrupt encodings ({@link #decodeEncoded}), and finally checks the
 * rebuilt value against the recorded value checksum.
 *
 * <p>Immutable and safe to share between threads.
 */
public final class ValueCoder {

    private final ReedSolomonCodec codec;

    /**
     * @throws IllegalArgumentException if either count is below 1 or their sum exceeds 256
     */
    public ValueCoder(int dataShardCount, int parityShardCount) {
        this.codec = new ReedSolomonCodec(dataShardCount, parityShardCount);
    }

    /** Data shard count D: how many shards rebuild a value. */
    public int dataShardCount() {
        return codec.dataShardCount();
    }

    /** Parity shard count P: how many shards may be lost. */
    public int parityShardCount() {
        return codec.parityShardCount();
    }

    /**
     * Payload bytes per shard for a value of {@code valueLength} bytes: ceil(valueLength / D).
     *
     * @throws IllegalArgumentException if valueLength is negative or dataShardCount below 1
     */
    public static int shardPayloadLength(int valueLength, int dataShardCount) {
        if (valueLength < 0) {
            throw new IllegalArgumentException("valueLength must be >= 0, got " + valueLength);
        }
        if (dataShardCount < 1) {
            throw new IllegalArgumentException("dataShardCount must be >= 1, got " + dataShardCount);
        }
        return (int) (((long) valueLength + dataShardCount - 1) / dataShardCount);
    }

    /**
     * Encodes a whole value into D + P shards, in index order.
     *
     * @throws IllegalArgumentException if value is null or too large for one shard encoding
     */
    public List<ValueShard> encode(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("value must not be null");
        }
        return encode(value, 0, value.length);
    }

    /**
     * Encodes {@code length} bytes of {@code value} from {@code offset} into D + P shards, in index
     * order. The value bytes are copied; the caller may reuse the array afterwards.
     *
     * @throws IllegalArgumentException if value is null, the range is outside it, or a shard would
     *     exceed {@link ValueShard#MAX_PAYLOAD_BYTES}
     */
    public List<ValueShard> encode(byte[] value, int offset, int length) {
        int payloadLength = checkedPayloadLength(value, offset, length);
        int total = codec.totalShardCount();
        byte[][] payloads = new byte[total][payloadLength];
        int valueChecksum = codeInto(payloads, 0, payloadLength, value, offset, length);
        List<ValueShard> shards = new ArrayList<>(total);
        for (int s = 0; s < total; s++) {
            shards.add(new ValueShard(codec.dataShardCount(), codec.parityShardCount(), s, length, valueChecksum, payloads[s]));
        }
        return List.copyOf(shards);
    }

    /**
     * Encodes a whole value straight into its D + P shard encodings, in index order: element i is exactly
     * {@code encode(value).get(i).toBytes()}, but each payload is written once, in place, into its encoding
     * (one array per shard, no separate payload arrays, no copies). The value checksum is in every
     * encoding's header ({@link ValueShard#valueChecksumOf}). This is the leader's path for coded accepts.
     *
     * @throws IllegalArgumentException if value is null or a shard encoding would not fit in an array
     */
    public byte[][] encodeToBytes(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("value must not be null");
        }
        int payloadLength = checkedPayloadLength(value, 0, value.length);
        byte[][] encodings = new byte[codec.totalShardCount()][ValueShard.OVERHEAD_BYTES + payloadLength];
        int valueChecksum = codeInto(encodings, ValueShard.HEADER_BYTES, payloadLength, value, 0, value.length);
        for (int s = 0; s < encodings.length; s++) {
            ValueShard.completeEncoding(encodings[s], codec.dataShardCount(), codec.parityShardCount(), s, value.length,
                    valueChecksum);
        }
        return encodings;
    }

    /** Validates the range and returns the payload length ceil(length / D). */
    private int checkedPayloadLength(byte[] value, int offset, int length) {
        if (value == null) {
            throw new IllegalArgumentException("value must not be null");
        }
        if (offset < 0 || length < 0 || (long) offset + length > value.length) {
            throw new IllegalArgumentException("range offset " + offset + " length " + length
                    + " is outside a value array of " + value.length + " bytes");
        }
        int data = codec.dataShardCount();
        int payloadLength = shardPayloadLength(length, data);
        if (payloadLength > ValueShard.MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("a value of " + length + " bytes over " + data
                    + " data shards needs " + payloadLength + "-byte shards, above the maximum " + ValueShard.MAX_PAYLOAD_BYTES);
        }
        return payloadLength;
    }

    /**
     * Writes the value's data payloads at {@code at} in the first D (zeroed) arrays, the parity payloads in the
     * others, and returns the value's CRC32C.
     */
    private int codeInto(byte[][] shards, int at, int payloadLength, byte[] value, int offset, int length) {
        for (int k = 0; k < codec.dataShardCount(); k++) {
            long start = (long) k * payloadLength;
            int copied = (int) Math.max(0, Math.min(payloadLength, length - start));
            if (copied > 0) {
                System.arraycopy(value, offset + (int) start, shards[k], at, copied);
            }
        }
        codec.encodeParity(shards, at, payloadLength);
        CRC32C crc = new CRC32C();
        crc.update(value, offset, length);
        return (int) crc.getValue();
    }

    /**
     * Rebuilds a value from encoded shards as received from peers or read from disk. Encodings that
     * fail {@link ValueShard#fromBytes} (corrupt, truncated, wrong version) count as missing.
     *
     * @throws NotEnoughShardsException if fewer than D distinct intact shards remain; the message
     *     lists why the rejected ones were rejected
     * @throws IllegalArgumentException if the intact shards do not belong to one value of this
     *     coder's geometry, or the rebuilt value fails its checksum
     */
    public byte[] decodeEncoded(Collection<byte[]> encodedShards) {
        if (encodedShards == null) {
            throw new IllegalArgumentException("encodedShards must not be null");
        }
        List<ValueShard> intact = new ArrayList<>(encodedShards.size());
        List<String> rejected = new ArrayList<>();
        for (byte[] encoded : encodedShards) {
            if (encoded == null) {
                throw new IllegalArgumentException("encodedShards must not contain null");
            }
            try {
                intact.add(ValueShard.fromBytes(encoded));
            } catch (ShardFormatException e) {
                rejected.add(e.getMessage());
            }
        }
        int distinct = distinctIndexCount(intact);
        if (distinct < codec.dataShardCount()) {
            throw new NotEnoughShardsException("need " + codec.dataShardCount() + " intact shards to rebuild the value, have "
                    + distinct + "; " + rejected.size() + " rejected as missing: " + rejected,
                    distinct, codec.dataShardCount());
        }
        return decode(intact);
    }

    /**
     * Rebuilds a value from any D or more of its shards (duplicates of one index are allowed if
     * identical).
     *
     * @throws NotEnoughShardsException if fewer than D distinct shard indexes are given
     * @throws IllegalArgumentException if a shard is null, was coded with another (D,P), the shards
     *     disagree about the value (length, checksum, or two different payloads for one index), or
     *     the rebuilt value fails its checksum
     */
    public byte[] decode(Collection<ValueShard> shards) {
        if (shards == null) {
            throw new IllegalArgumentException("shards must not be null");
        }
        int data = codec.dataShardCount();
        int parity = codec.parityShardCount();
        int total = codec.totalShardCount();
        ValueShard[] byIndex = new ValueShard[total];
        ValueShard first = null;
        for (ValueShard shard : shards) {
            if (shard == null) {
                throw new IllegalArgumentException("shards must not contain null");
            }
            if (shard.dataShardCount() != data || shard.parityShardCount() != parity) {
                throw new IllegalArgumentException("shard " + shard.index() + " was coded as (" + shard.dataShardCount()
                        + "," + shard.parityShardCount() + ") but this coder is (" + data + "," + parity + ")");
            }
            if (first == null) {
                first = shard;
            } else if (shard.valueLength() != first.valueLength() || shard.valueChecksum() != first.valueChecksum()) {
                throw new IllegalArgumentException("shards belong to different values: shard " + first.index()
                        + " has value length " + first.valueLength() + " checksum 0x" + Integer.toHexString(first.valueChecksum())
                        + ", shard " + shard.index() + " has " + shard.valueLength() + " checksum 0x"
                        + Integer.toHexString(shard.valueChecksum()));
            }
            ValueShard earlier = byIndex[shard.index()];
            if (earlier != null && !Arrays.equals(earlier.payloadArray(), shard.payloadArray())) {
                throw new IllegalArgumentException("two different shards claim index " + shard.index());
            }
            byIndex[shard.index()] = shard;
        }
        int available = 0;
        for (ValueShard shard : byIndex) {
            available += shard == null ? 0 : 1;
        }
        if (available < data) {
            throw new NotEnoughShardsException("need " + data + " shards to rebuild the value, have " + available,
                    available, data);
        }

        int valueLength = first.valueLength();
        int payloadLength = first.payloadLength();
        byte[][] stripe = new byte[total][];
        boolean[] present = new boolean[total];
        byte[] absentParityPlaceholder = null;
        int missingData = 0;
        for (int s = 0; s < total; s++) {
            if (byIndex[s] != null) {
                // Present shards are only read by the codec, so their own payloads serve directly.
                stripe[s] = byIndex[s].payloadArray();
                present[s] = true;
            } else if (s < data) {
                stripe[s] = new byte[payloadLength];
                missingData++;
            } else {
                // reconstructData neither reads nor writes absent parity; one array stands in for all.
                if (absentParityPlaceholder == null) {
                    absentParityPlaceholder = new byte[payloadLength];
                }
                stripe[s] = absentParityPlaceholder;
            }
        }
        if (missingData > 0) {
            codec.reconstructData(stripe, present, 0, payloadLength);
        }

        byte[] value = new byte[valueLength];
        for (int k = 0; k < data; k++) {
            long start = (long) k * payloadLength;
            int copied = (int) Math.max(0, Math.min(payloadLength, valueLength - start));
            if (copied > 0) {
                System.arraycopy(stripe[k], 0, value, (int) start, copied);
            }
            for (int i = copied; i < payloadLength; i++) {
                if (stripe[k][i] != 0) {
                    throw new IllegalArgumentException("data shard " + k + " has a non-zero padding byte at " + i
                            + ": the shards are inconsistent");
                }
            }
        }
        CRC32C crc = new CRC32C();
        crc.update(value);
        if ((int) crc.getValue() != first.valueChecksum()) {
            throw new IllegalArgumentException("rebuilt value does not match its checksum (expected 0x"
                    + Integer.toHexString(first.valueChecksum()) + ", got 0x" + Integer.toHexString((int) crc.getValue())
                    + "): the shards are inconsistent");
        }
        return value;
    }

    private static int distinctIndexCount(List<ValueShard> shards) {
        boolean[] seen = new boolean[ReedSolomonCodec.MAX_TOTAL_SHARD_COUNT];
        int distinct = 0;
        for (ValueShard shard : shards) {
            if (!seen[shard.index()]) {
                seen[shard.index()] = true;
                distinct++;
            }
        }
        return distinct;
    }

    @Override
    public String toString() {
        return "ValueCoder(" + codec.dataShardCount() + " data, " + codec.parityShardCount() + " parity)";
    }
}
