package io.synod.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WatchCodecTest {
    @Test
    void queriesAndBatchesRoundTrip() {
        WatchCodec.Query q = new WatchCodec.Query("a/é", false, 42, 3, 100, 0);
        assertEquals(q, WatchCodec.decodeQuery(WatchCodec.encode(q)));
        KeyChangeBatch b = new KeyChangeBatch(List.of(new KeyChange(7, 0, "k", KeyChange.Type.PUT),
                new KeyChange(7, 1, "k2", KeyChange.Type.DELETE)), 8, 0, false);
        assertEquals(b, WatchCodec.decodeBatch(WatchCodec.encode(b)));
        KeyChangeBatch compacted = new KeyChangeBatch(List.of(), 1, 0, true);
        assertEquals(compacted, WatchCodec.decodeBatch(WatchCodec.encode(compacted)));
    }

    @Test
    void badQueriesAreRefusedNamingTheField() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WatchCodec.Query("", false, 1, 0, 1, 0))
                .getMessage().contains("watch key"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WatchCodec.Query("k", false, 0, 0, 1, 0))
                .getMessage().contains("position"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WatchCodec.Query("k", false, 1, 0, 5000, 0))
                .getMessage().contains("limit"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WatchCodec.Query("k", false, 1, 0, 1, 60_000))
                .getMessage().contains("wait"));
        byte[] q = WatchCodec.encode(new WatchCodec.Query("key", true, 1, 0, 1, 0));
        for (int cut = 0; cut < q.length; cut++) {
            byte[] part = Arrays.copyOf(q, cut);
            assertThrows(IllegalArgumentException.class, () -> WatchCodec.decodeQuery(part));
        }
        Random random = new Random(3);
        for (int i = 0; i < 2000; i++) {
            byte[] garbage = new byte[random.nextInt(40)];
            random.nextBytes(garbage);
            try {
                WatchCodec.decodeBatch(garbage);
            } catch (IllegalArgumentException expected) {
                // The only failure a decode may have.
            }
        }
    }
}
