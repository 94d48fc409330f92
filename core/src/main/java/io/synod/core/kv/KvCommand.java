package io.synod.core.kv;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Operations of the key-value state machine, with their byte encoding. Encoding: one tag byte,
 * then the key (u16 length + UTF-8), then the operation's arguments (u32 length-prefixed byte
 * strings, or an 8-byte integer for list-append). Every length is checked against what remains
 * before anything is allocated, and decoding fails with {@link IllegalArgumentException} naming
 * the problem.
 */
public sealed interface KvCommand {
    /** Largest key, in UTF-8 bytes. */
    int MAX_KEY_BYTES = 1024;

    String key();

    boolean isReadOnly();

    record Put(String key, byte[] value) implements KvCommand {
        public boolean isReadOnly() {
            return false;
        }
    }

    record Get(String key) implements KvCommand {
        public boolean isReadOnly() {
            return true;
        }
    }

    record Delete(String key) implements KvCommand {
        public boolean isReadOnly() {
            return false;
        }
    }

    /** Sets {@code value} if the current value equals {@code expected} (null: key absent). */
    record CompareAndSet(String key, byte[] expected, byte[] value) implements KvCommand {
        public boolean isReadOnly() {
            return false;
        }
    }

    /** Appends an integer to the key's list (the list-append model used by the checker). */
    record Append(String key, long element) implements KvCommand {
        public boolean isReadOnly() {
            return false;
        }
    }

    /**
     * Appends an integer to the key's list, like {@link Append}, carrying {@code note} bytes that the
     * state machine does not keep: a list-append whose command is as large as the note, so the
     * simulator's checked workload can replicate large values (RS-Paxos coded accepts).
     */
    record AppendNote(String key, long element, byte[] note) implements KvCommand {
        public boolean isReadOnly() {
            return false;
        }
    }

    /** Reads the key's whole list. */
    record ReadList(String key) implements KvCommand {
        public boolean isReadOnly() {
            return true;
        }
    }

    byte TAG_PUT = 1;
    byte TAG_GET = 2;
    byte TAG_DELETE = 3;
    byte TAG_CAS = 4;
    byte TAG_APPEND = 5;
    byte TAG_READ_LIST = 6;
    byte TAG_APPEND_NOTE = 7;

    /** Encodes this command. */
    default byte[] encode() {
        byte[] keyBytes = key().getBytes(StandardCharsets.UTF_8);
        if (keyBytes.length == 0 || keyBytes.length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key must be 1.." + MAX_KEY_BYTES + " UTF-8 bytes, got " + keyBytes.length);
        }
        int size = 1 + 2 + keyBytes.length;
        if (this instanceof Put p) {
            size += 4 + p.value().length;
        } else if (this instanceof CompareAndSet c) {
            size += 1 + 4 + (c.expected() == null ? 0 : c.expected().length) + 4 + c.value().length;
        } else if (this instanceof Append) {
            size += 8;
        } else if (this instanceof AppendNote n) {
            size += 8 + 4 + n.note().length;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(tag(this)).putShort((short) keyBytes.length).put(keyBytes);
        if (this instanceof Put p) {
            out.putInt(p.value().length).put(p.value());
        } else if (this instanceof CompareAndSet c) {
            out.put((byte) (c.expected() == null ? 0 : 1));
            byte[] expected = c.expected() == null ? new byte[0] : c.expected();
            out.putInt(expected.length).put(expected);
            out.putInt(c.value().length).put(c.value());
        } else if (this instanceof Append a) {
            out.putLong(a.element());
        } else if (this instanceof AppendNote n) {
            out.putLong(n.element()).putInt(n.note().length).put(n.note());
        }
        return out.array();
    }

    private static byte tag(KvCommand c) {
        if (c instanceof Put) {
            return TAG_PUT;
        } else if (c instanceof Get) {
            return TAG_GET;
        } else if (c instanceof Delete) {
            return TAG_DELETE;
        } else if (c instanceof CompareAndSet) {
            return TAG_CAS;
        } else if (c instanceof Append) {
            return TAG_APPEND;
        } else if (c instanceof AppendNote) {
            return TAG_APPEND_NOTE;
        }
        return TAG_READ_LIST;
    }

    /** Decodes a command; throws {@link IllegalArgumentException} naming what is wrong. */
    static KvCommand decode(byte[] bytes) {
        if (bytes == null || bytes.length < 3) {
            throw new IllegalArgumentException("kv command too short: " + (bytes == null ? "null" : bytes.length + " bytes"));
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        byte tag = in.get();
        int keyLength = Short.toUnsignedInt(in.getShort());
        if (keyLength == 0 || keyLength > MAX_KEY_BYTES || keyLength > in.remaining()) {
            throw new IllegalArgumentException("kv command key length " + keyLength + " is invalid (remaining "
                    + in.remaining() + " bytes, max " + MAX_KEY_BYTES + ")");
        }
        byte[] keyBytes = new byte[keyLength];
        in.get(keyBytes);
        String key = new String(keyBytes, StandardCharsets.UTF_8);
        KvCommand command = switch (tag) {
            case TAG_PUT -> new Put(key, readBytes(in, "put value"));
            case TAG_GET -> new Get(key);
            case TAG_DELETE -> new Delete(key);
            case TAG_CAS -> {
                need(in, 1, "cas expected-present flag");
                byte present = in.get();
                if (present != 0 && present != 1) {
                    throw new IllegalArgumentException("kv cas expected-present flag must be 0 or 1, got " + present);
                }
                byte[] expected = readBytes(in, "cas expected value");
                byte[] value = readBytes(in, "cas new value");
                yield new CompareAndSet(key, present == 1 ? expected : null, value);
            }
            case TAG_APPEND -> {
                need(in, 8, "append element");
                yield new Append(key, in.getLong());
            }
            case TAG_APPEND_NOTE -> {
                need(in, 8, "append element");
                long element = in.getLong();
                yield new AppendNote(key, element, readBytes(in, "append note"));
            }
            case TAG_READ_LIST -> new ReadList(key);
            default -> throw new IllegalArgumentException("unknown kv command tag " + tag);
        };
        if (in.hasRemaining()) {
            throw new IllegalArgumentException("kv command has " + in.remaining() + " trailing bytes");
        }
        return command;
    }

    private static void need(ByteBuffer in, int bytes, String what) {
        if (in.remaining() < bytes) {
            throw new IllegalArgumentException("kv command truncated in " + what + ": need " + bytes
                    + " bytes, have " + in.remaining());
        }
    }

    private static byte[] readBytes(ByteBuffer in, String what) {
        need(in, 4, what + " length");
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException("kv command " + what + " length " + length + " exceeds the "
                    + in.remaining() + " remaining bytes");
        }
        byte[] value = new byte[length];
        in.get(value);
        return value;
    }

    /** Byte-wise equality that treats null as "absent". */
    static boolean sameValue(byte[] a, byte[] b) {
        return a == null ? b == null : b != null && Arrays.equals(a, b);
    }
}
