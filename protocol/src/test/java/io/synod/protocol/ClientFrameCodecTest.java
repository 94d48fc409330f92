package io.synod.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ClientFrameCodecTest {
    @Test
    void everyFrameRoundTrips() {
        List<ClientFrame> frames = List.of(new ClientFrame.Command(1, 2, 3, new byte[] {4, 5}),
                new ClientFrame.Command(1, 2, 3, new byte[] {4, 5}, ClientFrame.FLAG_THROUGH_LOG),
                new ClientFrame.Response(6, 1, 0, 99, 2, new byte[] {7}),
                new ClientFrame.Response(6, 1, 0, 99, 2, new byte[] {7}, ClientFrame.SERVED_LEASE),
                new ClientFrame.Response(6, 1, 0, 99, 2, new byte[] {7}, ClientFrame.SERVED_LOCAL),
                new ClientFrame.StatusQuery(8),
                new ClientFrame.StatusReport(9, 1, List.of(new ClientFrame.GroupStatus(0, 2, 3, 1, 10, 10, 0, 0))),
                new ClientFrame.StaleRead(10, new byte[] {1}), new ClientFrame.ShardMapQuery(11),
                new ClientFrame.ShardMapReport(12, new byte[] {1, 2, 3}),
                new ClientFrame.WatchPoll(13, WatchCodec.encode(new WatchCodec.Query("lock/", true, 5, 1, 10, 2000))));
        for (ClientFrame f : frames) {
            byte[] body = ClientFrameCodec.encode(f);
            assertArrayEquals(body, ClientFrameCodec.encode(ClientFrameCodec.decode(body)), f.toString());
            assertEquals(f.requestId(), ClientFrameCodec.decode(body).requestId());
            assertTrue(ClientFrameCodec.isClientFrame(body[1]));
        }
    }

    @Test
    void truncatedOrLyingFramesFailWithAClearError() {
        byte[] body = ClientFrameCodec.encode(new ClientFrame.Command(1, 2, 3, new byte[100],
                ClientFrame.FLAG_THROUGH_LOG));
        byte[] badFlags = body.clone();
        badFlags[body.length - 1] = 9;
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.decode(badFlags)).getMessage()
                .contains("command flags 9"));
        for (int cut = 0; cut < body.length; cut++) {
            byte[] part = Arrays.copyOf(body, cut);
            assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.decode(part));
        }
        byte[] lying = body.clone();
        lying[2 + 24] = 0x7f; // payload length far beyond the frame
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.decode(lying));
        assertTrue(e.getMessage().contains("command payload length"), e.getMessage());
        Random random = new Random(7);
        for (int i = 0; i < 2000; i++) {
            byte[] garbage = new byte[random.nextInt(64)];
            random.nextBytes(garbage);
            if (garbage.length > 0) {
                garbage[0] = 1;
            }
            try {
                ClientFrameCodec.decode(garbage);
            } catch (IllegalArgumentException expected) {
                // The only failure a decode may have.
            }
        }
    }
}
