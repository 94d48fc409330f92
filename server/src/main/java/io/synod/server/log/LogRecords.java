package io.synod.server.log;

import io.synod.core.paxos.Entry;
import io.synod.server.wire.ByteReader;
import io.synod.server.wire.ByteWriter;
import io.synod.server.wire.MalformedInputException;
import io.synod.server.wire.WireCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.nio.file.StandardOpenOption;

/**
 * The record bodies both log formats share (a kind byte, then an entry or a compaction slot) and the
 * helpers for preallocated, zero-filled segment files. The framing around a body differs: a group's own
 * {@link SegmentedLog} (the previous layout) has {@code [length][crc32c][body]}, the {@link NodeLog} adds the group.
 */
final class LogRecords {
    static final int ALIGN = 8;
    static final byte ENTRY = 1;
    static final byte COMPACT = 2;
    /** An entry with its flags: RS-Paxos coded (stub plus shard, or a full copy, with its coding metadata) or lease-stamped. */
    static final byte CODED_ENTRY = 3;
    private static final int ZERO_CHUNK = 1 << 20;

    private LogRecords() {}

    /**
     * An entry's body as bytes: kind {@link #ENTRY} and {@link WireCodec#writePlainEntry}'s fields for a plain entry,
     * kind {@link #CODED_ENTRY} and {@link WireCodec#writeEntry}'s (its flags, coding and lease stamp) for a coded or a
     * lease-stamped one: the stamp is part of the value and must come back after a restart.
     */
    static byte[] entryBody(Entry entry) {
        ByteWriter w = new ByteWriter(96 + entry.command().payload().length
                + (entry.coded() == null || entry.coded().shard() == null ? 0 : entry.coded().shard().length)
                + (entry.coded() == null || entry.coded().header() == null ? 0 : entry.coded().header().length));
        if (isPlain(entry)) {
            w.u8(ENTRY);
            WireCodec.writePlainEntry(w, entry);
        } else {
            w.u8(CODED_ENTRY);
            WireCodec.writeEntry(w, entry);
        }
        return w.toByteArray();
    }

    /** Whether {@code entry} is written as kind {@link #ENTRY}: no coding, no lease stamp. */
    static boolean isPlain(Entry entry) {
        return entry.coded() == null && entry.stamp() == null;
    }

    /** The size of a plain entry's body: kind, slot, ballot (epoch, node), client id, sequence, payload length, payload. */
    static int plainBodyLength(Entry entry) {
        return 1 + 8 + 12 + 8 + 8 + 4 + entry.command().payload().length;
    }

    /**
     * Puts a plain entry's body straight into {@code buf}, byte for byte what {@link #entryBody} makes of it (the
     * layout of {@link WireCodec#writePlainEntry}; {@code LogRecordsTest} holds the two together): the node log's
     * appends so copy a value once, from the command into the direct write buffer.
     */
    static void putPlainBody(ByteBuffer buf, Entry entry) {
        byte[] payload = entry.command().payload();
        buf.put(ENTRY).putLong(entry.slot()).putLong(entry.ballot().epoch()).putInt(entry.ballot().nodeId())
                .putLong(entry.command().clientId()).putLong(entry.command().sequence()).putInt(payload.length).put(payload);
    }

    static byte[] compactionBody(long slot) {
        return new ByteWriter(16).u8(COMPACT).i64(slot).toByteArray();
    }

    /** A body read back: an {@link Entry} or a {@link Long} compaction slot, or else the problem that stopped it. */
    record Decoded(Object record, String problem) {}

    /** Decodes a body whose framing already checked out ({@code problem} non-null: it did not). */
    static Decoded decode(byte[] bytes, int offset, int len, String problem) {
        if (problem != null) {
            return new Decoded(null, problem);
        }
        try {
            return new Decoded(decodeBody(bytes, offset, len), null);
        } catch (MalformedInputException e) {
            return new Decoded(null, "undecodable record: " + e.getMessage());
        }
    }

    static void checkSegmentBytes(long segmentBytes) {
        if (segmentBytes < 4096) {
            throw new IllegalArgumentException("segment size must be >= 4096 bytes, got " + segmentBytes);
        }
    }

    /** An {@link Entry}, or a {@link Long} compaction slot. */
    private static Object decodeBody(byte[] bytes, int offset, int len) throws MalformedInputException {
        ByteReader r = new ByteReader(bytes, offset, len);
        byte type = r.u8("record type");
        Object out;
        if (type == ENTRY) {
            out = WireCodec.readPlainEntry(r);
        } else if (type == CODED_ENTRY) {
            out = WireCodec.readEntry(r);
            if (isPlain((Entry) out)) {
                throw new MalformedInputException("coded or stamped entry record holds a plain entry");
            }
        } else if (type == COMPACT) {
            long slot = r.i64("compaction slot");
            if (slot < 0) {
                throw new MalformedInputException("negative compaction slot " + slot);
            }
            out = slot;
        } else {
            throw new MalformedInputException("unknown record type " + type);
        }
        r.expectEnd("record");
        return out;
    }

    static boolean allZero(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether any of {@code files} from index {@code from} on holds a non-zero byte (so a bad record is not the tail). */
    static boolean laterSegmentsHoldData(List<Path> files, int from) throws IOException {
        for (int i = from; i < files.size(); i++) {
            byte[] bytes = Files.readAllBytes(files.get(i));
            if (!allZero(bytes, 0, bytes.length)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Creates a segment file of {@code size} zero bytes, durably (the file and its directory entry): an append
     * then never changes the file's size, so its fsync need not flush metadata (PaxStore section 3: preallocated
     * log files with fdatasync).
     */
    static FileChannel createPreallocated(Path path, long size) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        writeZeros(channel, 0, size);
        channel.force(true);
        DurableFiles.syncDirectory(path.getParent());
        return channel;
    }

    static void zeroFrom(Path path, long from, long to) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
            writeZeros(ch, from, to);
            ch.force(false);
        }
    }

    static void writeZeros(FileChannel ch, long from, long to) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(ZERO_CHUNK, Math.max(0, to - from)));
        long pos = from;
        while (pos < to) {
            zeros.clear();
            zeros.limit((int) Math.min(zeros.capacity(), to - pos));
            pos += ch.write(zeros, pos);
        }
    }

    /** Writes all of {@code buf} at {@code pos}; returns the position after it. */
    static long writeFully(FileChannel ch, ByteBuffer buf, long pos) throws IOException {
        while (buf.hasRemaining()) {
            pos += ch.write(buf, pos);
        }
        return pos;
    }

    static int align(int n) {
        return (n + ALIGN - 1) & -ALIGN;
    }

    static int getInt(byte[] b, int pos) {
        return ((b[pos] & 0xFF) << 24) | ((b[pos + 1] & 0xFF) << 16) | ((b[pos + 2] & 0xFF) << 8) | (b[pos + 3] & 0xFF);
    }
}
