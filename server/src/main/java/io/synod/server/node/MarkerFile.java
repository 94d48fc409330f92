package io.synod.server.node;

import io.synod.server.log.CorruptStateException;
import io.synod.server.log.DurableFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The form of the small identity files of a data directory ({@link NodeIdentity#FILE}, {@link LostGroups#FILE}):
 * UTF-8 text, comment lines starting with {@code #}, then one {@code key=value} line per key, the last one
 * {@code crc32c=} (8 hex digits of the CRC-32C of the lines before it); written to a temp file, fsynced, renamed.
 * The callers check each value's meaning and the checksum.
 */
final class MarkerFile {
    private MarkerFile() {}

    /** The file's bytes, or null if there is no file. */
    static byte[] readIfPresent(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllBytes(file) : null;
    }

    /** Writes {@code comments}, {@code body} and its checksum line atomically. */
    static void write(Path file, String comments, String body) throws IOException {
        DurableFiles.writeAtomically(file, (comments + body + "crc32c=" + crcHex(body) + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The {@code key=value} lines of {@code bytes}, every one of {@code keys} exactly once and no other.
     *
     * @throws CorruptStateException starting with {@code damaged}, naming the line at fault
     */
    static Map<String, String> parse(byte[] bytes, List<String> keys, String damaged) throws CorruptStateException {
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n", -1)) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            String key = eq < 0 ? line : line.substring(0, eq);
            if (eq < 0 || !keys.contains(key)) {
                throw new CorruptStateException(damaged + "unexpected line '" + abbreviate(line) + "'");
            }
            if (values.put(key, line.substring(eq + 1)) != null) {
                throw new CorruptStateException(damaged + "'" + key + "' appears twice");
            }
        }
        for (String key : keys) {
            if (!values.containsKey(key)) {
                throw new CorruptStateException(damaged + "no '" + key + "' line");
            }
        }
        return values;
    }

    static String crcHex(String body) {
        CRC32C crc = new CRC32C();
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        crc.update(bytes, 0, bytes.length);
        return String.format("%08x", crc.getValue());
    }

    static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "...";
    }
}
