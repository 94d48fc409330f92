package io.synod.core.erasure;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * One shard of an erasure-coded value: which value geometry it belongs to, its index in the
 * stripe, the original value's length and checksum, its payload bytes, and a checksum over all of
 * that, so a shard corrupted in flight or on disk is detected and can be treated as missing.
 *
 * <p>Wire and disk encoding, format version 1, integers big-endian:
 * <pre>
 * offset  bytes  field
 *      0      1  magic 0xEC
 *      1      1  format version (1)
 *      2      1  data shard count D (1..255)
 *      3      1  parity shard count P (1..255), D + P &lt;= 256
 *      4      1  shard index (0..D+P-1; below D is a data shard)
 *      5      4  value length L (0..2^31-1)
 *      9      4  CRC32C of the whole value
 *     13      4  payload length S, always ceil(L / D)
 *     17      S  payload
 *   17+S      4  CRC32C of bytes 0..17+S-1
 * </pre>
 * {@link #fromBytes} checks every field, and that the byte count equals what the header declares,
 * before allocating anything, so bad input fails with a {@link ShardFormatException} naming the
 * problem and never triggers an allocation sized by an unchecked length.
 *
 * <p>Instances are immutable: the payload is copied in and out.
 */
public final class ValueShard {

    /** The encoding version written by {@link #toBytes()} and accepted by {@link #fromBytes}. */
    public static final int FORMAT_VERSION = 1;

    /** Bytes before the payload. */
    public static final int HEADER_BYTES = 17;

    /** Bytes after the payload (the shard checksum). */
    public static final int TRAILER_BYTES = 4;

    /** Encoded size of a shard with an empty payload. */
    public static final int OVERHEAD_BYTES = HEADER_BYTES + TRAILER_BYTES;

    /** Largest payload: keeps the encoded shard within the largest Java array. */
    public static final int MAX_PAYLOAD_BYTES = Integer.MAX_VALUE - 8 - OVERHEAD_BYTES;

    private static final int MAGIC = 0xEC;

    private final int dataShardCount;
    private final int parityShardCount;
    private final int index;
    private final int valueLength;
    private final int valueChecksum;
    private final byte[] payload;
    private final int shardChecksum;

    /** Takes ownership of {@code payload}; used by {@link ValueCoder}, which never shares it. */
    ValueShard(int dataShardCount, int parityShardCount, int index, int valueLength, int valueChecksum,
            byte[] payload) {
        String problem = headerProblem(dataShardCount, parityShardCount, index, valueLength, payload.length);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        this.dataShardCount = dataShardCount;
        this.parityShardCount = parityShardCount;
        this.index = index;
        this.valueLength = valueLength;
        this.valueChecksum = valueChecksum;
        this.payload = payload;
        byte[] header = new byte[HEADER_BYTES];
        writeHeader(header);
        CRC32C crc = new CRC32C();
        crc.update(header);
        crc.update(payload);
        this.shardChecksum = (int) crc.getValue();
    }

    /**
     * Decodes a shard from exactly {@code bytes}.
     *
     * @throws ShardFormatException if the bytes are not a well-formed, intact version-1 shard
     */
    public static ValueShard fromBytes(byte[] bytes) {
        if (bytes == null) {
            throw new IllegalArgumentException("bytes must not be null");
        }
        return fromBytes(bytes, 0, bytes.length);
    }

    /**
     * Decodes a shard from exactly {@code length} bytes of {@code bytes} starting at {@code offset}.
     *
     * @throws IllegalArgumentException if the range is outside the array
     * @throws ShardFormatException if the bytes are not a well-formed, intact version-1 shard
     */
    public static ValueShard fromBytes(byte[] bytes, int offset, int length) {
        if (bytes == null) {
            throw new IllegalArgumentException("bytes must not be null");
        }
        if (offset < 0 || length < 0 || (long) offset + length > bytes.length) {
            throw new IllegalArgumentException("range offset " + offset + " length " + length
                    + " is outside an array of " + bytes.length + " bytes");
        }
        if (length < OVERHEAD_BYTES) {
            throw new ShardFormatException("shard encoding is " + length + " bytes, shorter than the "
                    + OVERHEAD_BYTES + "-byte minimum (header and checksum)");
        }
        int magic = bytes[offset] & 0xFF;
        if (magic != MAGIC) {
            throw new ShardFormatException("bad magic byte 0x" + Integer.toHexString(magic)
                    + " (expected 0x" + Integer.toHexString(MAGIC) + "): not a value shard");
        }
        int version = bytes[offset + 1] & 0xFF;
        if (version != FORMAT_VERSION) {
            throw new ShardFormatException("unsupported shard format version " + version
                    + " (this build reads version " + FORMAT_VERSION + ")");
        }
        int dataShardCount = bytes[offset + 2] & 0xFF;
        int parityShardCount = bytes[offset + 3] & 0xFF;
        int index = bytes[offset + 4] & 0xFF;
        int valueLength = readInt(bytes, offset + 5);
        int valueChecksum = readInt(bytes, offset + 9);
        int payloadLength = readInt(bytes, offset + 13);
        String problem = headerProblem(dataShardCount, parityShardCount, index, valueLength, payloadLength);
        if (problem != null) {
            throw new ShardFormatException(problem);
        }
        long declaredLength = (long) OVERHEAD_BYTES + payloadLength;
        if (declaredLength != length) {
            throw new ShardFormatException("shard encoding is " + length + " bytes but its header declares "
                    + OVERHEAD_BYTES + " + " + payloadLength + " = " + declaredLength + " (truncated or padded)");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, HEADER_BYTES + payloadLength);
        int computed = (int) crc.getValue();
        int stored = readInt(bytes, offset + HEADER_BYTES + payloadLength);
        if (computed != stored) {
            throw new ShardFormatException("checksum mismatch for shard " + index + ": stored 0x"
                    + Integer.toHexString(stored) + ", computed 0x" + Integer.toHexString(computed)
                    + " (the shard is corrupt)");
        }
        byte[] payload = Arrays.copyOfRange(bytes, offset + HEADER_BYTES, offset + HEADER_BYTES + payloadLength);
        return new ValueShard(dataShardCount, parityShardCount, index, valueLength, valueChecksum, payload);
    }

    /** Returns null if the header fields are consistent, else what is wrong with them. */
    private static String headerProblem(int dataShardCount, int parityShardCount, int index, int valueLength,
            int payloadLength) {
        if (dataShardCount < 1 || parityShardCount < 1
                || dataShardCount + parityShardCount > ReedSolomonCodec.MAX_TOTAL_SHARD_COUNT) {
            return "impossible shard counts: " + dataShardCount + " data + " + parityShardCount
                    + " parity (each must be >= 1, total <= " + ReedSolomonCodec.MAX_TOTAL_SHARD_COUNT + ")";
        }
        if (index < 0 || index >= dataShardCount + parityShardCount) {
            return "shard index " + index + " is outside 0.." + (dataShardCount + parityShardCount - 1);
        }
        if (valueLength < 0) {
            return "value length must be >= 0, got " + valueLength;
        }
        int expectedPayload = ValueCoder.shardPayloadLength(valueLength, dataShardCount);
        if (payloadLength != expectedPayload) {
            return "payload length " + payloadLength + " disagrees with value length " + valueLength
                    + " over " + dataShardCount + " data shards (expected " + expectedPayload + ")";
        }
        if (payloadLength > MAX_PAYLOAD_BYTES) {
            return "payload length " + payloadLength + " exceeds the maximum " + MAX_PAYLOAD_BYTES;
        }
        return null;
    }

    /** Returns the encoding described in the class comment; a new array each call. */
    public byte[] toBytes() {
        byte[] bytes = new byte[encodedLength()];
        writeHeader(bytes);
        System.arraycopy(payload, 0, bytes, HEADER_BYTES, payload.length);
        writeInt(bytes, HEADER_BYTES + payload.length, shardChecksum);
        return bytes;
    }

    /** Size of {@link #toBytes()}: payload plus {@link #OVERHEAD_BYTES}. */
    public int encodedLength() {
        return OVERHEAD_BYTES + payload.length;
    }

    private void writeHeader(byte[] target) {
        writeHeader(target, dataShardCount, parityShardCount, index, valueLength, valueChecksum, payload.length);
    }

    private static void writeHeader(byte[] target, int dataShardCount, int parityShardCount, int index, int valueLength,
            int valueChecksum, int payloadLength) {
        target[0] = (byte) MAGIC;
        target[1] = (byte) FORMAT_VERSION;
        target[2] = (byte) dataShardCount;
        target[3] = (byte) parityShardCount;
        target[4] = (byte) index;
        writeInt(target, 5, valueLength);
        writeInt(target, 9, valueChecksum);
        writeInt(target, 13, payloadLength);
    }

    /**
     * Completes, in place, an encoding whose payload is already at {@link #HEADER_BYTES}: writes the header
     * and the trailing checksum, so {@code encoding} is exactly what {@link #toBytes()} of that shard gives.
     * For {@link ValueCoder#encodeToBytes}, which codes straight into the encodings (no payload copies).
     */
    static void completeEncoding(byte[] encoding, int dataShardCount, int parityShardCount, int index, int valueLength,
            int valueChecksum) {
        int payloadLength = encoding.length - OVERHEAD_BYTES;
        writeHeader(encoding, dataShardCount, parityShardCount, index, valueLength, valueChecksum, payloadLength);
        CRC32C crc = new CRC32C();
        crc.update(encoding, 0, HEADER_BYTES + payloadLength);
        writeInt(encoding, HEADER_BYTES + payloadLength, (int) crc.getValue());
    }

    /**
     * The value CRC32C recorded in a shard encoding's header, read without checking the encoding (for the
     * encoder's own output; use {@link #fromBytes} on anything received).
     *
     * @throws IllegalArgumentException if {@code encoding} is shorter than a header
     */
    public static int valueChecksumOf(byte[] encoding) {
        if (encoding == null || encoding.length < HEADER_BYTES) {
            throw new IllegalArgumentException("not a shard encoding: " + (encoding == null ? "null" : encoding.length + " bytes"));
        }
        return readInt(encoding, 9);
    }

    private static int readInt(byte[] bytes, int at) {
        return (bytes[at] & 0xFF) << 24 | (bytes[at + 1] & 0xFF) << 16 | (bytes[at + 2] & 0xFF) << 8 | (bytes[at + 3] & 0xFF);
    }

    private static void writeInt(byte[] bytes, int at, int value) {
        bytes[at] = (byte) (value >>> 24);
        bytes[at + 1] = (byte) (value >>> 16);
        bytes[at + 2] = (byte) (value >>> 8);
        bytes[at + 3] = (byte) value;
    }

    /** Data shard count D of the value's coding. */
    public int dataShardCount() {
        return dataShardCount;
    }

    /** Parity shard count P of the value's coding. */
    public int parityShardCount() {
        return parityShardCount;
    }

    /** Position in the stripe: 0..D-1 data, D..D+P-1 parity. */
    public int index() {
        return index;
    }

    /** True for a data shard (index below D), whose payload is a slice of the value. */
    public boolean isDataShard() {
        return index < dataShardCount;
    }

    /** Length of the original value in bytes. */
    public int valueLength() {
        return valueLength;
    }

    /** CRC32C of the original value, checked after a rebuild. */
    public int valueChecksum() {
        return valueChecksum;
    }

    /** CRC32C of this shard's header and payload, as stored in its trailer. */
    public int shardChecksum() {
        return shardChecksum;
    }

    /** Payload size in bytes: ceil(value length / D). */
    public int payloadLength() {
        return payload.length;
    }

    /** A copy of the payload. */
    public byte[] payload() {
        return payload.clone();
    }

    /** A read-only view of the payload, without copying. */
    public ByteBuffer payloadView() {
        return ByteBuffer.wrap(payload).asReadOnlyBuffer();
    }

    /** The payload itself, for the coder's read-only use. */
    byte[] payloadArray() {
        return payload;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof ValueShard)) {
            return false;
        }
        ValueShard that = (ValueShard) other;
        return dataShardCount == that.dataShardCount && parityShardCount == that.parityShardCount
                && index == that.index && valueLength == that.valueLength && valueChecksum == that.valueChecksum
                && Arrays.equals(payload, that.payload);
    }

    @Override
    public int hashCode() {
        return shardChecksum;
    }

    @Override
    public String toString() {
        return "ValueShard(" + index + " of " + dataShardCount + "+" + parityShardCount + ", value " + valueLength
                + " bytes, payload " + payload.length + " bytes, crc 0x" + Integer.toHexString(shardChecksum) + ")";
    }
}
