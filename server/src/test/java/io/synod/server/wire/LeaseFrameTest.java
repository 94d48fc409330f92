package io.synod.server.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Message.Lease.Kind;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The peer frame of a lease policy's {@link Message.Lease} (message type 12): round trip and malformed input. */
class LeaseFrameTest {
    static final Ballot B = new Ballot(7, 2);

    static List<WireFrame.PeerMessage> samples() {
        return List.of(
                new WireFrame.PeerMessage(0, new Message.Lease(1, 2, B, Kind.GUARD, 41, 0, 0, 1)),
                new WireFrame.PeerMessage(0, new Message.Lease(1, 2, B, Kind.GUARD, 42, 0, 0, 0)),
                new WireFrame.PeerMessage(3, new Message.Lease(2, 1, new Ballot(0, -1), Kind.PROMISE, 41, 0, 917, 0)),
                // configurations through the log: a guard and its promise name a version above the slot
                new WireFrame.PeerMessage(0, new Message.Lease(1, 2, B, Kind.GUARD, 43, 1_000, 0, 1)),
                new WireFrame.PeerMessage(3, new Message.Lease(2, 1, B, Kind.PROMISE, 43, 1_000, 12, 0)),
                // read statistics: slotLow is a key hash, negative as often as not
                new WireFrame.PeerMessage(0, new Message.Lease(1, 2, B, Kind.READS, 17, -8_123_456_789L, 4, 230)),
                new WireFrame.PeerMessage(5, new Message.Lease(0, 2, B, Kind.BOUND, -123_456_789_000L, 18, 25, 0b101)),
                new WireFrame.PeerMessage(5, new Message.Lease(0, 2, B, Kind.BOUND, Long.MAX_VALUE, 3, 3, 1L << 62)));
    }

    @Test
    void everyKindRoundTripsFieldForField() throws Exception {
        for (WireFrame.PeerMessage f : samples()) {
            byte[] bytes = WireCodec.encode(f);
            assertEquals(12, bytes[1 + 1 + 4] & 0xFF, "message type code 12 after version, frame type and group");
            WireFrame back = WireCodec.decode(bytes);
            assertEquals(f, back, "decoded " + f);
            assertArrayEquals(bytes, WireCodec.encode(back));
        }
    }

    @Test
    void everyTruncationAndTrailingByteIsMalformedInput() {
        for (WireFrame f : samples()) {
            byte[] bytes = WireCodec.encode(f);
            for (int len = 0; len < bytes.length; len++) {
                byte[] cut = Arrays.copyOf(bytes, len);
                assertThrows(MalformedInputException.class, () -> WireCodec.decode(cut), "truncated to " + len);
            }
            byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
            assertTrue(assertThrows(MalformedInputException.class, () -> WireCodec.decode(longer)).getMessage()
                    .contains("trailing"));
        }
    }

    /** Offsets in a lease frame: version, frame type, group, message type, from, to, ballot (12), then the fields. */
    private static final int KIND = 1 + 1 + 4 + 1 + 4 + 4 + 12;
    private static final int SEQ = KIND + 1;
    private static final int LOW = SEQ + 8;
    private static final int HIGH = LOW + 8;
    private static final int HOLDERS = HIGH + 8;

    private static String malformed(Message.Lease m, Consumer<byte[]> damage) {
        byte[] bytes = WireCodec.encode(new WireFrame.PeerMessage(0, m));
        damage.accept(bytes);
        return assertThrows(MalformedInputException.class, () -> WireCodec.decode(bytes)).getMessage();
    }

    private static void putLong(byte[] b, int at, long v) {
        for (int i = 7; i >= 0; i--) {
            b[at + i] = (byte) v;
            v >>>= 8;
        }
    }

    @Test
    void badFieldsAreNamedInTheError() {
        Message.Lease bound = new Message.Lease(0, 2, B, Kind.BOUND, 5, 18, 25, 0b101);
        Message.Lease guard = new Message.Lease(1, 2, B, Kind.GUARD, 5, 0, 0, 1);
        String kind = malformed(bound, b -> b[KIND] = 4);
        assertTrue(kind.contains("unknown lease message kind 4"), kind);
        assertTrue(malformed(bound, b -> b[KIND] = (byte) 0xFF).contains("kind 255"));
        String range = malformed(bound, b -> putLong(b, LOW, 26));
        assertTrue(range.contains("slot range [26, 25]"), range);
        assertTrue(malformed(bound, b -> {
            putLong(b, LOW, -1);
        }).contains("slot range [-1, 25]"));
        String holders = malformed(bound, b -> putLong(b, HOLDERS, -1));
        assertTrue(holders.contains("holders field -1"), holders);
        String version = malformed(guard, b -> putLong(b, LOW, -1));
        assertTrue(version.contains("configuration version -1"), version);
        Message.Lease reads = new Message.Lease(1, 2, B, Kind.READS, 17, -5, 4, 230);
        String count = malformed(reads, b -> putLong(b, SEQ, -3));
        assertTrue(count.contains("read count -3"), count);
        String flag = malformed(guard, b -> putLong(b, HOLDERS, 2));
        assertTrue(flag.contains("GUARD holders field 2"), flag);
        assertTrue(malformed(guard, b -> b[KIND - 4] = (byte) 0x80).contains("invalid ballot"), "a negative ballot node");
    }

    @Test
    void theFieldOffsetsThisTestDamagesAreTheRightOnes() throws Exception {
        Message.Lease bound = new Message.Lease(0, 2, B, Kind.BOUND, 5, 18, 25, 0b101);
        byte[] bytes = WireCodec.encode(new WireFrame.PeerMessage(0, bound));
        assertEquals(HOLDERS + 8, bytes.length);
        putLong(bytes, SEQ, 99);
        putLong(bytes, HIGH, 30);
        bytes[KIND] = (byte) Kind.PROMISE.ordinal();
        assertEquals(new Message.Lease(0, 2, B, Kind.PROMISE, 99, 18, 30, 0b101),
                ((WireFrame.PeerMessage) WireCodec.decode(bytes)).message());
    }
}
