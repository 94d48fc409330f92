package io.synod.server.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientFrameCodec;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The admin coding-change client frame (type 13): layout, round trip through both codecs, malformed input. */
class CodingChangeFrameTest {
    static List<WireFrame.CodingChange> samples() {
        return List.of(new WireFrame.CodingChange(1, 0, 2, 1, 0), new WireFrame.CodingChange(Long.MAX_VALUE, 7, 1, 3, 4096),
                // Out-of-rule values travel as they are: the leader refuses them, naming the rule.
                new WireFrame.CodingChange(-5, -1, -2, 300, Integer.MIN_VALUE));
    }

    @Test
    void roundTripsThroughTheServerAndTheSdkCodecs() throws Exception {
        for (WireFrame.CodingChange f : samples()) {
            byte[] bytes = WireCodec.encode(f);
            assertEquals(2 + 8 + 4 * 4, bytes.length);
            ByteBuffer in = ByteBuffer.wrap(bytes);
            assertEquals(1, in.get(), "version");
            assertEquals(ClientFrameCodec.CODING_CHANGE, in.get(), "frame type 13");
            assertEquals(f.requestId(), in.getLong());
            assertEquals(f.group(), in.getInt());
            assertEquals(f.failures(), in.getInt());
            assertEquals(f.dataShards(), in.getInt());
            assertEquals(f.thresholdBytes(), in.getInt());
            assertEquals(f, WireCodec.decode(bytes));
            ClientFrame sdk = ClientFrameCodec.decode(bytes);
            assertEquals(new ClientFrame.CodingChange(f.requestId(), f.group(), f.failures(), f.dataShards(),
                    f.thresholdBytes()), sdk);
            assertArrayEquals(bytes, ClientFrameCodec.encode(sdk), "the SDK writes the same bytes");
        }
    }

    @Test
    void everyTruncationAndTrailingByteIsMalformedInput() {
        for (WireFrame f : samples()) {
            byte[] bytes = WireCodec.encode(f);
            for (int len = 0; len < bytes.length; len++) {
                byte[] cut = Arrays.copyOf(bytes, len);
                assertThrows(MalformedInputException.class, () -> WireCodec.decode(cut), "truncated to " + len);
                assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.decode(cut), "SDK, truncated to " + len);
            }
            byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
            assertTrue(assertThrows(MalformedInputException.class, () -> WireCodec.decode(longer)).getMessage()
                    .contains("trailing"));
        }
    }

    @Test
    void anUnknownClientFrameTypeIsRefusedByName() {
        byte[] bytes = WireCodec.encode(samples().get(0));
        bytes[1] = 14; // the next type nobody speaks yet: what an older build does with type 13
        assertTrue(assertThrows(MalformedInputException.class, () -> WireCodec.decode(bytes)).getMessage()
                .contains("unknown frame type 14"));
    }
}
