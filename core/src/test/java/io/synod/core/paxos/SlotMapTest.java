package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The slot map against a {@code TreeMap} model: the acceptor's log and the leader's window rely on the same answers. */
class SlotMapTest {
    @Test
    void randomOperationsAgreeWithATreeMapAcrossRingGrowthAndTheTreeFallback() {
        for (int seed = 0; seed < 200; seed++) {
            Random random = new Random(seed);
            SlotMap<Long> map = new SlotMap<>();
            TreeMap<Long, Long> model = new TreeMap<>();
            long base = 1 + random.nextInt(1000);
            for (int op = 0; op < 2_000; op++) {
                int kind = random.nextInt(100);
                if (kind < 50) {
                    // Mostly dense slots near the top; now and then one far ahead (beyond the ring's span) or below.
                    long slot = random.nextInt(50) == 0 ? base + SlotMap.MAX_RING_SPAN + random.nextInt(5_000)
                            : Math.max(1, base + random.nextInt(300) - 20);
                    long value = random.nextLong();
                    assertEquals(model.put(slot, value), map.put(slot, value), "put " + slot + " seed " + seed);
                    base = Math.max(base, Math.min(slot, base + 40));
                } else if (kind < 75) {
                    long slot = base + random.nextInt(400) - 200;
                    assertEquals(model.get(slot), map.get(slot), "get " + slot + " seed " + seed);
                } else if (kind < 85) {
                    long through = model.isEmpty() ? base : model.firstKey() + random.nextInt(200);
                    model.headMap(through, true).clear();
                    map.removeThrough(through);
                } else if (kind < 95) {
                    Map.Entry<Long, Long> first = model.pollFirstEntry();
                    assertEquals(first == null ? null : first.getValue(), map.pollFirst(), "pollFirst seed " + seed);
                } else if (kind < 99) {
                    long from = base - random.nextInt(300);
                    assertEquals(new ArrayList<>(model.tailMap(from, true).values()), list(map.valuesFrom(from)),
                            "valuesFrom " + from + " seed " + seed);
                } else {
                    model.clear();
                    map.clear();
                }
                assertEquals(model.size(), map.size(), "size seed " + seed);
                if (!model.isEmpty()) {
                    assertEquals(model.firstKey(), map.firstSlot(), "first seed " + seed);
                    assertEquals(model.lastKey(), map.lastSlot(), "last seed " + seed);
                }
            }
            assertEquals(new ArrayList<>(model.values()), list(map.values()), "values seed " + seed);
        }
    }

    @Test
    void emptyMapAnswersNothingAndRefusesFirstAndLast() {
        SlotMap<String> map = new SlotMap<>();
        assertTrue(map.isEmpty());
        assertNull(map.get(1));
        assertNull(map.pollFirst());
        assertTrue(list(map.values()).isEmpty());
        assertThrows(NoSuchElementException.class, map::firstSlot);
        assertThrows(IllegalArgumentException.class, () -> map.put(1, null));
    }

    @Test
    void anIteratorFailsFastWhenTheMapChanges() {
        SlotMap<String> map = new SlotMap<>();
        map.put(5, "a");
        map.put(6, "b");
        Iterator<String> it = map.values().iterator();
        it.next();
        map.put(7, "c");
        assertThrows(ConcurrentModificationException.class, it::hasNext);
    }

    private static <V> List<V> list(Iterable<V> values) {
        List<V> out = new ArrayList<>();
        values.forEach(out::add);
        return out;
    }
}
