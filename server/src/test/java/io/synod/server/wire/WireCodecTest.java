package io.synod.server.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.CodedValue;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Message;
import java.util.List;
import org.junit.jupiter.api.Test;

class WireCodecTest {
    static final Ballot B = new Ballot(7, 2);
    static final Entry E1 = new Entry(5, B, new Command(9, 3, new byte[] {1, 2, 3}));
    static final Entry E2 = new Entry(6, new Ballot(6, 1), Command.NOOP);
    /** RS-Paxos coded entries: a stub holding shard bytes, a stub without a shard, a full copy (§4). */
    static final Entry CODED_SHARD = new Entry(8, B, new Command(9, 4, new byte[0]),
            new CodedValue(3, 5, 10, 0x1234abcd, new byte[] {7, 7, 7, 7}));
    static final Entry CODED_STUB = new Entry(9, B, new Command(9, 5, new byte[0]), new CodedValue(3, 5, 10, -1, null));
    static final Entry CODED_FULL = new Entry(10, B, new Command(9, 6, new byte[10]), new CodedValue(2, 3, 10, 5, null));
    /** A coded entry with its deferral header (deferred follower rebuild): the uncoded part of a Put. */
    static final Entry CODED_HEADER = new Entry(11, B, new Command(9, 7, new byte[0]),
            new CodedValue(3, 5, 10, 0x55aa, new byte[] {1, 2, 3}, new byte[] {1, 0, 1, 'k', 0, 0, 0, 2}));

    /** One of every frame and every core message type. */
    static List<WireFrame> samples() {
        return List.of(
                new WireFrame.Hello(3, "cluster-a"),
                new WireFrame.PeerMessage(1, new Message.Prepare(2, 0, B, 11)),
                new WireFrame.PeerMessage(1, new Message.Promise(0, 2, B, 11, List.of(E1, E2), 0, 0)),
                new WireFrame.PeerMessage(1, new Message.Promise(0, 2, B, 1, List.of(), 4, 12)),
                new WireFrame.PeerMessage(2, new Message.Nack(0, 2, B, new Ballot(3, 1))),
                new WireFrame.PeerMessage(0, new Message.Accept(2, 1, B, List.of(E1), 4)),
                new WireFrame.PeerMessage(0, new Message.Accepted(1, 2, B, new long[] {5, 6}, 3)),
                new WireFrame.PeerMessage(0, new Message.Heartbeat(2, 1, B, 5)),
                new WireFrame.PeerMessage(0, new Message.HeartbeatReply(1, 2, B, 5)),
                new WireFrame.PeerMessage(3, new Message.InstallSnapshot(2, 1, B, 4, 10, 2, new byte[] {1, 2, 3})),
                new WireFrame.PeerMessage(3, new Message.SnapshotRequest(1, 2, B, 4, 5)),
                new WireFrame.PeerMessage(0, new Message.Accept(2, 1, B, List.of(CODED_SHARD, E1, CODED_STUB), 4)),
                new WireFrame.PeerMessage(0, new Message.Promise(0, 2, B, 8, List.of(CODED_FULL, CODED_SHARD), 0, 0)),
                new WireFrame.PeerMessage(1, new Message.ShardRequest(3, 4, B, 8, true)),
                new WireFrame.PeerMessage(1, new Message.ShardRequest(3, 4, B, 9, false)),
                new WireFrame.PeerMessage(1, new Message.ShardReply(4, 3, B, CODED_SHARD, 0)),
                new WireFrame.PeerMessage(1, new Message.ShardReply(4, 3, B, CODED_FULL, 0)),
                new WireFrame.PeerMessage(1, new Message.ShardReply(4, 3, B, null, 17)),
                new WireFrame.ForwardRequest(12, "client", "alice", "c", 9, 4, new byte[] {1, 2}, 1),
                new WireFrame.ForwardReply(12, 1, 0, 44, 2, new byte[] {5}, 1),
                new WireFrame.PeerBatch(List.of(new WireFrame.PeerMessage(0, new Message.Accept(2, 1, B, List.of(E1), 4)),
                        new WireFrame.PeerMessage(3, new Message.Heartbeat(2, 1, B, 5)),
                        new WireFrame.PeerMessage(1, new Message.Accept(2, 1, B, List.of(CODED_HEADER, E2), 7)))));
    }

