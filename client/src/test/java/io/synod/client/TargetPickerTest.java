package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Routing with a preferred reader ({@link SynodClient.Builder#readFrom}): which node each request goes to first. */
class TargetPickerTest {
    static final Map<Integer, InetSocketAddress> NODES = Map.of(0, new InetSocketAddress("127.0.0.1", 1),
            1, new InetSocketAddress("127.0.0.1", 2), 2, new InetSocketAddress("127.0.0.1", 3));
    static final Map<Integer, Integer> LEADERS = Map.of(0, 0);

    private static PendingOp op(String key, boolean readOnly, boolean watch, Consistency consistency) {
        PendingOp op = new PendingOp("op", new byte[] {1}, key.getBytes(StandardCharsets.UTF_8), readOnly, watch,
                consistency, Long.MAX_VALUE);
        op.group = 0;
        return op;
    }

    @Test
    void onlyLinearizableReadsGoToThePreferredReader() {
        TargetPicker picker = new TargetPicker(2);
        assertEquals(2, picker.pick(op("k", true, false, Consistency.LINEARIZABLE), NODES, LEADERS));
        assertEquals(0, picker.pick(op("k", false, false, Consistency.LINEARIZABLE), NODES, LEADERS), "a write");
        assertEquals(0, picker.pick(op("k", true, false, Consistency.LOG), NODES, LEADERS), "a LOG read");
        assertEquals(0, picker.pick(op("k", true, true, Consistency.LINEARIZABLE), NODES, LEADERS), "a watch poll");
        assertEquals(0, new TargetPicker().pick(op("k", true, false, Consistency.LINEARIZABLE), NODES, LEADERS),
                "no preferred reader");
        assertEquals(0, new TargetPicker(5).pick(op("k", true, false, Consistency.LINEARIZABLE), NODES, LEADERS),
                "a preferred reader the client does not know");
    }

    @Test
    void aRefusedReadGoesToTheLeaderAndItsKeySkipsThePreferredReaderForAWhile() {
        TargetPicker picker = new TargetPicker(2);
        PendingOp refused = op("cold", true, false, Consistency.LINEARIZABLE);
        assertEquals(2, picker.pick(refused, NODES, LEADERS));
        picker.refusedByPreferred(refused, -1);
        assertEquals(0, picker.pick(refused, NODES, LEADERS), "the retry goes to the leader");
        assertEquals(0, picker.pick(op("cold", true, false, Consistency.LINEARIZABLE), NODES, LEADERS),
                "the next read of the refused key too");
        assertEquals(2, picker.pick(op("hot", true, false, Consistency.LINEARIZABLE), NODES, LEADERS), "another key");
        assertEquals(1, picker.refusedKeys());
    }

    @Test
    void theHoldersARefusalNamesDecideHowLongTheKeySkipsThePreferredReader() {
        long[] now = {1_000};
        TargetPicker picker = new TargetPicker(2, () -> now[0]);
        PendingOp notHeld = op("a", true, false, Consistency.LINEARIZABLE);
        PendingOp busy = op("b", true, false, Consistency.LINEARIZABLE);
        PendingOp silent = op("c", true, false, Consistency.LINEARIZABLE);
        picker.refusedByPreferred(notHeld, 0b011); // Held by nodes 0 and 1, not by 2.
        picker.refusedByPreferred(busy, 0b110); // Node 2 holds it: a passing refusal.
        picker.refusedByPreferred(silent, -1);
        assertEquals(TargetPicker.NOT_HOLDER_FOR_NANOS, picker.skipsPreferredFor(notHeld));
        assertEquals(TargetPicker.BUSY_HOLDER_FOR_NANOS, picker.skipsPreferredFor(busy));
        assertEquals(TargetPicker.REFUSED_FOR_NANOS, picker.skipsPreferredFor(silent));
        now[0] += TargetPicker.BUSY_HOLDER_FOR_NANOS;
        assertEquals(2, picker.pick(op("b", true, false, Consistency.LINEARIZABLE), NODES, LEADERS), "asked again");
        assertEquals(0, picker.pick(op("c", true, false, Consistency.LINEARIZABLE), NODES, LEADERS));
        now[0] += TargetPicker.REFUSED_FOR_NANOS;
        assertEquals(2, picker.pick(op("c", true, false, Consistency.LINEARIZABLE), NODES, LEADERS), "asked again");
        assertEquals(0, picker.pick(op("a", true, false, Consistency.LINEARIZABLE), NODES, LEADERS), "still not a holder");
        now[0] += TargetPicker.NOT_HOLDER_FOR_NANOS;
        assertEquals(2, picker.pick(op("a", true, false, Consistency.LINEARIZABLE), NODES, LEADERS), "asked again");
        assertEquals(0, picker.refusedKeys(), "expired entries are dropped when looked up");
    }

    @Test
    void theRefusedKeyMemoryIsBounded() {
        TargetPicker picker = new TargetPicker(2);
        for (int i = 0; i < TargetPicker.MAX_REFUSED + 100; i++) {
            picker.refusedByPreferred(op("k" + i, true, false, Consistency.LINEARIZABLE), -1);
        }
        assertEquals(TargetPicker.MAX_REFUSED, picker.refusedKeys());
        assertEquals(2, picker.pick(op("k0", true, false, Consistency.LINEARIZABLE), NODES, LEADERS), "the oldest forgotten");
    }

    @Test
    void aLostPreferredReaderIsSkippedForAWhile() {
        long[] now = {5};
        TargetPicker picker = new TargetPicker(2, () -> now[0]);
        picker.preferredLost();
        assertEquals(0, picker.pick(op("k", true, false, Consistency.LINEARIZABLE), NODES, LEADERS));
        now[0] += TargetPicker.DOWN_FOR_NANOS;
        assertEquals(2, picker.pick(op("k", true, false, Consistency.LINEARIZABLE), NODES, LEADERS));
    }

    @Test
    void theBuilderRefusesABadNodeId() {
        assertThrows(IllegalArgumentException.class, () -> SynodClient.builder().readFrom(-1));
        assertThrows(IllegalArgumentException.class, () -> SynodClient.builder().readFrom(63));
    }
}
