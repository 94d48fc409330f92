package io.synod.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The admin membership request frame (type 16): its layout, round trip, and refusal of truncated or longer frames (beyond its optional flags byte). */
class MembershipRequestFrameTest {
    @Test
    void hasItsLayoutRoundTripsAndRefusesDamage() {
        for (ClientFrame.MembershipRequest f : new ClientFrame.MembershipRequest[] {
            new ClientFrame.MembershipRequest(1, 0, ClientFrame.MEMBERSHIP_STATUS, -1),
            new ClientFrame.MembershipRequest(Long.MAX_VALUE, 3, ClientFrame.MEMBERSHIP_REMOVE, 62),
            new ClientFrame.MembershipRequest(-5, -1, 99, Integer.MIN_VALUE)}) { // the server refuses these by name
            byte[] bytes = ClientFrameCodec.encode(f);
            assertEquals(2 + 8 + 3 * 4, bytes.length);
            ByteBuffer in = ByteBuffer.wrap(bytes);
            assertEquals(1, in.get(), "version");
            assertEquals(ClientFrameCodec.MEMBERSHIP_REQUEST, in.get(), "frame type 16");
            assertEquals(f.requestId(), in.getLong());
            assertEquals(f.group(), in.getInt());
            assertEquals(f.op(), in.getInt());
            assertEquals(f.replica(), in.getInt());
            assertEquals(f, ClientFrameCodec.decode(bytes));
            assertArrayEquals(bytes, ClientFrameCodec.encode(ClientFrameCodec.decode(bytes)));
            for (int len = 0; len < bytes.length; len++) {
                byte[] cut = Arrays.copyOf(bytes, len);
                assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.decode(cut), "truncated to " + len);
            }
            byte[] longer = Arrays.copyOf(bytes, bytes.length + 1); // a flags byte of 0: never written
            assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.decode(longer));
            byte[] routed = longer.clone();
            routed[bytes.length] = (byte) ClientFrame.FLAG_ROUTED; // the optional flags byte
            assertEquals(ClientFrame.FLAG_ROUTED, ((ClientFrame.MembershipRequest) ClientFrameCodec.decode(routed)).flags());
            byte[] twoLonger = Arrays.copyOf(routed, routed.length + 1);
            assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.decode(twoLonger));
        }
    }
}
