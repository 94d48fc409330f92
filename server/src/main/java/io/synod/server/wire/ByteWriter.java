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

    /** Overwrites the four bytes at {@code at} (a count or length written as a placeholder earlier). */
    public ByteWriter setI32(int at, int v) {
        if (at < 0 || at + 4 > pos) {
            throw new IndexOutOfBoundsException("i32 at " + at + " outside the " + pos + " bytes written");
        }
        buf[at] = (byte) (v >>> 24);
        buf[at + 1] = (byte) (v >>> 16);
        buf[at + 2] = (byte) (v >>> 8);
        buf[at + 3] = (byte) v;
        return this;
    }

    /** Forgets what was written after the first {@code size} bytes (an item that did not fit a frame). */
    public void truncate(int size) {
        if (size < 0 || size > pos) {
            throw new IndexOutOfBoundsException("cannot truncate " + pos + " bytes to " + size);
        }
        pos = size;
    }

    /**
     * The backing array, valid up to {@link #size()}: lets the transport send the bytes without one more copy
     * ({@link #toByteArray} copies). The caller owns it afterwards and must not write through this writer again.
     */
    public byte[] array() {
        return buf;
    }
}
