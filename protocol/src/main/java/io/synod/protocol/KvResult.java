package io.synod.protocol;

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

    /** A versioned get: the value (null if absent) and its version, the slot of the key's last write (0 if absent). */
    record Versioned(byte[] value, long version) implements KvResult {}

    /** One key of a scan. */
    record Entry(String key, byte[] value, long version) {}

    /** A scan: entries in key order; {@code more} when the range holds more than the reply carries. */
    record Entries(java.util.List<Entry> entries, boolean more) implements KvResult {
        public Entries {
            entries = java.util.List.copyOf(entries);
        }
    }

    byte TAG_DONE = 1;
    byte TAG_VALUE = 2;
    byte TAG_ABSENT = 3;
    byte TAG_SWAPPED = 4;
    byte TAG_LIST = 5;
    byte TAG_ERROR = 6;
    byte TAG_VERSIONED = 7;
    byte TAG_ENTRIES = 8;

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
        } else if (this instanceof Versioned v) {
            int length = v.value() == null ? 0 : v.value().length;
            return ByteBuffer.allocate(1 + 8 + 1 + 4 + length).put(TAG_VERSIONED).putLong(v.version())
                    .put((byte) (v.value() == null ? 0 : 1)).putInt(length).put(v.value() == null ? new byte[0] : v.value())
                    .array();
        } else if (this instanceof Entries es) {
            int size = 1 + 1 + 4;
            for (Entry e : es.entries()) {
                size += 2 + e.key().getBytes(java.nio.charset.StandardCharsets.UTF_8).length + 8 + 4 + e.value().length;
            }
            ByteBuffer out = ByteBuffer.allocate(size).put(TAG_ENTRIES).put((byte) (es.more() ? 1 : 0))
                    .putInt(es.entries().size());
            for (Entry e : es.entries()) {
                byte[] key = e.key().getBytes(java.nio.charset.StandardCharsets.UTF_8);
                out.putShort((short) key.length).put(key).putLong(e.version()).putInt(e.value().length).put(e.value());
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
            case TAG_VERSIONED -> {
                if (in.remaining() < 9) {
                    throw new IllegalArgumentException("kv result truncated in version");
                }
                long version = in.getLong();
                byte present = in.get();
                byte[] value = bytes(in);
                yield new Versioned(present == 1 ? value : null, version);
            }
            case TAG_ENTRIES -> {
                if (in.remaining() < 5) {
                    throw new IllegalArgumentException("kv result truncated in scan header");
                }
                boolean more = in.get() == 1;
                int count = in.getInt();
                // Each entry takes at least 2 + 8 + 4 bytes: refuse a count the bytes cannot hold.
                if (count < 0 || (long) count * 14 > in.remaining()) {
                    throw new IllegalArgumentException("kv result scan count " + count + " exceeds the "
                            + in.remaining() + " remaining bytes");
                }
                java.util.List<Entry> entries = new java.util.ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    if (in.remaining() < 2) {
                        throw new IllegalArgumentException("kv result truncated in scan key length");
                    }
                    int keyLength = Short.toUnsignedInt(in.getShort());
                    if (keyLength > in.remaining()) {
                        throw new IllegalArgumentException("kv result scan key length " + keyLength + " exceeds the "
                                + in.remaining() + " remaining bytes");
                    }
                    byte[] key = new byte[keyLength];
                    in.get(key);
                    if (in.remaining() < 8) {
                        throw new IllegalArgumentException("kv result truncated in scan version");
                    }
                    long version = in.getLong();
                    entries.add(new Entry(new String(key, java.nio.charset.StandardCharsets.UTF_8), bytes(in), version));
                }
                yield new Entries(entries, more);
            }
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
