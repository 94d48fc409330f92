package io.synod.server.state;

import io.synod.core.paxos.SnapshotSink;
import io.synod.core.paxos.SnapshotSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Receives a {@link CheckpointSource} stream from a peer and writes it, piece by piece, into a
 * temporary directory: only the header (bounded) and one piece are held in memory. Every piece's
 * CRC32C is checked as it completes; names are checked to be plain file names. {@link #finish()}
 * checks that every file is complete, fsyncs the files and the directory and renames it to its
 * final name, which is then a checkpoint the state machine can swap in. {@link #abort()} deletes
 * the temporary directory.
 */
final class CheckpointSink implements SnapshotSink {
    /** Bounds the header a peer can make this node collect (file names and sizes only). */
    static final int MAX_HEADER_BYTES = 4 * 1024 * 1024;
    static final int MAX_FILES = 100_000;
    static final int MAX_PIECE_BYTES = 16 * 1024 * 1024;

    private final Path temp;
    private final Path target;
    private final long slot;
    private byte[] headerBuf = new byte[256];
    private int headerHave;
    private boolean headerDone;
    private int pieceBytes;
    private String[] names;
    private long[] sizes;
    private int file;
    private long fileWritten;
    private byte[] piece;
    private int pieceHave;
    private FileChannel out;
    private boolean closed;

    CheckpointSink(Path temp, Path target, long slot) {
        this.temp = temp;
        this.target = target;
        this.slot = slot;
        try {
            RocksFiles.deleteRecursively(temp);
            Files.createDirectories(temp);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create snapshot directory " + temp + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void write(byte[] chunk) {
        if (closed) {
            throw new IllegalArgumentException("snapshot sink for " + temp + " is closed");
        }
        int at = 0;
        try {
            while (at < chunk.length) {
                if (!headerDone) {
                    at += takeHeader(chunk, at);
                } else {
                    at += takeBody(chunk, at);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing snapshot into " + temp + ": " + e.getMessage(), e);
        }
    }

    private int takeHeader(byte[] chunk, int at) {
        int n = chunk.length - at;
        if (headerHave + n > MAX_HEADER_BYTES) {
            n = MAX_HEADER_BYTES - headerHave;
            if (n == 0) {
                throw new IllegalArgumentException("checkpoint header exceeds " + MAX_HEADER_BYTES + " bytes");
            }
        }
        if (headerBuf.length < headerHave + n) {
            headerBuf = Arrays.copyOf(headerBuf, Math.min(MAX_HEADER_BYTES, Math.max(headerHave + n, 2 * headerBuf.length)));
        }
        System.arraycopy(chunk, at, headerBuf, headerHave, n);
        int before = headerHave;
        headerHave += n;
        int used = parseHeader();
        if (used < 0) {
            return n; // Not complete yet.
        }
        headerDone = true;
        startFile(0);
        return used - before; // The rest of the chunk is body.
    }

    /** Parses the collected header; returns its length once complete, -1 if more bytes are needed. */
    private int parseHeader() {
        ByteBuffer h = ByteBuffer.wrap(headerBuf, 0, headerHave);
        if (h.remaining() < CheckpointSource.FIXED_HEADER) {
            return -1;
        }
        int magic = h.getInt();
        short version = h.getShort();
        int pieces = h.getInt();
        long headerSlot = h.getLong();
        int count = h.getInt();
        if (magic != CheckpointSource.MAGIC) {
            throw new IllegalArgumentException(String.format("snapshot is not a RocksDB checkpoint stream (magic %08x)", magic));
        }
        if (version != CheckpointSource.VERSION) {
            throw new IllegalArgumentException("checkpoint stream version " + version + " is not supported");
        }
        if (pieces <= 0 || pieces > MAX_PIECE_BYTES) {
            throw new IllegalArgumentException("checkpoint piece size " + pieces + " is out of range");
        }
        if (headerSlot != slot) {
            throw new IllegalArgumentException("checkpoint of slot " + headerSlot + " sent as slot " + slot);
        }
        if (count < 0 || count > MAX_FILES) {
            throw new IllegalArgumentException("checkpoint file count " + count + " is out of range");
        }
        String[] n = new String[count];
        long[] s = new long[count];
        for (int i = 0; i < count; i++) {
            if (h.remaining() < 2) {
                return -1;
            }
            int length = h.getShort() & 0xFFFF;
            if (length == 0 || length > 255) {
                throw new IllegalArgumentException("checkpoint file name length " + length + " is out of range");
            }
            if (h.remaining() < length + 8) {
                return -1;
            }
            byte[] name = new byte[length];
            h.get(name);
            n[i] = new String(name, StandardCharsets.UTF_8);
            if (!n[i].matches("[A-Za-z0-9._-]+") || n[i].equals(".") || n[i].equals("..")
                    || (i > 0 && n[i].compareTo(n[i - 1]) <= 0)) {
                throw new IllegalArgumentException("checkpoint file name '" + n[i] + "' is not a plain, sorted file name");
            }
            s[i] = h.getLong();
            if (s[i] < 0) {
                throw new IllegalArgumentException("checkpoint file " + n[i] + " has negative size " + s[i]);
            }
        }
        if (h.remaining() < 4) {
            return -1;
        }
        int end = h.position();
        CRC32C crc = new CRC32C();
        crc.update(headerBuf, 0, end);
        if (h.getInt() != (int) crc.getValue()) {
            throw new IllegalArgumentException("checkpoint header CRC32C mismatch");
        }
        pieceBytes = pieces;
        names = n;
        sizes = s;
        headerBuf = null;
        return end + 4;
    }

    private void startFile(int index) {
        file = index;
        fileWritten = 0;
        pieceHave = 0;
        try {
            closeOut();
            while (file < names.length && sizes[file] == 0) {
                Files.createFile(temp.resolve(names[file]));
                file++;
            }
            if (file < names.length) {
                out = FileChannel.open(temp.resolve(names[file]), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                piece = new byte[(int) Math.min(pieceBytes, sizes[file]) + 4];
            }
        } catch (IOException e) {
            throw new UncheckedIOException("creating snapshot file in " + temp + ": " + e.getMessage(), e);
        }
    }

    private int takeBody(byte[] chunk, int at) throws IOException {
        if (file >= names.length) {
            throw new IllegalArgumentException("checkpoint stream has bytes past its last file");
        }
        int want = (int) Math.min(pieceBytes, sizes[file] - fileWritten) + 4;
        int n = Math.min(want - pieceHave, chunk.length - at);
        System.arraycopy(chunk, at, piece, pieceHave, n);
        pieceHave += n;
        if (pieceHave == want) {
            int length = want - 4;
            CRC32C crc = new CRC32C();
            crc.update(piece, 0, length);
            if (ByteBuffer.wrap(piece).getInt(length) != (int) crc.getValue()) {
                throw new IllegalArgumentException("checkpoint file " + names[file] + ": CRC32C mismatch in the piece at offset "
                        + fileWritten);
            }
            ByteBuffer data = ByteBuffer.wrap(piece, 0, length);
            while (data.hasRemaining()) {
                out.write(data);
            }
            fileWritten += length;
            pieceHave = 0;
            if (fileWritten == sizes[file]) {
                out.force(true);
                startFile(file + 1);
            }
        }
        return n;
    }

    @Override
    public SnapshotSource finish() {
        if (!headerDone || file < names.length) {
            abort();
            throw new IllegalArgumentException("checkpoint stream ended before its last file was complete");
        }
        try {
            closeOut();
            closed = true;
            RocksFiles.syncDirectory(temp);
            Files.move(temp, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            RocksFiles.syncDirectory(target.getParent());
            return new CheckpointSource(target, slot);
        } catch (IOException e) {
            throw new UncheckedIOException("installing received checkpoint " + target + ": " + e.getMessage(), e);
        }
    }

    private void closeOut() throws IOException {
        if (out != null) {
            out.close();
            out = null;
        }
    }

    @Override
    public void abort() {
        closed = true;
        try {
            closeOut();
            RocksFiles.deleteRecursively(temp);
        } catch (IOException e) {
            throw new UncheckedIOException("discarding partial snapshot " + temp + ": " + e.getMessage(), e);
        }
    }
}
