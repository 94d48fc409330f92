package io.synod.server.wire;

import java.nio.ByteBuffer;

/**
 * A length-checked reader over bytes that came from outside. Every read checks what is left before
 * it allocates, so a hostile length field can never make us allocate more than the input holds.
 */
public final class ByteReader {
    private final ByteBuffer in;

    public ByteReader(byte[] bytes) {
        this.in = ByteBuffer.wrap(bytes);
    }

    public ByteReader(byte[] bytes, int offset, int length) {
        this.in = ByteBuffer.wrap(bytes, offset, length);
    }

    /** Reads {@code bytes} from its position to its limit (big-endian whatever its order; the buffer is not moved). */
    public ByteReader(ByteBuffer bytes) {
        this.in = bytes.slice();
    }

    public int remaining() {
        return in.remaining();
    }

    private void need(int bytes, String what) throws MalformedInputException {
        if (in.remaining() < bytes) {
            throw new MalformedInputException(what + " needs " + bytes + " bytes, only " + in.remaining() + " left");
        }
    }

    public byte u8(String what) throws MalformedInputException {
        need(1, what);
        return in.get();
    }

    public int i32(String what) throws MalformedInputException {
        need(4, what);
        return in.getInt();
    }

    public long i64(String what) throws MalformedInputException {
        need(8, what);
        return in.getLong();
    }

    /** A count of items each at least {@code minItemBytes} long: checked against what is left. */
    public int count(String what, int minItemBytes, int max) throws MalformedInputException {
        int n = i32(what + " count");
        if (n < 0 || n > max) {
            throw new MalformedInputException(what + " count " + n + " is outside 0.." + max);
        }
        if ((long) n * minItemBytes > in.remaining()) {
            throw new MalformedInputException(what + " count " + n + " cannot fit in the " + in.remaining() + " bytes left");
        }
        return n;
    }

    /** A length-prefixed byte string, allocated only after its length was checked against what is left. */
    public byte[] bytes(String what) throws MalformedInputException {
        int length = i32(what + " length");
        if (length < 0 || length > in.remaining()) {
            throw new MalformedInputException(what + " length " + length + " exceeds the " + in.remaining() + " bytes left");
        }
        byte[] out = new byte[length];
        in.get(out);
        return out;
    }

    public void expectEnd(String what) throws MalformedInputException {
        if (in.hasRemaining()) {
            throw new MalformedInputException(what + " has " + in.remaining() + " trailing bytes");
        }
    }
}
