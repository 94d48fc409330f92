package io.synod.server.wire;

import java.util.Arrays;

/** A growable big-endian writer, the mirror of {@link ByteReader}. */
public final class ByteWriter {
    private byte[] buf;
    private int pos;

    public ByteWriter(int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    private void ensure(int more) {
        if (pos + more > buf.length) {
            long wanted = Math.max((long) buf.length * 2, (long) pos + more);
            if (wanted > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("encoded size exceeds 2 GiB");
            }
            buf = Arrays.copyOf(buf, (int) wanted);
        }
    }

    public ByteWriter u8(int v) {
        ensure(1);
        buf[pos++] = (byte) v;
        return this;
    }

    public ByteWriter i32(int v) {
        ensure(4);
        buf[pos++] = (byte) (v >>> 24);
        buf[pos++] = (byte) (v >>> 16);
        buf[pos++] = (byte) (v >>> 8);
        buf[pos++] = (byte) v;
        return this;
    }

    public ByteWriter i64(long v) {
        i32((int) (v >>> 32));
        return i32((int) v);
    }

    public ByteWriter bytes(byte[] b) {
        i32(b.length);
        ensure(b.length);
        System.arraycopy(b, 0, buf, pos, b.length);
        pos += b.length;
        return this;
    }

    public int size() {
        return pos;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, pos);
    }
}
