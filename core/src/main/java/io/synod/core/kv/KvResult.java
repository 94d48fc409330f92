package io.synod.core.kv;

import java.nio.ByteBuffer;

/**
 * Results of key-value commands, with their byte encoding (one tag byte, then a u32-length value
 * or a u32 count of 8-byte list elements). Decoding checks every length before allocating.
 */
public sealed interface KvResult {
    /** A write or delete took effect. */
    record Done() implements KvResult {}

    /** A get: the value, or null if the key is absent. */
    record Value(byte[] value) implements KvResult {}

    /** A compare-and-set: whether it swapped. */
    record Swapped(boolean swapped) implements KvResult {}

    /** A list read: the elements in append order. */
    record ListValue(long[] elements) implements KvResult {}

    /** The command could not be decoded or applied; every replica reaches the same error. */
    record Error(String message) implements KvResult {}

    byte TAG_DONE = 1;
    byte TAG_VALUE = 2;
    byte TAG_ABSENT = 3;
    byte TAG_SWAPPED = 4;
    byte TAG_LIST = 5;
    byte TAG_ERROR = 6;

    default byte[] encode() {
        if (this instanceof Done) {
            return new byte[] {TAG_DONE};
        } else if (this instanceof Value v) {
            if (v.value() == null) {
                return new byte[] {TAG_ABSENT};
            }
            return ByteBuffer.allocate(5 + v.value().length).put(TAG_VALUE).putInt(v.value().length).put(v.value()).array();
        } else if (this instanceof Swapped s) {
            return new byte[] {TAG_SWAPPED, (byte) (s.swapped() ? 1 : 0)};
        } else if (this instanceof ListValue l) {
            ByteBuffer out = ByteBuffer.allocate(5 + 8 * l.elements().length).put(TAG_LIST).putInt(l.elements().length);
            for (long element : l.elements()) {
                out.putLong(element);
            }
            return out.array();
        }
        byte[] message = ((Error) this).message().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return ByteBuffer.allocate(5 + message.length).put(TAG_ERROR).putInt(message.length).put(message).array();
    }

    static KvResult decode(byte[] bytes) {
        if (bytes == null || bytes.length < 1) {
            throw new IllegalArgumentException("kv result is empty");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        byte tag = in.get();
        KvResult result = switch (tag) {
            case TAG_DONE -> new Done();
            case TAG_ABSENT -> new Value(null);
            case TAG_VALUE -> new Value(bytes(in));
            case TAG_SWAPPED -> {
                if (in.remaining() < 1) {
                    throw new IllegalArgumentException("kv result truncated in swapped flag");
                }
                yield new Swapped(in.get() == 1);
            }
            case TAG_LIST -> {
                if (in.remaining() < 4) {
                    throw new IllegalArgumentException("kv result truncated in list count");
                }
                int count = in.getInt();
                if (count < 0 || (long) count * 8 > in.remaining()) {
                    throw new IllegalArgumentException("kv result list count " + count + " exceeds the "
                            + in.remaining() + " remaining bytes");
                }
                long[] elements = new long[count];
                for (int i = 0; i < count; i++) {
                    elements[i] = in.getLong();
                }
                yield new ListValue(elements);
            }
            case TAG_ERROR -> new Error(new String(bytes(in), java.nio.charset.StandardCharsets.UTF_8));
            default -> throw new IllegalArgumentException("unknown kv result tag " + tag);
        };
        if (in.hasRemaining()) {
            throw new IllegalArgumentException("kv result has " + in.remaining() + " trailing bytes");
        }
        return result;
    }

    private static byte[] bytes(ByteBuffer in) {
        if (in.remaining() < 4) {
            throw new IllegalArgumentException("kv result truncated in length");
        }
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException("kv result length " + length + " exceeds the " + in.remaining()
                    + " remaining bytes");
        }
        byte[] value = new byte[length];
        in.get(value);
        return value;
    }
}
