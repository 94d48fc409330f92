package io.synod.core.erasure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Byte-for-byte compatibility with Backblaze JavaReedSolomon, from the vector file it produced:
 * the field tables, all 40 encoding matrices, all 80 encoded stripes, and reconstruction of every
 * erasure pattern of up to P shards on the stripes with S &lt;= 4096 (the README's "small" ones).
 */
class BackblazeVectorsTest {

    private static final String VECTOR_FILE = "backblaze-vectors.jsonl";
    private static final int EXHAUSTIVE_ERASURE_MAX_SHARD_BYTES = 4096;

    private static List<Map<String, Object>> lines;

    @BeforeAll
    static void readVectorFile() throws IOException {
        Path file = VectorsDirectory.locate().resolve(VECTOR_FILE);
        lines = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                lines.add(asMap(MiniJson.parse(line)));
            }
        }
        // The counts the README promises; a truncated file must fail here, not pass with fewer checks.
        assertEquals(124, lines.size(), "lines in " + file);
        assertEquals(40, linesOfType("matrix").size(), "matrix lines");
        assertEquals(80, linesOfType("vector").size(), "vector lines");
    }

    @Test
    void metaDescribesTheSameField() {
        Map<String, Object> meta = linesOfType("meta").get(0);
        assertEquals((long) GaloisField.REDUCTION_POLYNOMIAL, meta.get("gf_polynomial"));
        assertEquals((long) GaloisField.GENERATOR, meta.get("gf_generator"));
    }

    @Test
    void expTableMatches() {
        List<Object> values = asList(linesOfType("gf_exp").get(0).get("values"));
        assertEquals(255, values.size());
        for (int i = 0; i < 255; i++) {
            assertEquals(((Long) values.get(i)).intValue(), GaloisField.exp(i), "exp[" + i + "]");
        }
    }

    @Test
    void logTableMatches() {
        List<Object> values = asList(linesOfType("gf_log").get(0).get("values"));
        assertEquals(256, values.size());
        assertEquals(-1L, values.get(0));
        for (int x = 1; x < 256; x++) {
            assertEquals(((Long) values.get(x)).intValue(), GaloisField.log(x), "log[" + x + "]");
        }
    }

    @Test
    void multiplicationSamplesMatch() {
        List<Object> triples = asList(linesOfType("gf_mul_samples").get(0).get("triples_a_b_product"));
        assertFalse(triples.isEmpty());
        for (Object tripleObject : triples) {
            List<Object> triple = asList(tripleObject);
            int a = ((Long) triple.get(0)).intValue();
            int b = ((Long) triple.get(1)).intValue();
            int product = ((Long) triple.get(2)).intValue();
            assertEquals(product, GaloisField.multiply(a, b), a + " * " + b);
            assertEquals(product, GaloisField.multiplicationRow(a)[b] & 0xFF, "row " + a + " at " + b);
        }
    }

    @TestFactory
    Stream<DynamicTest> encodingMatricesMatch() {
        return linesOfType("matrix").stream().map(line -> {
            int data = intField(line, "data");
            int parity = intField(line, "parity");
            return DynamicTest.dynamicTest("matrix (" + data + "," + parity + ")", () -> {
                List<Object> rows = asList(line.get("rows"));
                int[][] expected = new int[rows.size()][];
                for (int r = 0; r < rows.size(); r++) {
                    expected[r] = asList(rows.get(r)).stream().mapToInt(v -> ((Long) v).intValue()).toArray();
                }
                int[][] actual = new ReedSolomonCodec(data, parity).encodingMatrix();
                assertEquals(data + parity, actual.length);
                for (int r = 0; r < expected.length; r++) {
                    assertArrayEquals(expected[r], actual[r], "row " + r);
                }
            });
        });
    }

    @TestFactory
    Stream<DynamicTest> vectorsMatch() {
        return linesOfType("vector").stream().map(line -> DynamicTest.dynamicTest(
                "vector (" + intField(line, "data") + "," + intField(line, "parity") + ") S="
                        + intField(line, "shardSize") + " " + line.get("generator"),
                () -> checkVector(line)));
    }

    private static void checkVector(Map<String, Object> line) throws NoSuchAlgorithmException {
        int data = intField(line, "data");
        int parity = intField(line, "parity");
        int shardBytes = intField(line, "shardSize");
        String generator = (String) line.get("generator");
        ReedSolomonCodec codec = new ReedSolomonCodec(data, parity);

        byte[][] shards = new byte[data + parity][shardBytes];
        fillData(shards, data, shardBytes, generator);
        codec.encodeParity(shards, 0, shardBytes);
        assertShardsMatch(line, shards, "byte[] encode");
        assertTrue(codec.isParityCorrect(shards, 0, shardBytes), "isParityCorrect on the vector");

        checkBufferEncode(codec, line, shards, true);
        checkBufferEncode(codec, line, shards, false);

        if (shardBytes <= EXHAUSTIVE_ERASURE_MAX_SHARD_BYTES) {
            checkEveryErasurePattern(codec, shards);
        }
    }

    private static void fillData(byte[][] shards, int data, int shardBytes, String generator) {
        switch (generator) {
            case "pattern":
                for (int s = 0; s < data; s++) {
                    for (int i = 0; i < shardBytes; i++) {
                        shards[s][i] = (byte) ((s * 131 + i * 7 + 13) & 0xFF);
                    }
                }
                break;
            case "random42":
                Random random = new Random(42);
                for (int s = 0; s < data; s++) {
                    random.nextBytes(shards[s]);
                }
                break;
            default:
                throw new AssertionError("unknown generator " + generator);
        }
    }

    /** Encodes through ByteBuffers placed at a non-zero position, heap or direct, and compares. */
    private static void checkBufferEncode(ReedSolomonCodec codec, Map<String, Object> line, byte[][] encoded,
            boolean direct) throws NoSuchAlgorithmException {
        int data = codec.dataShardCount();
        int total = codec.totalShardCount();
        int shardBytes = encoded[0].length;
        int position = 3;
        ByteBuffer[] buffers = new ByteBuffer[total];
        for (int s = 0; s < total; s++) {
            ByteBuffer buffer = direct ? ByteBuffer.allocateDirect(shardBytes + 5) : ByteBuffer.allocate(shardBytes + 5);
            buffer.position(position);
            if (s < data) {
                buffer.put(encoded[s]);
                buffer.position(position);
            }
            buffer.limit(position + shardBytes);
            buffers[s] = buffer;
        }
        codec.encodeParity(buffers);
        byte[][] copied = new byte[total][shardBytes];
        for (int s = 0; s < total; s++) {
            assertEquals(position, buffers[s].position(), "position unchanged");
            buffers[s].get(position, copied[s]);
        }
        assertShardsMatch(line, copied, (direct ? "direct" : "heap") + " ByteBuffer encode");
        assertTrue(codec.isParityCorrect(buffers), "isParityCorrect on buffers");
    }

    private static void checkEveryErasurePattern(ReedSolomonCodec codec, byte[][] encoded) {
        int total = codec.totalShardCount();
        int data = codec.dataShardCount();
        int shardBytes = encoded[0].length;
        byte[][] work = new byte[total][shardBytes];
        int patterns = 0;
        for (int mask = 1; mask < (1 << total); mask++) {
            if (Integer.bitCount(mask) > codec.parityShardCount()) {
                continue;
            }
            patterns++;
            boolean[] present = new boolean[total];
            for (int s = 0; s < total; s++) {
                present[s] = (mask & (1 << s)) == 0;
                System.arraycopy(encoded[s], 0, work[s], 0, shardBytes);
                if (!present[s]) {
                    Arrays.fill(work[s], (byte) 0xA5);
                }
            }
            codec.reconstructData(work, present, 0, shardBytes);
            for (int s = 0; s < total; s++) {
                if (s < data || present[s]) {
                    assertArrayEquals(encoded[s], work[s], "reconstructData, missing mask " + Integer.toBinaryString(mask) + ", shard " + s);
                } else if (shardBytes > 0) {
                    assertEquals((byte) 0xA5, work[s][0], "reconstructData must leave missing parity " + s + " alone");
                }
            }
            codec.reconstruct(work, present, 0, shardBytes);
            for (int s = 0; s < total; s++) {
                assertArrayEquals(encoded[s], work[s], "reconstruct, missing mask " + Integer.toBinaryString(mask) + ", shard " + s);
            }
        }
        assertTrue(patterns > 0);
    }

    private static void assertShardsMatch(Map<String, Object> line, byte[][] shards, String how)
            throws NoSuchAlgorithmException {
        HexFormat hex = HexFormat.of();
        if (line.containsKey("shards_hex")) {
            List<Object> expected = asList(line.get("shards_hex"));
            assertEquals(shards.length, expected.size());
            for (int s = 0; s < shards.length; s++) {
                assertEquals(expected.get(s), hex.formatHex(shards[s]), how + ": shard " + s);
            }
        } else {
            List<Object> expected = asList(line.get("shards_sha256"));
            List<Object> prefixes = asList(line.get("parity_prefix16_hex"));
            assertEquals(shards.length, expected.size());
            int data = intField(line, "data");
            for (int s = 0; s < shards.length; s++) {
                String debug = s < data ? "" : " (expected parity prefix " + prefixes.get(s - data)
                        + ", got " + hex.formatHex(shards[s], 0, Math.min(16, shards[s].length)) + ")";
                String actual = hex.formatHex(MessageDigest.getInstance("SHA-256").digest(shards[s]));
                assertEquals(expected.get(s), actual, how + ": SHA-256 of shard " + s + debug);
            }
        }
    }

    private static List<Map<String, Object>> linesOfType(String type) {
        List<Map<String, Object>> matching = new ArrayList<>();
        for (Map<String, Object> line : lines) {
            if (type.equals(line.get("type"))) {
                matching.add(line);
            }
        }
        assertFalse(matching.isEmpty(), "no line of type " + type);
        return matching;
    }

    private static int intField(Map<String, Object> line, String field) {
        return ((Long) line.get(field)).intValue();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object value) {
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> asList(Object value) {
        return (List<Object>) value;
    }
}
