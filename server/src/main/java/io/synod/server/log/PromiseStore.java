package io.synod.server.log;

import io.synod.core.paxos.Ballot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The highest ballot an acceptor promised, kept apart from the log in two CRC-checked copies that
 * are written alternately. A torn or corrupted write spoils at most one copy, and the other still
 * holds the previous promise; log corruption can never lose a promise (losing one would let the
 * acceptor accept below a ballot it promised, Paxos Made Simple §2.2, P1a).
 */
public final class PromiseStore implements AutoCloseable {
    private static final int MAGIC = 0x53594E50; // "SYNP"
    private static final int COPY_BYTES = 32;

    private final FileChannel channel;
    private long counter;
    private Ballot promised;

    private PromiseStore(FileChannel channel, long counter, Ballot promised) {
        this.channel = channel;
        this.counter = counter;
        this.promised = promised;
    }

    /** Opens (or creates) the store; throws {@link CorruptStateException} if a non-empty file has no valid copy. */
    public static PromiseStore open(Path file) throws IOException {
        boolean existed = Files.exists(file) && Files.size(file) > 0;
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        long bestCounter = -1;
        Ballot best = Ballot.ZERO;
        for (int copy = 0; copy < 2; copy++) {
            ByteBuffer buf = ByteBuffer.allocate(COPY_BYTES);
            ch.read(buf, (long) copy * COPY_BYTES);
            if (buf.position() < 28) {
                continue;
            }
            buf.flip();
            byte[] raw = buf.array();
            if (buf.getInt(0) != MAGIC || buf.getInt(24) != Crc.of(raw, 0, 24)) {
                continue;
            }
            long c = buf.getLong(4);
            long epoch = buf.getLong(12);
            int node = buf.getInt(20);
            if (c > bestCounter && epoch >= 0 && node >= -1) {
                bestCounter = c;
                best = new Ballot(epoch, node);
            }
        }
        if (existed && bestCounter < 0) {
            ch.close();
            throw new CorruptStateException("promise file " + file + " has no valid copy (both CRCs fail)");
        }
        return new PromiseStore(ch, Math.max(0, bestCounter), best);
    }

    public Ballot promised() {
        return promised;
    }

    /** Durably records a higher promise (fsync before return). */
    public void write(Ballot ballot) {
        long next = counter + 1;
        ByteBuffer buf = ByteBuffer.allocate(COPY_BYTES);
        buf.putInt(MAGIC).putLong(next).putLong(ballot.epoch()).putInt(ballot.nodeId());
        buf.putInt(Crc.of(buf.array(), 0, 24));
        buf.flip();
        try {
            long offset = (next % 2) * COPY_BYTES;
            while (buf.hasRemaining()) {
                offset += channel.write(buf, offset);
            }
            channel.force(false);
        } catch (IOException e) {
            throw new StorageFailure("writing the promise failed: " + e, e);
        }
        counter = next;
        promised = ballot;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
