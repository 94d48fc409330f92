package io.synod.bench.erasure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * The Backblaze JavaReedSolomon throughput medians from
 * {@code backblaze-baseline-throughput.csv} (measured on another machine; shipped in this jar), keyed by
 * (data, parity, shard bytes, op).
 */
final class BackblazeBaseline {

    static final String FILE_NAME = "backblaze-baseline-throughput.csv";
    static final String VECTORS_PROPERTY = "synod.vectors.dir";

    private final String source;
    private final Map<String, Double> medianMegabytesPerSecond;

    private BackblazeBaseline(String source, Map<String, Double> medianMegabytesPerSecond) {
        this.source = source;
        this.medianMegabytesPerSecond = medianMegabytesPerSecond;
    }

    /** Where the CSV was read from. */
    String source() {
        return source;
    }

    /** The baseline median MB/s for this combination, if the CSV has one. */
    OptionalDouble median(int data, int parity, int shardBytes, String op) {
        Double value = medianMegabytesPerSecond.get(key(data, parity, shardBytes, op));
        return value == null ? OptionalDouble.empty() : OptionalDouble.of(value);
    }

    /**
     * Reads the CSV from {@code -Dsynod.vectors.dir} if set, else the copy in the bench jar
     * (bench/src/main/resources/io/synod/bench/erasure).
     *
     * @throws IOException if it cannot be found or read, naming where it looked
     */
    static BackblazeBaseline load() throws IOException {
        String configured = System.getProperty(VECTORS_PROPERTY);
        if (configured != null) {
            Path file = Path.of(configured).toAbsolutePath().resolve(FILE_NAME);
            if (!Files.isRegularFile(file)) {
                throw new IOException(FILE_NAME + " not found in -D" + VECTORS_PROPERTY + " directory: " + file);
            }
            return parse(file.toString(), Files.readAllLines(file, StandardCharsets.UTF_8));
        }
        try (InputStream in = BackblazeBaseline.class.getResourceAsStream(FILE_NAME)) {
            if (in == null) {
                throw new IOException(FILE_NAME + " is missing from the bench jar (io/synod/bench/erasure)");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return parse("bundled " + FILE_NAME, text.lines().toList());
        }
    }

    private static BackblazeBaseline parse(String file, List<String> lines) throws IOException {
        Map<String, Double> medians = new HashMap<>();
        List<String> header = null;
        for (String line : lines) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            List<String> cells = List.of(line.split(","));
            if (header == null) {
                header = cells;
                continue;
            }
            if (cells.size() != header.size()) {
                throw new IOException(file + ": row has " + cells.size() + " cells, header has " + header.size() + ": " + line);
            }
            int data = Integer.parseInt(cells.get(header.indexOf("data")));
            int parity = Integer.parseInt(cells.get(header.indexOf("parity")));
            int shardBytes = Integer.parseInt(cells.get(header.indexOf("shard_bytes")));
            String op = cells.get(header.indexOf("op"));
            double median = Double.parseDouble(cells.get(header.indexOf("median_MBps")));
            medians.put(key(data, parity, shardBytes, op), median);
        }
        if (medians.isEmpty()) {
            throw new IOException(file + " has no data rows");
        }
        return new BackblazeBaseline(file, medians);
    }

    private static String key(int data, int parity, int shardBytes, String op) {
        return data + "," + parity + "," + shardBytes + "," + op;
    }
}
