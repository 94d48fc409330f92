package io.synod.core.erasure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Bad input gets a clear exception naming the problem, never garbage output. */
class ReedSolomonCodecInputValidationTest {

    private final ReedSolomonCodec codec = new ReedSolomonCodec(3, 2);

    @Test
    void rejectsImpossibleShardCounts() {
        assertMessage(IllegalArgumentException.class, () -> new ReedSolomonCodec(0, 2), "dataShardCount must be >= 1");
        assertMessage(IllegalArgumentException.class, () -> new ReedSolomonCodec(-3, 2), "got -3");
        assertMessage(IllegalArgumentException.class, () -> new ReedSolomonCodec(3, 0), "parityShardCount must be >= 1");
        assertMessage(IllegalArgumentException.class, () -> new ReedSolomonCodec(200, 57), "must be <= 256, got 200 + 57 = 257");
        assertEquals(256, new ReedSolomonCodec(255, 1).totalShardCount());
    }

    @Test
    void rejectsWrongShardArrays() {
        assertMessage(IllegalArgumentException.class, () -> codec.encodeParity((byte[][]) null, 0, 1), "shards must not be null");
        assertMessage(IllegalArgumentException.class, () -> codec.encodeParity(new byte[4][8], 0, 8),
                "expected 5 shards (3 data + 2 parity), got 4");
        byte[][] withNull = new byte[5][8];
        withNull[3] = null;
        assertMessage(IllegalArgumentException.class, () -> codec.encodeParity(withNull, 0, 8), "shard 3 is null");
    }

    @Test
    void rejectsMismatchedShardLengths() {
        byte[][] shards = stripe(8);
        shards[2] = new byte[7];
        assertMessage(IllegalArgumentException.class, () -> codec.encodeParity(shards, 0, 7),
                "shard lengths differ: shard 0 has 8 bytes but shard 2 has 7");
        assertMessage(IllegalArgumentException.class, () -> codec.reconstruct(shards, allPresent(), 0, 7), "shard lengths differ");
        assertMessage(IllegalArgumentException.class, () -> codec.isParityCorrect(shards, 0, 7), "shard lengths differ");
    }

    @Test
    void rejectsRangesOutsideTheShards() {
        byte[][] shards = stripe(8);
        assertMessage(IllegalArgumentException.class, () -> codec.encodeParity(shards, -1, 4), "offset must be >= 0, got -1");
        assertMessage(IllegalArgumentException.class, () -> codec.encodeParity(shards, 0, -4), "length must be >= 0, got -4");
        assertMessage(IllegalArgumentException.class, () -> codec.encodeParity(shards, 5, 4), "offset 5 + length 4 exceeds the shard length 8");
        assertMessage(IllegalArgumentException.class, () -> codec.encodeParity(shards, Integer.MAX_VALUE, 1), "exceeds the shard length 8");
    }

    @Test
    void rejectsAnOutputThatAliasesAnotherShard() {
        byte[][] shards = stripe(8);
        shards[4] = shards[0];
        assertMessage(IllegalArgumentException.class, () -> codec.encodeParity(shards, 0, 8),
                "shard 4 shares storage with shard 0");

        byte[] backing = new byte[40];
        ByteBuffer[] buffers = new ByteBuffer[5];
        for (int s = 0; s < 5; s++) {
            buffers[s] = ByteBuffer.wrap(backing, s * 8, 8).slice();
        }
        buffers[3] = ByteBuffer.wrap(backing, 4, 8).slice(); // overlaps shards 0 and 1
        assertMessage(IllegalArgumentException.class, () -> codec.encodeParity(buffers), "shard 3 shares storage with shard 0");
    }

    @Test
    void rejectsTooManyMissingShards() {
        byte[][] shards = stripe(8);
        boolean[] present = {false, true, false, true, false};
        NotEnoughShardsException thrown = assertThrows(NotEnoughShardsException.class,
                () -> codec.reconstruct(shards, present, 0, 8));
        assertTrue(thrown.getMessage().contains("3 of 5 shards are missing but at most 2"), thrown.getMessage());
        assertEquals(2, thrown.availableShardCount());
        assertEquals(3, thrown.requiredShardCount());
        assertThrows(NotEnoughShardsException.class, () -> codec.reconstructData(shards, present, 0, 8));
    }

    @Test
    void rejectsWrongPresenceFlags() {
        byte[][] shards = stripe(8);
        assertMessage(IllegalArgumentException.class, () -> codec.reconstruct(shards, null, 0, 8), "shardPresent must not be null");
        assertMessage(IllegalArgumentException.class, () -> codec.reconstruct(shards, new boolean[4], 0, 8),
                "shardPresent must have 5 flags (one per shard), got 4");
    }

    @Test
    void rejectsMismatchedOrReadOnlyBuffers() {
        ByteBuffer[] buffers = new ByteBuffer[5];
        for (int s = 0; s < 5; s++) {
            buffers[s] = ByteBuffer.allocate(8);
        }
        buffers[1].position(1);
        assertMessage(IllegalArgumentException.class, () -> codec.encodeParity(buffers),
                "shard lengths differ: shard 0 has 8 bytes remaining but shard 1 has 7");
        buffers[1].position(0);
        buffers[4] = ByteBuffer.allocate(8).asReadOnlyBuffer();
        assertMessage(IllegalArgumentException.class, () -> codec.encodeParity(buffers), "shard 4 is a read-only buffer");
        buffers[2] = null;
        assertMessage(IllegalArgumentException.class, () -> codec.encodeParity(buffers), "shard 2 is null");
    }

    @Test
    void readOnlyInputBuffersAreFine() {
        byte[][] shards = stripe(16);
        codec.encodeParity(shards, 0, 16);
        ByteBuffer[] buffers = new ByteBuffer[5];
        for (int s = 0; s < 5; s++) {
            buffers[s] = s < 3 ? ByteBuffer.wrap(shards[s]).asReadOnlyBuffer() : ByteBuffer.allocate(16);
        }
        codec.encodeParity(buffers);
        assertArrayEquals(shards[3], buffers[3].array());
        assertArrayEquals(shards[4], buffers[4].array());
    }

    @Test
    void failedCallsLeaveShardsUntouched() {
        byte[][] shards = stripe(8);
        byte[][] before = new byte[5][];
        for (int s = 0; s < 5; s++) {
            before[s] = shards[s].clone();
        }
        assertThrows(NotEnoughShardsException.class,
                () -> codec.reconstruct(shards, new boolean[] {false, false, false, true, true}, 0, 8));
        assertThrows(IllegalArgumentException.class, () -> codec.encodeParity(shards, 4, 5));
        for (int s = 0; s < 5; s++) {
            assertArrayEquals(before[s], shards[s], "shard " + s);
        }
    }

    private static byte[][] stripe(int length) {
        byte[][] shards = new byte[5][length];
        for (int s = 0; s < 5; s++) {
            Arrays.fill(shards[s], (byte) (s * 37 + 1));
        }
        return shards;
    }

    private static boolean[] allPresent() {
        boolean[] present = new boolean[5];
        Arrays.fill(present, true);
        return present;
    }

    private static <T extends Throwable> void assertMessage(Class<T> type, Executable call, String expectedPart) {
        T thrown = assertThrows(type, call);
        assertTrue(thrown.getMessage() != null && thrown.getMessage().contains(expectedPart),
                "message '" + thrown.getMessage() + "' should contain '" + expectedPart + "'");
    }
}
