package io.synod.core.erasure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shard byte encoding: its exact layout, and a clear failure for every kind of bad input. */
class ValueShardEncodingTest {

    private final ValueCoder coder = new ValueCoder(2, 1);
    private final List<ValueShard> shards = coder.encode(new byte[] {1, 2, 3});

    @Test
    void layoutIsAsDocumented() {
        byte[] bytes = shards.get(1).toBytes();
        // magic, version 1, D=2, P=1, index 1, L=3, CRC32C("\1\2\3"), S=2, payload {3, 0}, CRC32C
        String hex = HexFormat.of().formatHex(bytes);
        assertEquals("ec01020101" + "00000003", hex.substring(0, 18));
        assertEquals("00000002" + "0300", hex.substring(26, 38));
        assertEquals(ValueShard.OVERHEAD_BYTES + 2, bytes.length);
        assertEquals(shards.get(1), ValueShard.fromBytes(bytes));
        byte[] framed = new byte[bytes.length + 5];
        System.arraycopy(bytes, 0, framed, 3, bytes.length);
        assertEquals(shards.get(1), ValueShard.fromBytes(framed, 3, bytes.length));
        assertArrayEquals(new byte[] {3, 0}, ValueShard.fromBytes(bytes).payload());
    }

    @Test
    void rejectsEachKindOfMalformedEncoding() {
        byte[] good = shards.get(0).toBytes();
        assertFormat(Arrays.copyOf(good, 20), "shorter than the 21-byte minimum");
        assertFormat(patched(good, 0, 0x7B), "bad magic byte 0x7b");
        assertFormat(patched(good, 1, 2), "unsupported shard format version 2");
        assertFormat(patched(good, 2, 0), "impossible shard counts: 0 data + 1 parity");
        assertFormat(patched(good, 3, 255), "impossible shard counts: 2 data + 255 parity");
        assertFormat(patched(good, 4, 3), "shard index 3 is outside 0..2");
        assertFormat(patchedInt(good, 5, -1), "value length must be >= 0, got -1");
        assertFormat(patchedInt(good, 13, 3), "payload length 3 disagrees with value length 3 over 2 data shards (expected 2)");
        assertFormat(Arrays.copyOf(good, good.length - 1), "shard encoding is 22 bytes but its header declares 21 + 2 = 23");
        assertFormat(Arrays.copyOf(good, good.length + 1), "but its header declares");
        assertFormat(flipped(good, ValueShard.HEADER_BYTES), "checksum mismatch for shard 0");
        assertFormat(flipped(good, 9), "checksum mismatch for shard 0");
        assertFormat(flipped(good, good.length - 1), "checksum mismatch");
    }

    @Test
    void aHugeDeclaredLengthFailsBeforeAnyAllocation() {
        // D=1, L=S near 2^31: a consistent header that promises ~2 GiB in a 21-byte message.
        byte[] lying = shards.get(0).toBytes();
        lying = Arrays.copyOf(lying, ValueShard.OVERHEAD_BYTES);
        lying[2] = 1;
        lying[4] = 0;
        writeInt(lying, 5, Integer.MAX_VALUE - 10);
        writeInt(lying, 13, Integer.MAX_VALUE - 10);
        assertFormat(lying, "payload length 2147483637 exceeds the maximum");
        writeInt(lying, 5, 1 << 30);
        writeInt(lying, 13, 1 << 30);
        assertFormat(lying, "shard encoding is 21 bytes but its header declares 21 + 1073741824");
    }

    @Test
    void randomDamageIsAlwaysDetected() {
        byte[] good = new ValueCoder(5, 3).encode(new byte[777]).get(6).toBytes();
        ReedSolomonCodecPropertyTest.forEachCase(2000, random -> {
            byte[] damaged;
            switch (random.nextInt(3)) {
                case 0:
                    damaged = good.clone();
                    int flips = 1 + random.nextInt(4);
                    for (int f = 0; f < flips; f++) {
                        damaged[random.nextInt(damaged.length)] ^= (byte) (1 + random.nextInt(255));
                    }
                    break;
                case 1:
                    damaged = Arrays.copyOf(good, random.nextInt(good.length));
                    break;
                default:
                    damaged = new byte[random.nextInt(100)];
                    random.nextBytes(damaged);
                    break;
            }
            if (!Arrays.equals(damaged, good)) {
                byte[] attempt = damaged;
                assertThrows(ShardFormatException.class, () -> ValueShard.fromBytes(attempt));
            }
        });
    }

    @Test
    void rejectsBadArguments() {
        assertThrows(IllegalArgumentException.class, () -> ValueShard.fromBytes(null));
        assertThrows(IllegalArgumentException.class, () -> ValueShard.fromBytes(new byte[30], 20, 20));
        assertThrows(IllegalArgumentException.class, () -> ValueShard.fromBytes(new byte[30], -1, 5));
    }

    private static void assertFormat(byte[] bytes, String expectedPart) {
        ShardFormatException thrown = assertThrows(ShardFormatException.class, () -> ValueShard.fromBytes(bytes));
        assertTrue(thrown.getMessage().contains(expectedPart),
                "message '" + thrown.getMessage() + "' should contain '" + expectedPart + "'");
    }

    /** Sets one header byte and reseals the checksum, so only the header checks can object. */
    private static byte[] patched(byte[] good, int at, int value) {
        byte[] copy = good.clone();
        copy[at] = (byte) value;
        ValueCoderTest.resealChecksum(copy);
        return copy;
    }

    /** Flips one byte and leaves the checksum stale, as corruption in flight would. */
    private static byte[] flipped(byte[] good, int at) {
        byte[] copy = good.clone();
        copy[at] ^= 0x01;
        return copy;
    }

    private static byte[] patchedInt(byte[] good, int at, int value) {
        byte[] copy = good.clone();
        writeInt(copy, at, value);
        ValueCoderTest.resealChecksum(copy);
        return copy;
    }

    private static void writeInt(byte[] bytes, int at, int value) {
        bytes[at] = (byte) (value >>> 24);
        bytes[at + 1] = (byte) (value >>> 16);
        bytes[at + 2] = (byte) (value >>> 8);
        bytes[at + 3] = (byte) value;
    }
}
