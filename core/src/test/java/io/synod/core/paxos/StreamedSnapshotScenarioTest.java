package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.kv.KvStateMachine;
import io.synod.protocol.KvCommand;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A snapshot's state part travels between state machines as a {@link SnapshotSource} read at
 * offsets and a {@link SnapshotSink} fed in order, in chunks no larger than
 * {@link ReplicaConfig#snapshotChunkBytes()}: core never asks either side for the whole state
 * ({@link SnapshotSource#readAll()} fails here), and a transfer cut midway resumes into the same sink.
 */
class StreamedSnapshotScenarioTest {
    private static final long MS = 1_000_000L;
    private static final int CHUNK_BYTES = 32;

    /** What the streaming machines saw, per node. */
    static final class Log {
        final List<Integer> sourceReads = new ArrayList<>();
        final List<Integer> sinkWrites = new ArrayList<>();
        int sinksOpened;
        int sinksAborted;
        int restoresFromSource;
    }

    /** A source that only hands out bounded pieces and refuses to be read whole. */
    static final class PiecewiseSource implements SnapshotSource {
        private final byte[] bytes;
        private final Log log;

        PiecewiseSource(byte[] bytes, Log log) {
            this.bytes = bytes;
            this.log = log;
        }

        @Override
        public long sizeBytes() {
            return bytes.length;
        }

        @Override
        public byte[] read(long offset, int maxBytes) {
            log.sourceReads.add(maxBytes);
            return java.util.Arrays.copyOfRange(bytes, (int) offset, (int) Math.min(bytes.length, offset + maxBytes));
        }

        @Override
        public byte[] readAll() {
            throw new AssertionError("core must not read a snapshot source whole");
        }
    }

    /** The in-memory kv machine, snapshotting through bounded sources and sinks. */
    static final class StreamingKv implements StateMachine {
        final Log log;
        private final KvStateMachine kv = new KvStateMachine();

        StreamingKv(Log log) {
            this.log = log;
        }

        @Override
        public byte[] apply(long slot, byte[] payload) {
            return kv.apply(slot, payload);
        }

        @Override
        public boolean isReadOnly(byte[] payload) {
            return kv.isReadOnly(payload);
        }

        @Override
        public byte[] read(byte[] payload) {
            return kv.read(payload);
        }

        @Override
        public void validate(byte[] payload) {
            kv.validate(payload);
        }

        @Override
        public byte[] snapshot() {
            return kv.snapshot();
        }

        @Override
        public void restore(byte[] snapshot) {
            kv.restore(snapshot);
        }

        @Override
        public SnapshotSource snapshotSource(long slot) {
            return new PiecewiseSource(snapshot(), log);
        }

        @Override
        public SnapshotSink snapshotSink(long slot) {
            log.sinksOpened++;
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            return new SnapshotSink() {
                @Override
                public void write(byte[] chunk) {
                    log.sinkWrites.add(chunk.length);
                    received.writeBytes(chunk);
                }

                @Override
                public SnapshotSource finish() {
                    return new PiecewiseSource(received.toByteArray(), log);
                }

                @Override
                public void abort() {
                    log.sinksAborted++;
                }
            };
        }

        @Override
        public void restore(long slot, SnapshotSource source, List<ClientSession> sessions) {
            log.restoresFromSource++;
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (long at = 0; at < source.sizeBytes(); ) {
                byte[] piece = source.read(at, CHUNK_BYTES);
                all.writeBytes(piece);
                at += piece.length;
            }
            restore(all.toByteArray());
        }
    }

    /** Three streaming nodes, node 0 leading; 30 appends while node 2 hears nothing, compacted by node 0's snapshots. */
    private static TestCluster node2BehindASnapshotAt30(Log[] logs) {
        ReplicaConfig config = ReplicaConfig.defaults(0, 3).toBuilder().snapshotEverySlots(5).logRetainSlots(0)
                .snapshotChunkBytes(CHUNK_BYTES).build();
        TestCluster cluster = new TestCluster(3, config, node -> new StreamingKv(logs[node]));
        cluster.elect(0, 1);
        cluster.drop = m -> m.to() == 2 || m.from() == 2;
        for (int i = 1; i <= 30; i++) {
            cluster.propose(0, 7, i, new KvCommand.Append("k", i));
        }
        assertEquals(30, cluster.replicas[0].snapshotSlot());
        return cluster;
    }

    @Test
    void aSnapshotStreamsThroughBoundedSourceReadsAndSinkWritesAndResumesAfterACut() {
        Log[] logs = {new Log(), new Log(), new Log()};
        TestCluster cluster = node2BehindASnapshotAt30(logs);

        // Node 2 comes back; two chunks arrive, then the link fails for a while.
        TestCluster.SnapshotCut link = new TestCluster.SnapshotCut(2, 2);
        cluster.drop = link;
        List<Message.InstallSnapshot> delivered = link.delivered;
        cluster.tick(100 * MS);
        cluster.tick(300 * MS);
        assertEquals(0, cluster.replicas[2].appliedSlot());
        assertEquals(1, logs[2].sinksOpened, "the first chunk opened a sink");
        link.heal();
        for (int round = 0; round < 20 && cluster.replicas[2].appliedSlot() < 30; round++) {
            cluster.tick(100 * MS);
        }
        assertEquals(30, cluster.replicas[2].appliedSlot(), "node 2 installed the snapshot");
        assertEquals(1, logs[2].sinksOpened, "the resumed transfer wrote into the same sink");
        assertEquals(0, logs[2].sinksAborted);
        assertEquals(2, logs[2].restoresFromSource, "restore(slot, source, sessions) at start (empty) and for the install");
        for (int read : logs[0].sourceReads) {
            assertTrue(read <= CHUNK_BYTES, "the sender read " + read + " bytes at once");
        }
        for (int write : logs[2].sinkWrites) {
            assertTrue(write <= CHUNK_BYTES, "the sink got " + write + " bytes at once");
        }
        assertArrayEquals(cluster.readList(0, "k"), cluster.readList(2, "k"));

        // A later transfer that dies midway while the leader moves on still ends installed and equal.
        cluster.drop = m -> m.to() == 2 || m.from() == 2;
        for (int i = 31; i <= 45; i++) {
            cluster.propose(0, 7, i, new KvCommand.Append("k", i));
        }
        int[] chunksTo2 = {0};
        cluster.drop = m -> m instanceof Message.InstallSnapshot c && c.to() == 2 && ++chunksTo2[0] > 1;
        cluster.tick(100 * MS);
        assertEquals(2, logs[2].sinksOpened);
        for (int i = 46; i <= 50; i++) {
            cluster.propose(0, 7, i, new KvCommand.Append("k", i)); // snapshot at 50 replaces the one in flight
        }
        cluster.drop = m -> false;
        for (int round = 0; round < 30 && cluster.replicas[2].appliedSlot() < 50; round++) {
            cluster.tick(100 * MS);
        }
        assertEquals(50, cluster.replicas[2].appliedSlot());
        assertEquals(logs[2].sinksOpened, (logs[2].restoresFromSource - 1) + logs[2].sinksAborted,
                "every sink opened was either installed or aborted");
        assertArrayEquals(cluster.readList(0, "k"), cluster.readList(2, "k"));
    }

    /**
     * A window of chunks is in flight: the sender does not wait for the request of a chunk before sending the next
     * ones (up to {@link SnapshotSender#WINDOW_CHUNKS} beyond the offset asked for), never more; a chunk lost in the
     * middle makes the receiver ask again for its offset, and the window is sent again from there once, not once per
     * chunk that was in flight behind it.
     */
    @Test
    void chunksTravelInABoundedWindowAndALostOneIsSentAgainOnce() {
        Log[] logs = {new Log(), new Log(), new Log()};
        TestCluster cluster = node2BehindASnapshotAt30(logs);
        long[] asked = {0};
        long[] mostAhead = {0};
        long[] size = {0};
        int[] delivered = {0};
        boolean[] lost = {false};
        cluster.drop = m -> {
            if (m instanceof Message.SnapshotRequest r && r.from() == 2) {
                asked[0] = r.offset();
            } else if (m instanceof Message.InstallSnapshot c && c.to() == 2) {
                size[0] = c.totalBytes();
                if (!lost[0] && c.offset() == 2L * CHUNK_BYTES && asked[0] == 0) {
                    return lost[0] = true; // the third chunk of the first window is lost
                }
                delivered[0]++;
                mostAhead[0] = Math.max(mostAhead[0], c.offset() - asked[0]);
            }
            return false;
        };
        for (int round = 0; round < 30 && cluster.replicas[2].appliedSlot() < 30; round++) {
            cluster.tick(100 * MS);
        }
        assertEquals(30, cluster.replicas[2].appliedSlot(), "node 2 installed the snapshot");
        assertArrayEquals(cluster.readList(0, "k"), cluster.readList(2, "k"));
        long chunks = (size[0] + CHUNK_BYTES - 1) / CHUNK_BYTES;
        assertTrue(chunks > 2L * SnapshotSender.WINDOW_CHUNKS, "a snapshot of several windows: " + chunks + " chunks");
        assertEquals((SnapshotSender.WINDOW_CHUNKS - 1L) * CHUNK_BYTES, mostAhead[0],
                "chunks left before the request of the one before them, never beyond the window");
        assertTrue(lost[0], "a chunk was lost");
        assertTrue(delivered[0] <= chunks + 2L * SnapshotSender.WINDOW_CHUNKS,
                delivered[0] + " chunks delivered for " + chunks + ": the window went back once, not per repeat");
        assertEquals(1, logs[2].sinksOpened, "the lost chunk was asked again, not the transfer restarted");
    }
}
