package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.synod.protocol.ClientReply;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The open-addressed session table against the insertion-ordered map it replaced: the same answers, the same
 * eviction order and the same snapshot bytes after random applications, re-applications and evictions. Few client
 * ids (collisions in the probe runs, deletions by backward shift) and bounds from 1 to 40.
 */
class SessionTableTest {
    /** The table as it was: remove and put per application, the eldest evicted over the bound. */
    private static final class Model {
        final int max;
        final LinkedHashMap<Long, long[]> map = new LinkedHashMap<>();

        Model(int max) {
            this.max = max;
        }

        void recordApplied(long client, long sequence, long slot) {
            map.remove(client);
            map.put(client, new long[] {sequence, slot});
            if (map.size() > max) {
                Iterator<Long> eldest = map.keySet().iterator();
                eldest.next();
                eldest.remove();
            }
        }

        long evictedBy(long client) {
            return map.containsKey(client) || map.size() < max ? 0 : map.keySet().iterator().next();
        }
    }

    @Test
    void matchesTheInsertionOrderedMapOver200Seeds() {
        for (long seed = 0; seed < 200; seed++) {
            Random random = new Random(seed);
            int max = 1 + random.nextInt(40);
            int ids = 1 + random.nextInt(3 * max);
            ClientSessions table = new ClientSessions(max);
            Model model = new Model(max);
            for (int op = 0; op < 2_000; op++) {
                // Ids spread over a wide range, a few of them each seed.
                long client = (random.nextInt(ids) + 1) * 0x5DEECE66DL;
                long sequence = random.nextInt(50);
                Command command = new Command(client, sequence, new byte[0]);
                ClientReply answer = table.answer(command);
                long[] known = model.map.get(client);
                if (known == null || sequence > known[0]) {
                    assertNull(answer, "seed " + seed + " op " + op);
                    assertEquals(model.evictedBy(client), table.evictedBy(client), "seed " + seed + " op " + op);
                    table.recordApplied(client, sequence, op, new byte[] {(byte) op});
                    model.recordApplied(client, sequence, op);
                } else {
                    assertEquals(sequence < known[0] ? ClientReply.Status.STALE_SEQUENCE : ClientReply.Status.OK,
                            answer.status(), "seed " + seed + " op " + op);
                    if (sequence == known[0]) {
                        assertEquals(known[1], answer.slot());
                    }
                }
                assertEquals(model.map.size(), table.size());
            }
            List<Long> order = new ArrayList<>();
            for (AppliedState.ClientSession s : table.records()) {
                order.add(s.clientId());
                assertEquals(model.map.get(s.clientId())[1], s.slot());
            }
            assertEquals(new ArrayList<>(model.map.keySet()), order, "eviction order, seed " + seed);
            ClientSessions decoded = new ClientSessions(max);
            decoded.restore(table.encode());
            assertArrayEquals(table.encode(), decoded.encode(), "snapshot bytes survive a round trip, seed " + seed);
        }
    }

    @Test
    void aClientNamedTwiceInSnapshotBytesKeepsItsFirstPlaceAndTakesTheLaterValues() {
        ClientSessions written = new ClientSessions(10);
        written.recordApplied(1, 1, 1, new byte[0]);
        written.recordApplied(2, 1, 2, new byte[0]);
        written.recordApplied(3, 1, 3, new byte[0]);
        byte[] bytes = written.encode();
        // Client 3's record rewritten as client 1's with sequence 7: a map's put keeps 1 first with the new values.
        ByteBuffer.wrap(bytes).putLong(8 + 2 * 28, 1L).putLong(8 + 2 * 28 + 8, 7L);
        ClientSessions read = new ClientSessions(10);
        read.restore(bytes);
        List<AppliedState.ClientSession> records = read.records();
        assertEquals(List.of(1L, 2L), records.stream().map(AppliedState.ClientSession::clientId).toList());
        assertEquals(List.of(7L, 1L), records.stream().map(AppliedState.ClientSession::sequence).toList());
    }
}
