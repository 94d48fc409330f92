package io.synod.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LinkBandwidthTest {
    @Test
    void serializationDelayIsBytesOverRateRoundedUp() {
        LinkBandwidth links = new LinkBandwidth(3, 500_000_000L); // 500 Mbit/s: 16 ns per byte
        assertEquals(16, links.serializationNanos(1));
        assertEquals(16_000, links.serializationNanos(1000));
        assertEquals(0, links.serializationNanos(0));
        assertEquals(3, new LinkBandwidth(2, 3_000_000_000L).serializationNanos(1)); // 8/3 ns rounds up
    }

    @Test
    void messagesOnOneLinkQueueBehindEachOtherAndLinksAreIndependent() {
        LinkBandwidth links = new LinkBandwidth(3, 8_000_000L); // 1 byte per microsecond
        assertEquals(1_000_000, links.send(0, 1, 0, 1000), "first message: its own serialization");
        assertEquals(1_500_000, links.send(0, 1, 500_000, 1000), "second waits until the first has left");
        assertEquals(1_000_000, links.send(1, 0, 500_000, 1000), "the reverse direction is another link");
        assertEquals(1_000_000, links.send(0, 2, 500_000, 1000), "another destination is another link");
        assertEquals(1_000_000, links.send(0, 1, 10_000_000, 1000), "an idle link starts at once");
        assertEquals(3000, links.bytesSent(0, 1));
        assertEquals(5000, links.totalBytesSent());
        assertEquals(3000, links.busiestLinkBytes());
    }

    @Test
    void badArgumentsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new LinkBandwidth(3, 0));
        assertThrows(IllegalArgumentException.class, () -> new LinkBandwidth(0, 1000));
        LinkBandwidth links = new LinkBandwidth(3, 1000);
        assertThrows(IllegalArgumentException.class, () -> links.send(0, 3, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> links.send(0, 1, 0, -1));
        assertThrows(IllegalArgumentException.class,
                () -> SimConfig.defaults(3, FaultProfile.NONE).withLinkBandwidth(-1));
    }

    /**
     * The fault simulator with capped links: seeds still pass (safety and liveness under queueing
     * delays), and the cap really changes the run (another trace than the unlimited default).
     */
    @Test
    void faultSimulationWithCappedLinksPassesAndDiffersFromUnlimited() {
        SimConfig coded = SimConfig.defaults(5, FaultProfile.ALL).withCoding(SimCoding.rsPaxos(5, 1, 3));
        for (long seed = 1; seed <= 6; seed++) {
            SimConfig unlimited = coded.withSeed(seed);
            SimResult capped = Simulation.run(unlimited.withLinkBandwidth(100_000_000L));
            assertTrue(capped.passed(), capped.summaryLine());
            assertNotEquals(Simulation.run(unlimited).traceHash(), capped.traceHash(), "seed " + seed);
            SimResult replay = Simulation.run(unlimited.withLinkBandwidth(100_000_000L));
            assertEquals(capped.traceHash(), replay.traceHash(), "a capped seed replays exactly");
        }
        SimResult plain = Simulation.run(SimConfig.defaults(3, FaultProfile.ALL).withSeed(3).withLinkBandwidth(10_000_000L));
        assertTrue(plain.passed(), plain.summaryLine());
    }
}
