package io.synod.coordination;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Length-checked reading of znode bytes: every read checks what remains before it allocates or
 * advances, and every failure is a {@link MetadataFormatException} that names the structure.
 */
final class ZnodeReader {
    private final ByteBuffer buffer;
    private final String what;

    ZnodeReader(byte[] bytes, String what) {
        if (bytes == null) {
            throw new MetadataFormatException(what + ": no data");
        }
        this.buffer = ByteBuffer.wrap(bytes);
        this.what = what;
    }

    String what() {
        return what;
    }

    /** Reads the format version byte and rejects any other than {@code expected}. */
    void formatVersion(int expected) {
        int v = u8("format version");
        if (v != expected) {
            throw new MetadataFormatException(what + ": unsupported format version " + v + " (this build reads "
                    + expected + ")");
        }
    }

    private void need(int bytes, String field) {
        if (buffer.remaining() < bytes) {
            throw new MetadataFormatException(what + ": truncated at " + field + " (needs " + bytes + " bytes, "
                    + buffer.remaining() + " left)");
        }
    }

    int u8(String field) {
        need(1, field);
        return buffer.get() & 0xff;
    }

    int i32(String field) {
        need(4, field);
        return buffer.getInt();
    }

    long i64(String field) {
        need(8, field);
        return buffer.getLong();
    }

    /** An int in [min, max], else an error naming the field. */
    int i32(String field, int min, int max) {
        int v = i32(field);
        if (v < min || v > max) {
            throw new MetadataFormatException(what + ": " + field + " " + v + " outside " + min + ".." + max);
        }
        return v;
    }

    long i64(String field, long min, long max) {
        long v = i64(field);
        if (v < min || v > max) {
            throw new MetadataFormatException(what + ": " + field + " " + v + " outside " + min + ".." + max);
        }
        return v;
    }

    /** A u16 length then that many bytes; the length is checked against {@code maxLength} and what remains. */
    byte[] bytes(String field, int maxLength) {
        need(2, field + " length");
        int length = buffer.getShort() & 0xffff;
        if (length > maxLength) {
            throw new MetadataFormatException(what + ": " + field + " length " + length + " exceeds " + maxLength);
        }
        need(length, field);
        byte[] out = new byte[length];
        buffer.get(out);
        return out;
    }

    /** A {@link #bytes} field holding strict UTF-8. */
    String utf8(String field, int maxLength) {
        byte[] raw = bytes(field, maxLength);
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw)).toString();
        } catch (CharacterCodingException e) {
            throw new MetadataFormatException(what + ": " + field + " is not valid UTF-8");
        }
    }

    /** Everything was consumed; trailing bytes mean a writer and reader disagree on the format. */
    void end() {
        if (buffer.hasRemaining()) {
            throw new MetadataFormatException(what + ": " + buffer.remaining() + " unexpected trailing bytes");
        }
    }

    MetadataFormatException error(String message) {
        return new MetadataFormatException(what + ": " + message);
    }
}
