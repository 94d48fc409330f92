package io.synod.coordination;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShardMapTest {

    @Test
    void uniformSplitsPrintableFirstBytesEvenlyAndCoversEveryKey() {
        ShardMap map = ShardMap.uniform(4);
        assertEquals(4, map.groupCount());
        assertEquals(4, map.rangeCount());
        assertEquals(1, map.generation());
        assertEquals(0, map.groupFor(new byte[0]));
        assertEquals(0, map.groupFor(new byte[] {0x00, 0x7f}));
        assertEquals(0, map.groupFor("0-key".getBytes()));
        assertEquals(1, map.groupFor("Apple".getBytes()));
        assertEquals(2, map.groupFor("apple".getBytes()));
        assertEquals(3, map.groupFor("user/42".getBytes()));
        assertEquals(3, map.groupFor(new byte[] {(byte) 0xff, (byte) 0xff, 0})); // unsigned order
        int[] perGroup = new int[4];
        for (int b = 0x21; b <= 0x7e; b++) {
            perGroup[map.groupFor(new byte[] {(byte) b})]++;
        }
        for (int count : perGroup) {
            assertTrue(count == 23 || count == 24, "each group gets a quarter of the printable bytes: "
                    + Arrays.toString(perGroup));
        }
    }

    @Test
    void uniformOverMoreGroupsThanPrintableBytesSplitsAllByteValues() {
        ShardMap map = ShardMap.uniform(128);
        int[] perGroup = new int[128];
        for (int b = 0; b < 256; b++) {
            perGroup[map.groupFor(new byte[] {(byte) b})]++;
        }
        for (int count : perGroup) {
            assertEquals(2, count);
        }
    }

    @Test
    void groupForMatchesALinearScanOnAnIrregularMap() {
        List<ShardMap.Range> ranges = List.of(
                new ShardMap.Range(new byte[0], 2),
                new ShardMap.Range("apple".getBytes(), 0),
                new ShardMap.Range("apples".getBytes(), 1),
                new ShardMap.Range("m".getBytes(), 2),
                new ShardMap.Range(new byte[] {(byte) 0xf0}, 0));
        ShardMap map = ShardMap.of(7, 3, ranges);
        String[] keys = {"", "a", "apple", "apple\0", "apples", "applesauce", "l", "m", "zzz"};
        for (String key : keys) {
            assertEquals(linear(ranges, key.getBytes()), map.groupFor(key.getBytes()), key);
        }
        assertEquals(0, map.groupFor(new byte[] {(byte) 0xf0, 1}));
        assertEquals(2, map.groupFor(new byte[] {(byte) 0xef}));
    }

    private static int linear(List<ShardMap.Range> ranges, byte[] key) {
        int group = -1;
        for (ShardMap.Range r : ranges) {
            if (Arrays.compareUnsigned(r.startInclusive(), key) <= 0) {
                group = r.group();
            }
        }
        return group;
    }

    @Test
    void encodeDecodeRoundTrips() {
        ShardMap map = ShardMap.of(42, 5, List.of(new ShardMap.Range(new byte[0], 4),
                new ShardMap.Range(new byte[] {1, 2, 3}, 0), new ShardMap.Range(new byte[] {9}, 3)));
        ShardMap back = ShardMap.decode(map.encode());
        assertEquals(map, back);
        assertEquals(map.ranges(), back.ranges());
        assertEquals(ShardMap.uniform(256), ShardMap.decode(ShardMap.uniform(256).encode()));
        assertNotEquals(map, map.withGeneration(43));
    }

    @Test
    void ofRejectsMapsThatDoNotCoverTheKeySpaceInOrder() {
        assertMessage(() -> ShardMap.of(1, 2, List.of(new ShardMap.Range(new byte[] {1}, 0))),
                "first range must start at the empty key");
        assertMessage(() -> ShardMap.of(1, 2, List.of(new ShardMap.Range(new byte[0], 0),
                new ShardMap.Range(new byte[] {5}, 1), new ShardMap.Range(new byte[] {5}, 0))), "strictly increasing");
        assertMessage(() -> ShardMap.of(1, 2, List.of(new ShardMap.Range(new byte[0], 2))), "group 2 outside 0..1");
        assertMessage(() -> ShardMap.of(1, 2, List.of()), "range count must be 1..");
        assertMessage(() -> ShardMap.uniform(257), "1..256 groups");
    }

    @Test
    void decodeNamesEachKindOfDamage() {
        byte[] good = ShardMap.uniform(4).encode();
        assertMessage(() -> ShardMap.decode(new byte[0]), "shard map: truncated at format version");
        assertMessage(() -> ShardMap.decode(Arrays.copyOf(good, good.length - 1)), "shard map: truncated at range 3 start");
        byte[] version = good.clone();
        version[0] = 9;
        assertMessage(() -> ShardMap.decode(version), "unsupported format version 9");
        byte[] trailing = Arrays.copyOf(good, good.length + 2);
        assertMessage(() -> ShardMap.decode(trailing), "2 unexpected trailing bytes");
        // A huge range count in a short buffer must fail before allocating for it.
        byte[] hugeCount = good.clone();
        ByteBuffer.wrap(hugeCount).putInt(13, 65_536);
        assertMessage(() -> ShardMap.decode(hugeCount), "range count 65536 cannot fit");
        byte[] tooMany = good.clone();
        ByteBuffer.wrap(tooMany).putInt(13, Integer.MAX_VALUE);
        assertMessage(() -> ShardMap.decode(tooMany), "range count must be 1..65536");
        byte[] badGroup = good.clone();
        ByteBuffer.wrap(badGroup).putInt(17, 7);
        assertMessage(() -> ShardMap.decode(badGroup), "range 0 group 7 outside 0..3");
        // Range 1's start key length (u16 after its group) claims more than the buffer holds.
        byte[] longKey = good.clone();
        ByteBuffer.wrap(longKey).putShort(27, (short) 2000);
        assertMessage(() -> ShardMap.decode(longKey), "range 1 start length 2000 exceeds 1024");
        assertMessage(() -> ShardMap.decode(null), "shard map: no data");
    }

    static void assertMessage(Runnable action, String expected) {
        RuntimeException e = assertThrows(RuntimeException.class, action::run);
        assertTrue(e.getMessage().contains(expected), "message '" + e.getMessage() + "' lacks '" + expected + "'");
    }
}
