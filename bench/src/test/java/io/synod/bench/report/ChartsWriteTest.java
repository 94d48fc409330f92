package io.synod.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A benchmark's chart is a picture of its CSV: a host without fonts must skip the picture, not fail the
 * run after measuring (bench kv once exited 1 that way), while a real error still fails.
 */
class ChartsWriteTest {

    @Test
    void writesThePngWhenTheHostCanRender(@TempDir Path dir) throws IOException {
        LinkedHashMap<String, double[]> series = new LinkedHashMap<>();
        series.put("a", new double[] {1, 2});
        Path file = dir.resolve("c.png");
        assertTrue(Charts.savePng(Charts.bars("t", "y", List.of("x1", "x2"), series), file));
        assertTrue(Files.size(file) > 0);
    }

    @Test
    void skipsTheChartWhenTheFontStackFails(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("c.png");
        assertFalse(Charts.write(file, path -> {
            throw new InternalError("Fontconfig head is null, check your fonts or fonts configuration");
        }));
        assertFalse(Files.exists(file));
        assertFalse(Charts.write(file, path -> {
            throw new UnsatisfiedLinkError("libfontmanager.so: libfreetype.so.6: cannot open shared object file");
        }));
    }

    @Test
    void otherFailuresStillFail(@TempDir Path dir) {
        Path file = dir.resolve("c.png");
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> Charts.write(file, path -> {
                    throw new IllegalArgumentException("series length mismatch");
                }));
        assertEquals("series length mismatch", bad.getMessage());
        assertThrows(IOException.class, () -> Charts.write(file, path -> {
            throw new IOException("No space left on device");
        }));
    }
}
