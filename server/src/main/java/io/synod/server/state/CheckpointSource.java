package io.synod.server.state;

import io.synod.core.paxos.SnapshotSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * A RocksDB checkpoint directory (the group's RocksDB at one applied slot: data, applied slot and
 * client sessions, its SST files hard-linked) served as a snapshot's state part, read in bounded
 * pieces and never materialized. The stream is
 * <pre>
 *   header  [magic "SYCK" u32][version u16][piece bytes u32][slot u64][file count u32]
 *           per file: [name length u16][name UTF-8][size u64]
 *           [CRC32C of the header so far u32]
 *   body    per file in header order, per piece of at most "piece bytes": [data][CRC32C of data u32]
 * </pre>
 * so every piece names its file and offset (by position) and carries its own checksum;
 * {@link CheckpointSink} checks each as it arrives. Files are read at the offset asked for, one
 * piece at a time.
 */
public final class CheckpointSource implements SnapshotSource {
    static final int MAGIC = 0x5359434B; // "SYCK"
    static final short VERSION = 1;
    /** Fixed header bytes before the file list. */
    static final int FIXED_HEADER = 4 + 2 + 4 + 8 + 4;
    static final int DEFAULT_PIECE_BYTES = 64 * 1024;

    private final Path dir;
    private final long slot;
    private final int pieceBytes;
    private final String[] names;
    private final long[] sizes;
    /** Stream offset at which each file's first piece starts. */
    private final long[] fileStart;
    private final byte[] header;
    private final long total;
    private int cachedFile = -1;
    private long cachedPiece = -1;
    private byte[] cachedBytes;

    public CheckpointSource(Path dir, long slot) throws IOException {
        this(dir, slot, DEFAULT_PIECE_BYTES);
    }

    CheckpointSource(Path dir, long slot, int pieceBytes) throws IOException {
        if (pieceBytes <= 0) {
            throw new IllegalArgumentException("checkpoint piece size must be positive, got " + pieceBytes);
        }
        this.dir = dir;
        this.slot = slot;
        this.pieceBytes = pieceBytes;
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(Files::isRegularFile).sorted().toList();
        }
        names = new String[files.size()];
        sizes = new long[files.size()];
        int headerBytes = FIXED_HEADER + 4;
        for (int i = 0; i < names.length; i++) {
            names[i] = files.get(i).getFileName().toString();
            sizes[i] = Files.size(files.get(i));
            headerBytes += 2 + names[i].getBytes(StandardCharsets.UTF_8).length + 8;
        }
        ByteBuffer h = ByteBuffer.allocate(headerBytes);
        h.putInt(MAGIC).putShort(VERSION).putInt(pieceBytes).putLong(slot).putInt(names.length);
        for (int i = 0; i < names.length; i++) {
            byte[] n = names[i].getBytes(StandardCharsets.UTF_8);
            h.putShort((short) n.length).put(n).putLong(sizes[i]);
        }
        CRC32C crc = new CRC32C();
        crc.update(h.array(), 0, h.position());
        h.putInt((int) crc.getValue());
        header = h.array();
        fileStart = new long[names.length];
        long at = header.length;
        for (int i = 0; i < names.length; i++) {
            fileStart[i] = at;
            at += streamBytes(sizes[i], pieceBytes);
        }
        total = at;
    }

    /** Bytes a file of {@code size} takes in the stream: its data plus a 4-byte CRC per piece. */
    static long streamBytes(long size, int pieceBytes) {
        return size + 4 * ((size + pieceBytes - 1) / pieceBytes);
    }

    public Path dir() {
        return dir;
    }

    public long slot() {
        return slot;
    }

    @Override
    public long sizeBytes() {
        return total;
    }

    @Override
    public boolean isAvailable() {
        return Files.isDirectory(dir);
    }

    @Override
    public byte[] read(long offset, int maxBytes) {
        if (offset < 0 || offset >= total || maxBytes <= 0) {
            throw new IllegalArgumentException("read of " + maxBytes + " bytes at " + offset + " of " + total);
        }
        byte[] out = new byte[(int) Math.min(maxBytes, total - offset)];
        int at = 0;
        while (at < out.length) {
            long pos = offset + at;
            int n;
            if (pos < header.length) {
                n = (int) Math.min(out.length - at, header.length - pos);
                System.arraycopy(header, (int) pos, out, at, n);
            } else {
                int file = fileAt(pos);
                long rel = pos - fileStart[file];
                long piece = rel / (pieceBytes + 4);
                int within = (int) (rel % (pieceBytes + 4));
                byte[] framed = piece(file, piece);
                n = Math.min(out.length - at, framed.length - within);
                System.arraycopy(framed, within, out, at, n);
            }
            at += n;
        }
        return out;
    }

    private int fileAt(long pos) {
        int i = Arrays.binarySearch(fileStart, pos);
        if (i < 0) {
            i = -i - 2;
        }
        while (i + 1 < fileStart.length && fileStart[i + 1] <= pos) {
            i++; // Empty files share their start with the next one.
        }
        return i;
    }

    /** One piece of a file with its CRC (the last one read is kept: a chunk usually spans several calls). */
    private byte[] piece(int file, long piece) {
        if (file == cachedFile && piece == cachedPiece) {
            return cachedBytes;
        }
        long from = piece * pieceBytes;
        int length = (int) Math.min(pieceBytes, sizes[file] - from);
        ByteBuffer buf = ByteBuffer.allocate(length + 4);
        buf.limit(length);
        try (FileChannel ch = FileChannel.open(dir.resolve(names[file]), StandardOpenOption.READ)) {
            while (buf.position() < length) {
                if (ch.read(buf, from + buf.position()) < 0) {
                    throw new IOException("checkpoint file " + names[file] + " is shorter than its " + sizes[file] + " bytes");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading checkpoint " + dir + ": " + e.getMessage(), e);
        }
        CRC32C crc = new CRC32C();
        crc.update(buf.array(), 0, length);
        buf.limit(length + 4);
        buf.putInt(length, (int) crc.getValue());
        cachedFile = file;
        cachedPiece = piece;
        cachedBytes = buf.array();
        return cachedBytes;
    }
}
