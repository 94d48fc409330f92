package io.synod.core.erasure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Random stripes checked against {@link ReferenceReedSolomon}. The base seed is random per run and
 * printed on failure; rerun a failure with {@code -Dsynod.test.seed=SEED}.
 */
class ReedSolomonCodecPropertyTest {

    private static final String SEED_PROPERTY = "synod.test.seed";
    private static final int CASES = 250;
    private static final int MAX_DATA = 20;
    private static final int MAX_PARITY = 8;

    @Test
    void randomStripesMatchReference() {
        forEachCase(CASES, random -> {
            int data = 1 + random.nextInt(MAX_DATA);
            int parity = 1 + random.nextInt(MAX_PARITY);
            checkArrayCase(random, data, parity, randomLength(random));
        });
    }

    @Test
    void randomBufferStripesMatchReference() {
        forEachCase(CASES / 2, random -> {
            int data = 1 + random.nextInt(MAX_DATA);
            int parity = 1 + random.nextInt(MAX_PARITY);
            checkBufferCase(random, data, parity, randomLength(random));
        });
    }

    @Test
    void extremeShapesMatchReference() {
        int[][] shapes = {{1, 1}, {1, 255}, {255, 1}, {128, 128}, {200, 56}, {17, 9}};
        forEachCase(shapes.length, new CaseBody() {
            private int next;

            @Override
            public void run(Random random) {
                int[] shape = shapes[next++];
                checkArrayCase(random, shape[0], shape[1], 1 + random.nextInt(40));
            }
        });
    }

    /** Lengths that hit the edges: empty, one byte, odd sizes, and around the block size. */
    private static int randomLength(Random random) {
        switch (random.nextInt(6)) {
            case 0: return 0;
            case 1: return 1;
            case 2: return 1 + random.nextInt(9);
            case 3: return CodingLoops.BLOCK_BYTES - 1 + random.nextInt(3);
            case 4: return 2 * CodingLoops.BLOCK_BYTES + random.nextInt(3) - 1;
            default: return random.nextInt(3000);
        }
    }

    private static void checkArrayCase(Random random, int data, int parity, int length) {
        String shape = "(" + data + "," + parity + ") length " + length;
        int total = data + parity;
        int offset = random.nextInt(4);
        int shardLength = offset + length + random.nextInt(3);
        ReedSolomonCodec codec = new ReedSolomonCodec(data, parity);
        ReferenceReedSolomon reference = new ReferenceReedSolomon(data, parity);

        byte[][] shards = new byte[total][shardLength];
        for (byte[] shard : shards) {
            random.nextBytes(shard);
        }
        byte[][] before = deepCopy(shards);
        codec.encodeParity(shards, offset, length);

        byte[][] expected = expectedStripe(reference, shards, data, offset, length);
        for (int s = 0; s < total; s++) {
            assertArrayEquals(expected[s], Arrays.copyOfRange(shards[s], offset, offset + length), shape + " shard " + s);
            // Bytes outside [offset, offset + length) are not ours to touch.
            assertArrayEquals(Arrays.copyOfRange(before[s], 0, offset), Arrays.copyOfRange(shards[s], 0, offset));
            assertArrayEquals(Arrays.copyOfRange(before[s], offset + length, shardLength),
                    Arrays.copyOfRange(shards[s], offset + length, shardLength));
        }
        assertTrue(codec.isParityCorrect(shards, offset, length), shape);
        if (length > 0) {
            int victim = data + random.nextInt(parity);
            int position = offset + random.nextInt(length);
            shards[victim][position] ^= (byte) (1 + random.nextInt(255));
            assertFalse(codec.isParityCorrect(shards, offset, length), shape + " after corrupting shard " + victim);
            shards[victim] = Arrays.copyOf(before[victim], shardLength);
            System.arraycopy(expected[victim], 0, shards[victim], offset, length);
        }

        boolean[] present = randomErasures(random, total, parity);
        byte[][] damaged = deepCopy(shards);
        for (int s = 0; s < total; s++) {
            if (!present[s]) {
                Arrays.fill(damaged[s], offset, offset + length, (byte) random.nextInt(256));
            }
        }
        // The reference rebuilds the data from the damaged stripe on its own.
        byte[][] referenceData = reference.dataFrom(slice(damaged, offset, length), present, length);
        for (int k = 0; k < data; k++) {
            assertArrayEquals(expected[k], referenceData[k], shape + " reference self-check, data " + k);
        }

        byte[][] dataOnly = deepCopy(damaged);
        codec.reconstructData(dataOnly, present, offset, length);
        for (int s = 0; s < total; s++) {
            byte[] wanted = s < data || present[s] ? shards[s] : damaged[s];
            assertArrayEquals(wanted, dataOnly[s], shape + " reconstructData, present " + Arrays.toString(present) + ", shard " + s);
        }
        codec.reconstruct(damaged, present, offset, length);
        for (int s = 0; s < total; s++) {
            assertArrayEquals(shards[s], damaged[s], shape + " reconstruct, present " + Arrays.toString(present) + ", shard " + s);
        }
    }