    @Test
    void everyFrameRoundTrips() throws Exception {
        for (WireFrame f : samples()) {
            byte[] bytes = WireCodec.encode(f);
            WireFrame back = WireCodec.decode(bytes);
            assertArrayEquals(bytes, WireCodec.encode(back), "re-encoding " + f);
            assertEquals(f.getClass(), back.getClass());
        }
    }

    @Test
    void everyTruncationIsAClearErrorNotACrash() {
        for (WireFrame f : samples()) {
            byte[] bytes = WireCodec.encode(f);
            for (int len = 0; len < bytes.length; len++) {
                byte[] cut = java.util.Arrays.copyOf(bytes, len);
                MalformedInputException e = assertThrows(MalformedInputException.class, () -> WireCodec.decode(cut),
                        "truncated to " + len + ": " + f);
                assertTrue(e.getMessage().length() > 5);
            }
        }
    }

    @Test
    void unknownVersionTypeAndTrailingBytesAreRejected() {
        byte[] ok = WireCodec.encode(new WireFrame.Hello(1, "c"));
        byte[] v3 = ok.clone();
        v3[0] = 3;
        assertTrue(assertThrows(MalformedInputException.class, () -> WireCodec.decode(v3)).getMessage().contains("version 3"));
        // A frame of the previous format (version 1: one message per frame, no batches) is refused in one line.
        byte[] v1 = ok.clone();
        v1[0] = 1;
        assertEquals("frame version 1 is not supported (this build speaks 2)",
                assertThrows(MalformedInputException.class, () -> WireCodec.decode(v1)).getMessage());
        byte[] t = ok.clone();
        t[1] = 99;
        assertTrue(assertThrows(MalformedInputException.class, () -> WireCodec.decode(t)).getMessage().contains("type 99"));
        byte[] trailing = java.util.Arrays.copyOf(ok, ok.length + 1);
        assertTrue(assertThrows(MalformedInputException.class, () -> WireCodec.decode(trailing)).getMessage()
                .contains("trailing"));
    }

    @Test
    void aHugeCountOrLengthFailsBeforeAllocating() {
        ByteWriter w = new ByteWriter(32).u8(WireCodec.VERSION).u8(2).i32(0).u8(4).i32(1).i32(0).i64(1).i32(1).i64(0)
                .i32(Integer.MAX_VALUE);
        MalformedInputException e = assertThrows(MalformedInputException.class, () -> WireCodec.decode(w.toByteArray()));
        assertTrue(e.getMessage().contains("count"), e.getMessage());
        ByteWriter w2 = new ByteWriter(32).u8(WireCodec.VERSION).u8(1).i32(1).i32(Integer.MAX_VALUE - 1); // a Hello
        assertTrue(assertThrows(MalformedInputException.class, () -> WireCodec.decode(w2.toByteArray())).getMessage()
                .contains("exceeds"));
    }

    @Test
    void aBatchMustHoldAtLeastOneWellFormedMessageAndNoOtherFrame() {
        byte[] empty = new ByteWriter(8).u8(WireCodec.VERSION).u8(16).i32(0).toByteArray();
        assertEquals("empty peer batch", assertThrows(MalformedInputException.class, () -> WireCodec.decode(empty)).getMessage());
        // A Hello where a (group, message) item belongs: the item's message type 1 (Prepare) then runs out of bytes.
        byte[] hello = WireCodec.encode(new WireFrame.Hello(1, "c"));
        ByteWriter nested = new ByteWriter(64).u8(WireCodec.VERSION).u8(16).i32(1).i32(0);
        for (byte b : hello) {
            nested.u8(b);
        }
        assertThrows(MalformedInputException.class, () -> WireCodec.decode(nested.toByteArray()));
        byte[] many = new ByteWriter(8).u8(WireCodec.VERSION).u8(16).i32(1_000).i32(0).toByteArray();
        assertTrue(assertThrows(MalformedInputException.class, () -> WireCodec.decode(many)).getMessage()
                .contains("cannot fit"));
    }

    @Test
    void aSnapshotChunkOutsideItsSnapshotIsMalformed() {
        byte[] bytes = WireCodec.encode(new WireFrame.PeerMessage(0, new Message.InstallSnapshot(2, 1, B, 4, 3, 2,
                new byte[] {1, 2})));
        assertTrue(assertThrows(MalformedInputException.class, () -> WireCodec.decode(bytes)).getMessage()
                .contains("inconsistent"));
    }

