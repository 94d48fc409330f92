package io.synod.core.erasure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class ValueCoderTest {

    @Test
    void roundTripsRandomValuesFromAnyDataShardCountOfShards() {
        ReedSolomonCodecPropertyTest.forEachCase(150, random -> {
            int data = 1 + random.nextInt(12);
            int parity = 1 + random.nextInt(6);
            int length = randomValueLength(random, data);
            byte[] value = new byte[length];
            random.nextBytes(value);
            String shape = "(" + data + "," + parity + ") value " + length + " bytes";
            ValueCoder coder = new ValueCoder(data, parity);

            List<ValueShard> shards = coder.encode(value);
            assertEquals(data + parity, shards.size(), shape);
            int payloadLength = (length + data - 1) / data;
            byte[] concatenated = new byte[data * payloadLength];
            for (int s = 0; s < shards.size(); s++) {
                ValueShard shard = shards.get(s);
                assertEquals(s, shard.index());
                assertEquals(s < data, shard.isDataShard());
                assertEquals(length, shard.valueLength());
                assertEquals(payloadLength, shard.payloadLength(), shape);
                if (s < data) {
                    System.arraycopy(shard.payload(), 0, concatenated, s * payloadLength, payloadLength);
                }
            }
            // Data shards are the value in order, then zero padding.
            assertArrayEquals(value, Arrays.copyOf(concatenated, length), shape);
            assertTrue(allZero(Arrays.copyOfRange(concatenated, length, concatenated.length)), shape);

            assertArrayEquals(value, coder.decode(shards), shape + " from all shards");
            List<ValueShard> subset = new ArrayList<>(shards);
            Collections.shuffle(subset, random);
            subset = subset.subList(0, data);
            assertArrayEquals(value, coder.decode(subset), shape + " from shards " + indexes(subset));

            List<byte[]> encoded = new ArrayList<>();
            for (ValueShard shard : subset) {
                byte[] bytes = shard.toBytes();
                assertEquals(ValueShard.OVERHEAD_BYTES + payloadLength, bytes.length);
                assertEquals(shard, ValueShard.fromBytes(bytes));
                encoded.add(bytes);
            }
            assertArrayEquals(value, coder.decodeEncoded(encoded), shape + " from encoded shards " + indexes(subset));
        });
    }

    @Test
    void encodesASliceOfAnArray() {
        ValueCoder coder = new ValueCoder(3, 2);
        byte[] backing = "xxhello, coded worldyy".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        List<ValueShard> shards = coder.encode(backing, 2, 18);
        assertArrayEquals(Arrays.copyOfRange(backing, 2, 20), coder.decode(shards.subList(2, 5)));
    }

    @Test
    void encodeToBytesGivesExactlyTheShardEncodingsAndDecodes() {
        Random random = new Random(26);
        int[][] shapes = {{3, 2}, {2, 1}, {4, 1}, {6, 3}, {10, 4}, {5, 3}};
        int[] lengths = {0, 1, 2, 3, 17, 1000, 2047, 2048, 2049, 16 * 1024 + 5, 256 * 1024, 1000 * 1024 + 1};
        for (int[] shape : shapes) {
            ValueCoder coder = new ValueCoder(shape[0], shape[1]);
            for (int length : lengths) {
                byte[] value = new byte[length];
                random.nextBytes(value);
                List<ValueShard> shards = coder.encode(value);
                byte[][] encodings = coder.encodeToBytes(value);
                assertEquals(shards.size(), encodings.length);
                for (int i = 0; i < encodings.length; i++) {
                    assertArrayEquals(shards.get(i).toBytes(), encodings[i], "shape " + Arrays.toString(shape)
                            + ", length " + length + ", shard " + i);
                    assertEquals(shards.get(i).valueChecksum(), ValueShard.valueChecksumOf(encodings[i]));
                }
                List<byte[]> lastData = new ArrayList<>(Arrays.asList(encodings).subList(encodings.length - shape[0], encodings.length));
                assertArrayEquals(value, coder.decodeEncoded(lastData));
            }
        }
        assertThrows(IllegalArgumentException.class, () -> new ValueCoder(3, 2).encodeToBytes(null));
        assertThrows(IllegalArgumentException.class, () -> ValueShard.valueChecksumOf(new byte[ValueShard.HEADER_BYTES - 1]));
    }

    @Test
    void emptyAndOneByteValuesRoundTrip() {
        ValueCoder coder = new ValueCoder(4, 2);
        List<ValueShard> empty = coder.encode(new byte[0]);
        assertEquals(0, empty.get(0).payloadLength());
        assertEquals(ValueShard.OVERHEAD_BYTES, empty.get(5).toBytes().length);
        assertArrayEquals(new byte[0], coder.decode(empty.subList(2, 6)));
        List<ValueShard> one = coder.encode(new byte[] {42});
        assertArrayEquals(new byte[] {42}, coder.decode(one.subList(1, 5)));
    }

    @Test
    void corruptEncodedShardsAreTreatedAsMissing() {
        ValueCoder coder = new ValueCoder(3, 2);
        byte[] value = new byte[1000];
        new Random(7).nextBytes(value);
        List<byte[]> encoded = new ArrayList<>();
        for (ValueShard shard : coder.encode(value)) {
            encoded.add(shard.toBytes());
        }
        encoded.get(1)[ValueShard.HEADER_BYTES + 17] ^= 0x40;
        assertArrayEquals(value, coder.decodeEncoded(encoded), "one corrupt shard of five");

        encoded.get(3)[ValueShard.HEADER_BYTES] ^= 0x01;
        encoded.get(4)[ValueShard.HEADER_BYTES + 300] ^= 0x01;
        NotEnoughShardsException thrown = assertThrows(NotEnoughShardsException.class, () -> coder.decodeEncoded(encoded));
        assertTrue(thrown.getMessage().contains("need 3 intact shards to rebuild the value, have 2; 3 rejected"), thrown.getMessage());
        assertTrue(thrown.getMessage().contains("checksum mismatch"), thrown.getMessage());
        assertEquals(2, thrown.availableShardCount());
    }

    @Test
    void rejectsShardsThatCannotRebuildTheValue() {
        ValueCoder coder = new ValueCoder(3, 2);
        List<ValueShard> shards = coder.encode(new byte[] {1, 2, 3, 4, 5, 6, 7});
        List<ValueShard> other = coder.encode(new byte[] {9, 9, 9, 9, 9, 9, 9});

        NotEnoughShardsException tooFew = assertThrows(NotEnoughShardsException.class, () -> coder.decode(shards.subList(0, 2)));
        assertTrue(tooFew.getMessage().contains("need 3 shards to rebuild the value, have 2"), tooFew.getMessage());
        assertThrows(NotEnoughShardsException.class, () -> coder.decode(List.of()));
        assertThrows(NotEnoughShardsException.class,
                () -> coder.decode(List.of(shards.get(0), shards.get(0), shards.get(0))), "duplicates are one shard");

        IllegalArgumentException mixed = assertThrows(IllegalArgumentException.class,
                () -> coder.decode(List.of(shards.get(0), shards.get(1), other.get(2))));
        assertTrue(mixed.getMessage().contains("shards belong to different values"), mixed.getMessage());

        IllegalArgumentException geometry = assertThrows(IllegalArgumentException.class,
                () -> new ValueCoder(4, 1).decode(shards));
        assertTrue(geometry.getMessage().contains("was coded as (3,2) but this coder is (4,1)"), geometry.getMessage());

        assertThrows(IllegalArgumentException.class, () -> coder.decode(null));
        assertThrows(IllegalArgumentException.class, () -> coder.decode(Arrays.asList(shards.get(0), null)));
        assertThrows(IllegalArgumentException.class, () -> coder.encode(null));
        assertThrows(IllegalArgumentException.class, () -> coder.encode(new byte[4], 3, 2));
    }

    @Test
    void aShardForgedWithAValidChecksumIsCaughtByTheValueChecksum() {
        ValueCoder coder = new ValueCoder(3, 2);
        List<ValueShard> shards = coder.encode("forged shards must not yield a value".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        byte[] forged = shards.get(4).toBytes();
        forged[ValueShard.HEADER_BYTES + 2] ^= 0x10;
        resealChecksum(forged);
        ValueShard forgedShard = ValueShard.fromBytes(forged);

        IllegalArgumentException inconsistent = assertThrows(IllegalArgumentException.class,
                () -> coder.decode(List.of(shards.get(0), shards.get(1), forgedShard)));
        assertTrue(inconsistent.getMessage().contains("the shards are inconsistent"), inconsistent.getMessage());

        IllegalArgumentException twoVersions = assertThrows(IllegalArgumentException.class,
                () -> coder.decode(List.of(shards.get(0), shards.get(4), forgedShard)));
        assertTrue(twoVersions.getMessage().contains("two different shards claim index 4"), twoVersions.getMessage());
    }

    static void resealChecksum(byte[] encoded) {
        CRC32C crc = new CRC32C();
        crc.update(encoded, 0, encoded.length - ValueShard.TRAILER_BYTES);
        int value = (int) crc.getValue();
        int at = encoded.length - ValueShard.TRAILER_BYTES;
        encoded[at] = (byte) (value >>> 24);
        encoded[at + 1] = (byte) (value >>> 16);
        encoded[at + 2] = (byte) (value >>> 8);
        encoded[at + 3] = (byte) value;
    }

    private static int randomValueLength(Random random, int data) {
        switch (random.nextInt(5)) {
            case 0: return 0;
            case 1: return 1;
            case 2: return data - 1 + random.nextInt(3);
            default: return random.nextInt(20_000);
        }
    }

    private static boolean allZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private static List<Integer> indexes(List<ValueShard> shards) {
        List<Integer> indexes = new ArrayList<>();
        for (ValueShard shard : shards) {
            indexes.add(shard.index());
        }
        return indexes;
    }
}
