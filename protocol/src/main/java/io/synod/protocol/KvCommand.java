package io.synod.protocol;

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

    /**
     * Reads a value and its version (the slot of the key's last write, 0 when absent); the result
     * is {@link KvResult.Versioned}. {@link Get} answers the value alone (the simulator's format).
     */
    record GetVersioned(String key) implements KvCommand {
        public boolean isReadOnly() {
            return true;
        }
    }

    /**
     * Sets {@code value} if the key's version (the slot of its last write) equals
     * {@code expectedVersion}; 0 expects the key to be absent. The result is {@link KvResult.Swapped}.
     */
    record CasVersion(String key, long expectedVersion, byte[] value) implements KvCommand {
        public boolean isReadOnly() {
            return false;
        }
    }

    /**
     * Reads up to {@code limit} value keys in {@code [start, end)} in key order (UTF-8 bytes compared
     * unsigned; an empty {@code end} means "to the end of the key space"), with their versions. The
     * reply is bounded by {@link #MAX_SCAN_LIMIT} entries and {@link #MAX_SCAN_REPLY_BYTES} bytes
     * (at least one entry); {@link KvResult.Entries#more()} says the range holds more. List keys are
     * not returned. {@link #key()} is {@code start}, which may be empty: the server routes a scan to the
     * group owning {@code start}, and a group's state holds only its own range, so a scan across groups
     * is split by the caller at the shard boundaries.
     */
    record Scan(String start, String end, int limit) implements KvCommand {
        public Scan {
            if (start == null || end == null) {
                throw new IllegalArgumentException("scan bounds must not be null");
            }
            if (limit < 1 || limit > MAX_SCAN_LIMIT) {
                throw new IllegalArgumentException("scan limit must be 1.." + MAX_SCAN_LIMIT + ", got " + limit);
            }
        }

        @Override
        public String key() {
            return start;
        }

        public boolean isReadOnly() {
            return true;
        }

        /** Whether {@code key} lies in {@code [start, end)}. */
        public boolean contains(byte[] key) {
            return java.util.Arrays.compareUnsigned(key, start.getBytes(StandardCharsets.UTF_8)) >= 0
                    && (end.isEmpty() || java.util.Arrays.compareUnsigned(key, end.getBytes(StandardCharsets.UTF_8)) < 0);
        }
    }

    /** Most entries one scan reply holds. */
    int MAX_SCAN_LIMIT = 10_000;
    /** A scan reply stops adding entries past this many key and value bytes (it always holds one). */
    int MAX_SCAN_REPLY_BYTES = 256 * 1024;

    byte TAG_PUT = 1;
    byte TAG_GET = 2;
    byte TAG_DELETE = 3;
    byte TAG_CAS = 4;
    byte TAG_APPEND = 5;
    byte TAG_READ_LIST = 6;
    byte TAG_APPEND_NOTE = 7;
    byte TAG_GET_VERSIONED = 8;
    byte TAG_CAS_VERSION = 9;
    byte TAG_SCAN = 10;

    /** Encodes this command. */
    default byte[] encode() {
        byte[] keyBytes = key().getBytes(StandardCharsets.UTF_8);
        int minKey = this instanceof Scan ? 0 : 1;
        if (keyBytes.length < minKey || keyBytes.length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key must be " + minKey + ".." + MAX_KEY_BYTES + " UTF-8 bytes, got "
                    + keyBytes.length);
        }
        byte[] endBytes = this instanceof Scan sc ? sc.end().getBytes(StandardCharsets.UTF_8) : null;
        if (endBytes != null && endBytes.length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("scan end must be 0.." + MAX_KEY_BYTES + " UTF-8 bytes, got " + endBytes.length);
        }
        int size = 1 + 2 + keyBytes.length;
        if (this instanceof CasVersion c) {
            size += 8 + 4 + c.value().length;
        } else if (endBytes != null) {
            size += 2 + endBytes.length + 4;
        } else if (this instanceof Put p) {
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
        } else if (this instanceof CasVersion c) {
            out.putLong(c.expectedVersion()).putInt(c.value().length).put(c.value());
        } else if (this instanceof Scan sc) {
            out.putShort((short) endBytes.length).put(endBytes).putInt(sc.limit());
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
        } else if (c instanceof GetVersioned) {
            return TAG_GET_VERSIONED;
        } else if (c instanceof CasVersion) {
            return TAG_CAS_VERSION;
        } else if (c instanceof Scan) {
            return TAG_SCAN;
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
        if ((keyLength == 0 && tag != TAG_SCAN) || keyLength > MAX_KEY_BYTES || keyLength > in.remaining()) {
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
            case TAG_GET_VERSIONED -> new GetVersioned(key);
            case TAG_CAS_VERSION -> {
                need(in, 8, "cas expected version");
                long expected = in.getLong();
                if (expected < 0) {
                    throw new IllegalArgumentException("kv cas expected version must be >= 0, got " + expected);
                }
                yield new CasVersion(key, expected, readBytes(in, "cas new value"));
            }
            case TAG_SCAN -> {
                need(in, 2, "scan end length");
                int endLength = Short.toUnsignedInt(in.getShort());
                if (endLength > MAX_KEY_BYTES || endLength > in.remaining()) {
                    throw new IllegalArgumentException("kv scan end length " + endLength + " is invalid (remaining "
                            + in.remaining() + " bytes, max " + MAX_KEY_BYTES + ")");
                }
                byte[] end = new byte[endLength];
                in.get(end);
                need(in, 4, "scan limit");
                int limit = in.getInt();
                if (limit < 1 || limit > MAX_SCAN_LIMIT) {
                    throw new IllegalArgumentException("kv scan limit must be 1.." + MAX_SCAN_LIMIT + ", got " + limit);
                }
                yield new Scan(key, new String(end, StandardCharsets.UTF_8), limit);
            }
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