    @Test
    void invalidFieldValuesAreMalformedInput() {
        // A negative ballot epoch: the core record would throw; the codec reports it as malformed.
        ByteWriter w = new ByteWriter(32).u8(WireCodec.VERSION).u8(2).i32(0).u8(6).i32(1).i32(0).i64(-5).i32(1).i64(3);
        assertThrows(MalformedInputException.class, () -> WireCodec.decode(w.toByteArray()));
    }

    @Test
    void codedEntriesKeepTheirMetadataAndShard() throws Exception {
        for (Entry e : List.of(CODED_SHARD, CODED_STUB, CODED_FULL, CODED_HEADER)) {
            WireFrame back = WireCodec.decode(WireCodec.encode(new WireFrame.PeerMessage(0,
                    new Message.ShardReply(1, 2, B, e, 0))));
            Entry got = ((Message.ShardReply) ((WireFrame.PeerMessage) back).message()).entry();
            assertEquals(e, got);
            assertEquals(e.coded(), got.coded());
            assertEquals(e.isComplete(), got.isComplete());
            assertArrayEquals(e.coded().header(), got.coded().header());
        }
    }

    /**
     * The deferral header is an optional field behind flag bit 4: an entry without one is byte-for-byte what it
     * was before the bit existed (old logs and peers read as before); a header as long as the value, an empty
     * one, one longer than the frame, or the bit without a coded entry is malformed input.
     */
    @Test
    void deferralHeadersAreOptionalAndChecked() throws Exception {
        byte[] without = WireCodec.encode(new WireFrame.PeerMessage(0, new Message.Accept(2, 1, B, List.of(CODED_SHARD), 4)));
        int tail = 2 + 4 + 1 + 4 + 4 + 12 + 8 + 4 + 8 + 12 + 8 + 8 + 4;
        assertEquals(1, without[tail], "flag of a coded entry without a header: 1, as before");
        Entry headed = new Entry(8, B, CODED_SHARD.command(), new CodedValue(3, 5, 10, 0x1234abcd, new byte[] {7, 7, 7, 7},
                new byte[] {9, 9}));
        byte[] with = WireCodec.encode(new WireFrame.PeerMessage(0, new Message.Accept(2, 1, B, List.of(headed), 4)));
        assertEquals(1 | 4, with[tail]);
        assertEquals(without.length + 4 + 2, with.length);
        // The entry ends the frame: the header's length (4) and bytes (2) are its last 6 bytes.
        int headerLength = with.length - 2 - 4;
        for (int bad : new int[] {0, 10, 11, 0x7fffffff, -1}) {
            byte[] damaged = with.clone();
            java.nio.ByteBuffer.wrap(damaged).putInt(headerLength, bad);
            assertThrows(MalformedInputException.class, () -> WireCodec.decode(damaged), "header length " + bad);
        }
        byte[] ok = WireCodec.decode(with) instanceof WireFrame.PeerMessage p
                ? ((Message.Accept) p.message()).entries().get(0).coded().header() : null;
        assertArrayEquals(new byte[] {9, 9}, ok);
        byte[] plainWithBit = WireCodec.encode(new WireFrame.PeerMessage(0, new Message.Accept(2, 1, B, List.of(E1), 4)));
        int plainTail = plainWithBit.length - 1; // The plain entry's flag ends the frame.
        plainWithBit[plainTail] = 4;
        assertTrue(assertThrows(MalformedInputException.class, () -> WireCodec.decode(plainWithBit)).getMessage()
                .contains("only with coded"));
    }

    /** Lease stamps (LeaseGuard §3) travel with plain and coded entries, and a reversed interval is refused. */
    @Test
    void leaseStampsTravelWithTheirEntries() throws Exception {
        io.synod.core.paxos.LeaseStamp stamp = new io.synod.core.paxos.LeaseStamp(new Ballot(4, 2), 1_000, 3_000);
        List<Entry> stamped = List.of(new Entry(5, B, E1.command(), null, stamp),
                new Entry(8, B, CODED_SHARD.command(), CODED_SHARD.coded(), stamp));
        WireFrame back = WireCodec.decode(WireCodec.encode(new WireFrame.PeerMessage(0,
                new Message.Accept(2, 1, B, stamped, 4))));
        List<Entry> got = ((Message.Accept) ((WireFrame.PeerMessage) back).message()).entries();
        for (int i = 0; i < stamped.size(); i++) {
            assertEquals(stamp, got.get(i).stamp());
            assertEquals(stamped.get(i).slot(), got.get(i).slot());
            assertEquals(stamped.get(i).coded(), got.get(i).coded());
        }
        byte[] bytes = WireCodec.encode(new WireFrame.PeerMessage(0, new Message.Accept(2, 1, B, stamped.subList(0, 1), 4)));
        // The stamp ends the frame: ..., earliest (i64), latest (i64).
        java.nio.ByteBuffer.wrap(bytes).putLong(bytes.length - 16, 5_000);
        assertTrue(assertThrows(MalformedInputException.class, () -> WireCodec.decode(bytes)).getMessage()
                .contains("earliest 5000 after latest 3000"));
    }