    private static void checkBufferCase(Random random, int data, int parity, int length) {
        int total = data + parity;
        ReedSolomonCodec codec = new ReedSolomonCodec(data, parity);
        ReferenceReedSolomon reference = new ReferenceReedSolomon(data, parity);
        // All heap, all direct, or a mix (which takes the buffer path for everything).
        int mode = random.nextInt(3);
        String shape = "(" + data + "," + parity + ") length " + length + " buffers "
                + (mode == 0 ? "heap" : mode == 1 ? "direct" : "mixed");
        byte[][] dataShards = new byte[data][length];
        for (byte[] shard : dataShards) {
            random.nextBytes(shard);
        }
        byte[][] parityShards = reference.parity(dataShards, length);

        ByteBuffer[] buffers = new ByteBuffer[total];
        for (int s = 0; s < total; s++) {
            boolean direct = mode == 1 || (mode == 2 && random.nextBoolean());
            int position = random.nextInt(5);
            int capacity = position + length + random.nextInt(4);
            ByteBuffer buffer = direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity);
            if (!direct && random.nextBoolean()) {
                // A slice has a non-zero array offset: the loops must add it.
                buffer = ByteBuffer.allocate(capacity + 3).position(3).slice();
            }
            buffer.position(position).limit(position + length);
            if (s < data) {
                buffer.put(position, dataShards[s]);
            }
            buffers[s] = buffer;
        }
        codec.encodeParity(buffers);
        for (int j = 0; j < parity; j++) {
            assertArrayEquals(parityShards[j], contents(buffers[data + j]), shape + " parity " + j);
        }
        assertTrue(codec.isParityCorrect(buffers), shape);

        boolean[] present = randomErasures(random, total, parity);
        for (int s = 0; s < total; s++) {
            if (!present[s]) {
                for (int i = 0; i < length; i++) {
                    buffers[s].put(buffers[s].position() + i, (byte) 0x5A);
                }
            }
        }
        codec.reconstruct(buffers, present);
        for (int s = 0; s < total; s++) {
            byte[] wanted = s < data ? dataShards[s] : parityShards[s - data];
            assertArrayEquals(wanted, contents(buffers[s]), shape + " reconstruct shard " + s);
            assertEquals(length, buffers[s].remaining(), "position and limit unchanged");
        }
    }

    private static byte[][] expectedStripe(ReferenceReedSolomon reference, byte[][] shards, int data, int offset,
            int length) {
        byte[][] dataShards = new byte[data][];
        for (int k = 0; k < data; k++) {
            dataShards[k] = Arrays.copyOfRange(shards[k], offset, offset + length);
        }
        byte[][] parityShards = reference.parity(dataShards, length);
        byte[][] stripe = new byte[shards.length][];
        System.arraycopy(dataShards, 0, stripe, 0, data);
        System.arraycopy(parityShards, 0, stripe, data, parityShards.length);
        return stripe;
    }

    /** A random set of up to P absent shards (possibly none). */
    static boolean[] randomErasures(Random random, int total, int parity) {
        List<Integer> order = new ArrayList<>();
        for (int s = 0; s < total; s++) {
            order.add(s);
        }
        Collections.shuffle(order, random);
        boolean[] present = new boolean[total];
        Arrays.fill(present, true);
        int missing = random.nextInt(parity + 1);
        for (int m = 0; m < missing; m++) {
            present[order.get(m)] = false;
        }
        return present;
    }

    private static byte[] contents(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(buffer.position(), bytes);
        return bytes;
    }

    private static byte[][] slice(byte[][] shards, int offset, int length) {
        byte[][] sliced = new byte[shards.length][];
        for (int s = 0; s < shards.length; s++) {
            sliced[s] = Arrays.copyOfRange(shards[s], offset, offset + length);
        }
        return sliced;
    }

    private static byte[][] deepCopy(byte[][] shards) {
        byte[][] copy = new byte[shards.length][];
        for (int s = 0; s < shards.length; s++) {
            copy[s] = shards[s].clone();
        }
        return copy;
    }

    interface CaseBody {
        void run(Random random);
    }

    /** Runs the body with a Random per case derived from one base seed; names the seed on failure. */
    static void forEachCase(int cases, CaseBody body) {
        String configured = System.getProperty(SEED_PROPERTY);
        long seed = configured != null ? Long.parseLong(configured) : new SplittableRandom().nextLong();
        for (int c = 0; c < cases; c++) {
            try {
                body.run(new Random(seed * 31 + c));
            } catch (Throwable failure) {
                throw new AssertionError("case " + c + " failed; rerun with -D" + SEED_PROPERTY + "=" + seed
                        + ": " + failure.getMessage(), failure);
            }
        }
    }
}
