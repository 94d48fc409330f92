package io.synod.coordination;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** The writing side of {@link ZnodeReader}: big-endian ints, u16-length-prefixed byte strings. */
final class ZnodeWriter {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(64);

    ZnodeWriter u8(int v) {
        out.write(v);
        return this;
    }

    ZnodeWriter i32(int v) {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
        return this;
    }

    ZnodeWriter i64(long v) {
        i32((int) (v >>> 32));
        return i32((int) v);
    }

    ZnodeWriter bytes(byte[] b, int maxLength, String field) {
        if (b.length > maxLength) {
            throw new IllegalArgumentException(field + " length " + b.length + " exceeds " + maxLength);
        }
        out.write(b.length >>> 8);
        out.write(b.length);
        out.write(b, 0, b.length);
        return this;
    }

    ZnodeWriter utf8(String s, int maxLength, String field) {
        return bytes(s.getBytes(StandardCharsets.UTF_8), maxLength, field);
    }

    byte[] toByteArray() {
        return out.toByteArray();
    }
}
