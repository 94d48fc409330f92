package io.synod.bench.erasure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * The Backblaze JavaReedSolomon throughput medians from
 * {@code shared/vectors/reed-solomon/backblaze-baseline-throughput.csv}, keyed by
 * (data, parity, shard bytes, op).
 */
final class BackblazeBaseline {

    static final String FILE_NAME = "backblaze-baseline-throughput.csv";
    static final String VECTORS_PROPERTY = "synod.vectors.dir";

    private final Path source;
    private final Map<String, Double> medianMegabytesPerSecond;

    private BackblazeBaseline(Path source, Map<String, Double> medianMegabytesPerSecond) {
        this.source = source;
        this.medianMegabytesPerSecond = medianMegabytesPerSecond;
    }

    /** Where the CSV was read from. */
    Path source() {
        return source;
    }

    /** The baseline median MB/s for this combination, if the CSV has one. */
    OptionalDouble median(int data, int parity, int shardBytes, String op) {
        Double value = medianMegabytesPerSecond.get(key(data, parity, shardBytes, op));
        return value == null ? OptionalDouble.empty() : OptionalDouble.of(value);
    }

    /**
     * Reads the CSV from {@code -Dsynod.vectors.dir}, else from {@code A/shared/vectors/reed-solomon}
     * for the working directory and each ancestor A.
     *
     * @throws IOException if it cannot be found or read, naming the places looked in
     */
    static BackblazeBaseline load() throws IOException {
        List<Path> candidates = new ArrayList<>();
        String configured = System.getProperty(VECTORS_PROPERTY);
        if (configured != null) {
            candidates.add(Path.of(configured).toAbsolutePath().resolve(FILE_NAME));
        } else {
            for (Path a = Path.of("").toAbsolutePath(); a != null; a = a.getParent()) {
                candidates.add(a.resolve("shared").resolve("vectors").resolve("reed-solomon").resolve(FILE_NAME));
            }
        }
        for (Path candidate : candidates) {
            if (Files.isRegularFile(candidate)) {
                return parse(candidate);
            }
        }
        throw new IOException(FILE_NAME + " not found (set -D" + VECTORS_PROPERTY + "=DIR); looked in " + candidates);
    }

    private static BackblazeBaseline parse(Path file) throws IOException {
        Map<String, Double> medians = new HashMap<>();
        List<String> header = null;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
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
