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
                new ClientFrame.StatusReport(9, 1, List.of(new ClientFrame.GroupStatus(0, 2, 3, 1, 10, 10, 0, 0, "quorum",
                        new ClientFrame.CodingStatus(5, 1, 3, 4096)), new ClientFrame.GroupStatus(1, 0, 2, -1, 4, 4, 0, 1,
                        "none", ClientFrame.CodingStatus.OFF))),
                new ClientFrame.StaleRead(10, new byte[] {1}), new ClientFrame.ShardMapQuery(11),
                new ClientFrame.ShardMapReport(12, new byte[] {1, 2, 3}),
                new ClientFrame.WatchPoll(13, WatchCodec.encode(new WatchCodec.Query("lock/", true, 5, 1, 10, 2000))),
                new ClientFrame.Command(1, 2, 3, new byte[] {4}, ClientFrame.FLAG_ROUTED | ClientFrame.FLAG_FORWARD),
                new ClientFrame.MembershipRequest(14, 0, ClientFrame.MEMBERSHIP_REMOVE_NODE, 3),
                new ClientFrame.PlacementQuery(15),
                new ClientFrame.PlacementReport(16, 7, 5, 0b10000, List.of(0b0111L, 0b1110L, 0b1011L)),
                new ClientFrame.PlacementReport(17, -1, 0, 0, List.of()),
                new ClientFrame.MembershipRequest(18, 2, ClientFrame.MEMBERSHIP_MOVE, 0x0103, ClientFrame.FLAG_ROUTED),
                new ClientFrame.PlacementQuery(19, ClientFrame.FEATURE_ROUTED_ADMIN),
                new ClientFrame.PlacementReport(20, 7, 5, 0, List.of(0b0111L), ClientFrame.FEATURE_ROUTED_ADMIN));
        for (ClientFrame f : frames) {
            byte[] body = ClientFrameCodec.encode(f);
            assertArrayEquals(body, ClientFrameCodec.encode(ClientFrameCodec.decode(body)), f.toString());
            assertEquals(f.requestId(), ClientFrameCodec.decode(body).requestId());
            assertTrue(ClientFrameCodec.isClientFrame(body[1]));
        }
    }

    @Test
    void aPlacementReportIsCheckedAgainstTheBytesPresent() {
        ClientFrame.PlacementReport report = new ClientFrame.PlacementReport(3, 9, 4, 0b0001, List.of(0b1110L, 0b0111L));
        byte[] body = ClientFrameCodec.encode(report);
        assertEquals(report, ClientFrameCodec.decode(body));
        assertTrue(report.hosts(0, 3) && !report.hosts(0, 0) && report.hosts(5, 0), "a group beyond the report: hosted");
        for (int cut = 0; cut < body.length; cut++) {
            byte[] part = Arrays.copyOf(body, cut);
            assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.decode(part), "cut at " + cut);
        }
        byte[] lying = body.clone();
        lying[2 + 8 + 8 + 4 + 8 + 3] = 100; // the group count, 100 groups in 16 bytes
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.decode(lying)).getMessage()
                .contains("placement group count 100"));
        assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.decode(ClientFrameCodec.encode(
                new ClientFrame.Command(1, 2, 3, new byte[0], 8))), "a flag this protocol does not define");
    }

    @Test
    void adminFlagsAndPlacementFeaturesAreOneTrailingByteOnlyWhenSet() {
        // Without flags or features, the bytes are those of the frames before the byte existed: older servers and
        // clients read them; with them, one byte more, which only a peer that said it knows them is sent.
        ClientFrame.MembershipRequest plain = new ClientFrame.MembershipRequest(1, 2, ClientFrame.MEMBERSHIP_STATUS, -1);
        ClientFrame.MembershipRequest routed = new ClientFrame.MembershipRequest(1, 2, ClientFrame.MEMBERSHIP_STATUS, -1,
                ClientFrame.FLAG_ROUTED);
        byte[] plainBody = ClientFrameCodec.encode(plain);
        assertEquals(2 + 8 + 3 * 4, plainBody.length);
        byte[] routedBody = ClientFrameCodec.encode(routed);
        assertArrayEquals(plainBody, Arrays.copyOf(routedBody, plainBody.length));
        assertEquals(plainBody.length + 1, routedBody.length);
        assertEquals(routed, ClientFrameCodec.decode(routedBody));
        assertEquals(0, ((ClientFrame.MembershipRequest) ClientFrameCodec.decode(plainBody)).flags());
        byte[] unknown = routedBody.clone();
        unknown[unknown.length - 1] = (byte) ClientFrame.FLAG_FORWARD;
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.decode(unknown)).getMessage()
                .contains("membership request flags 0x2 are unknown"));
        byte[] twoMore = Arrays.copyOf(routedBody, routedBody.length + 1);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.decode(twoMore)).getMessage()
                .contains("trailing bytes"));
        assertEquals(2 + 8, ClientFrameCodec.encode(new ClientFrame.PlacementQuery(3)).length);
        assertEquals(2 + 8 + 1, ClientFrameCodec.encode(new ClientFrame.PlacementQuery(3, ClientFrame.FEATURE_ROUTED_ADMIN))
                .length);
        ClientFrame.PlacementReport report = new ClientFrame.PlacementReport(4, 9, 4, 0, List.of(0b0111L));
        ClientFrame.PlacementReport withFeatures = new ClientFrame.PlacementReport(4, 9, 4, 0, List.of(0b0111L),
                ClientFrame.FEATURE_ROUTED_ADMIN);
        assertEquals(ClientFrameCodec.encode(report).length + 1, ClientFrameCodec.encode(withFeatures).length);
        assertEquals(withFeatures, ClientFrameCodec.decode(ClientFrameCodec.encode(withFeatures)));
        assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.encode(new ClientFrame.MembershipRequest(1, 0,
                0, 0, 256)), "flags above a byte");
    }

    @Test
    void aStatusReportCarriesEachGroupsLeaseModeAndCodingInForce() {
        ClientFrame.StatusReport report = new ClientFrame.StatusReport(3, 2, List.of(
                new ClientFrame.GroupStatus(0, 2, 7, 2, 40, 39, 0, ClientFrame.GroupStatus.SERVING, "quorum-auto",
                        new ClientFrame.CodingStatus(5, 2, 1, 0)),
                new ClientFrame.GroupStatus(1, 0, 6, 0, 12, 12, 8, ClientFrame.GroupStatus.REPAIRING, "none",
                        ClientFrame.CodingStatus.OFF)));
        byte[] body = ClientFrameCodec.encode(report);
        assertEquals(report, ClientFrameCodec.decode(body), "records of ints and strings compare by value");
        assertEquals("N=5 F=2 X=1 threshold=0B", report.groups().get(0).coding().describe());
        assertEquals("off", report.groups().get(1).coding().describe());
        for (int cut = 0; cut < body.length; cut++) {
            byte[] part = Arrays.copyOf(body, cut);
            assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.decode(part), "cut at " + cut);
        }
        byte[] longLease = body.clone();
        longLease[body.length - 5] = 33; // the second group's lease name length ("none"), above 32
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.decode(longLease)).getMessage()
                .contains("lease mode length 33"));
        assertThrows(IllegalArgumentException.class, () -> new ClientFrame.GroupStatus(0, 0, 0, 0, 0, 0, 0, 0, "",
                ClientFrame.CodingStatus.OFF));
    }

    @Test
    void truncatedOrLyingFramesFailWithAClearError() {
        byte[] body = ClientFrameCodec.encode(new ClientFrame.Command(1, 2, 3, new byte[100],
                ClientFrame.FLAG_THROUGH_LOG));
        byte[] badFlags = body.clone();
        badFlags[body.length - 1] = 9;
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ClientFrameCodec.decode(badFlags)).getMessage()
                .contains("command flags 9"));
        int both = ClientFrame.FLAG_THROUGH_LOG | ClientFrame.FLAG_FORWARD;
        assertTrue(((ClientFrame.Command) ClientFrameCodec.decode(ClientFrameCodec.encode(
                new ClientFrame.Command(1, 2, 3, new byte[1], both)))).flags() == both, "the forward flag travels");
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