    /** Encodes an Accept carrying CODED_SHARD and lets {@code patch} damage the bytes after its payload. */
    private static byte[] acceptWithCodedTail(java.util.function.Consumer<byte[]> patch) {
        byte[] bytes = WireCodec.encode(new WireFrame.PeerMessage(0, new Message.Accept(2, 1, B, List.of(CODED_SHARD), 4)));
        patch.accept(bytes);
        return bytes;
    }

    @Test
    void badCodingFieldsAreMalformedInput() {
        // Layout of the entry's tail: ... payload (len 0), flag @t, X @t+1, N @t+2, length @t+3, crc @t+7, has-shard @t+11.
        int tail = 2 + 4 + 1 + 4 + 4 + 12 + 8 + 4 + 8 + 12 + 8 + 8 + 4;
        assertTrue(assertThrows(MalformedInputException.class, () -> WireCodec.decode(acceptWithCodedTail(b -> b[tail] = 4)))
                .getMessage().contains("coding flag 4"));
        assertTrue(assertThrows(MalformedInputException.class, () -> WireCodec.decode(acceptWithCodedTail(b -> b[tail + 1] = 5)))
                .getMessage().contains("X=5 N=5"));
        assertTrue(assertThrows(MalformedInputException.class,
                () -> WireCodec.decode(acceptWithCodedTail(b -> b[tail + 11] = 3))).getMessage().contains("has-shard"));
        // A shard length far beyond the frame fails before allocating.
        assertTrue(assertThrows(MalformedInputException.class, () -> WireCodec.decode(acceptWithCodedTail(b -> {
            b[tail + 12] = 0x7f;
        }))).getMessage().contains("exceeds"));
        // A coded entry whose payload is neither a stub nor the whole value.
        Entry bad = new Entry(8, B, new Command(9, 4, new byte[3]));
        byte[] plain = WireCodec.encode(new WireFrame.PeerMessage(0, new Message.ShardReply(1, 2, B, bad, 0)));
        ByteWriter w = new ByteWriter(plain.length + 16);
        for (int i = 0; i < plain.length - 1; i++) {
            w.u8(plain[i]);
        }
        w.u8(1).u8(3).u8(5).i32(10).i32(0).u8(0);
        assertTrue(assertThrows(MalformedInputException.class, () -> WireCodec.decode(w.toByteArray())).getMessage()
                .contains("neither a stub"));
    }

    @Test
    void everyByteOfACodedFrameDamagedDecodesOrFailsAsMalformedInput() {
        // No other exception may escape a decode of peer bytes (a RuntimeException would stop the connection's
        // handler in an unplanned way); the value checks happen later, in the replica (CRC32C of shard and value).
        List<WireFrame> coded = List.of(
                new WireFrame.PeerMessage(0, new Message.Accept(2, 1, B, List.of(CODED_SHARD, CODED_STUB, CODED_FULL, CODED_HEADER), 4)),
                new WireFrame.PeerMessage(1, new Message.ShardReply(4, 3, B, CODED_SHARD, 0)),
                new WireFrame.PeerMessage(1, new Message.ShardRequest(3, 4, B, 8, true)));
        for (WireFrame f : coded) {
            byte[] bytes = WireCodec.encode(f);
            for (int i = 0; i < bytes.length; i++) {
                for (int v : new int[] {0x00, 0x01, 0x02, 0x7f, 0x80, 0xff}) {
                    byte[] damaged = bytes.clone();
                    damaged[i] = (byte) v;
                    try {
                        WireCodec.decode(damaged);
                    } catch (MalformedInputException expected) {
                        assertTrue(expected.getMessage().length() > 5);
                    }
                }
            }
        }
    }
}
