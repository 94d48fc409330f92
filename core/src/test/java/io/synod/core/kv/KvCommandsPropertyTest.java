package io.synod.core.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import io.synod.protocol.KeyChange;
import io.synod.protocol.KeyChangeBatch;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * The data commands of {@link KvStateMachine} (put, delete, compare-and-set by value and by version, list append
 * with and without a note, get, versioned get, list read, scan) against a deliberately naive reference model: Java
 * maps and every rule written out once more. Every result, read and watch event must agree, with and without kept
 * notes, across snapshot round trips. The session commands have their own reference ({@link KvSessionsPropertyTest}).
 */
class KvCommandsPropertyTest {
    /** Includes a key outside the BMP: scans go in UTF-8 byte order, which Java's string order is not there. */
    private static final String[] KEYS = {"a", "ab", "b", "list", "n/1", "n/2", "\uD83D\uDE00", "\uFFFD"};

    /** The reference: a value key has bytes and a version, a list key elements and (kept notes) its last note. */
    private static final class Model {
        record Value(byte[] bytes, long version) {}
        record Event(long slot, String key, KeyChange.Type type) {}

        final TreeMap<String, Value> values = new TreeMap<>();
        final TreeMap<String, List<Long>> lists = new TreeMap<>();
        final TreeMap<String, byte[]> notes = new TreeMap<>();
        final List<Event> events = new ArrayList<>();
        final boolean keepNotes;

        Model(boolean keepNotes) {
            this.keepNotes = keepNotes;
        }

        byte[] apply(long slot, KvCommand c) {
            String key = c.key();
            if (c.isReadOnly()) {
                return read(c);
            }
            boolean append = c instanceof KvCommand.Append || c instanceof KvCommand.AppendNote;
            if (append && values.containsKey(key)) {
                return new KvResult.Error("key " + key + " holds a value, not a list").encode();
            }
            if (!append && !(c instanceof KvCommand.Delete) && lists.containsKey(key)) {
                return new KvResult.Error("key " + key + " holds a list, not a value").encode();
            }
            if (c instanceof KvCommand.Put p) {
                put(slot, key, p.value());
                return new KvResult.Done().encode();
            }
            if (c instanceof KvCommand.Delete) {
                boolean existed = values.remove(key) != null | lists.remove(key) != null;
                notes.remove(key);
                if (existed) {
                    events.add(new Event(slot, key, KeyChange.Type.DELETE));
                }
                return new KvResult.Done().encode();
            }
            if (c instanceof KvCommand.CompareAndSet cas) {
                Value now = values.get(key);
                boolean same = now == null ? cas.expected() == null : cas.expected() != null && Arrays.equals(now.bytes(), cas.expected());
                if (same) {
                    put(slot, key, cas.value());
                }
                return new KvResult.Swapped(same).encode();
            }
            if (c instanceof KvCommand.CasVersion cas) {
                Value now = values.get(key);
                boolean same = (now == null ? 0 : now.version()) == cas.expectedVersion();
                if (same) {
                    put(slot, key, cas.value());
                }
                return new KvResult.Swapped(same).encode();
            }
            long element = c instanceof KvCommand.AppendNote n ? n.element() : ((KvCommand.Append) c).element();
            lists.computeIfAbsent(key, k -> new ArrayList<>()).add(element);
            if (c instanceof KvCommand.AppendNote n) {
                notes.put(key, n.note());
            } else {
                notes.remove(key);
            }
            events.add(new Event(slot, key, KeyChange.Type.PUT));
            return new KvResult.Done().encode();
        }

        private void put(long slot, String key, byte[] bytes) {
            values.put(key, new Value(bytes.clone(), slot));
            events.add(new Event(slot, key, KeyChange.Type.PUT));
        }

        byte[] read(KvCommand c) {
            String key = c.key();
            if (c instanceof KvCommand.Scan scan) {
                List<String> inRange = new ArrayList<>();
                for (String k : values.keySet()) {
                    byte[] b = k.getBytes(StandardCharsets.UTF_8);
                    if (Arrays.compareUnsigned(b, scan.start().getBytes(StandardCharsets.UTF_8)) >= 0
                            && (scan.end().isEmpty() || Arrays.compareUnsigned(b, scan.end().getBytes(StandardCharsets.UTF_8)) < 0)) {
                        inRange.add(k);
                    }
                }
                inRange.sort((x, y) -> Arrays.compareUnsigned(x.getBytes(StandardCharsets.UTF_8), y.getBytes(StandardCharsets.UTF_8)));
                List<KvResult.Entry> out = new ArrayList<>();
                for (String k : inRange.subList(0, Math.min(scan.limit(), inRange.size()))) {
                    out.add(new KvResult.Entry(k, values.get(k).bytes(), values.get(k).version()));
                }
                return new KvResult.Entries(out, inRange.size() > scan.limit()).encode();
            }
            if (c instanceof KvCommand.ReadList) {
                if (values.containsKey(key)) {
                    return new KvResult.Error("key " + key + " holds a value, not a list").encode();
                }
                long[] elements = lists.getOrDefault(key, List.of()).stream().mapToLong(Long::longValue).toArray();
                byte[] encoded = new KvResult.ListValue(elements).encode();
                if (!keepNotes) {
                    return encoded;
                }
                CRC32C crc = new CRC32C();
                crc.update(notes.getOrDefault(key, new byte[0]));
                return ByteBuffer.allocate(encoded.length + 4).put(encoded).putInt((int) crc.getValue()).array();
            }
            if (lists.containsKey(key)) {
                return new KvResult.Error("key " + key + " holds a list, not a value").encode();
            }
            Value v = values.get(key);
            return c instanceof KvCommand.Get ? new KvResult.Value(v == null ? null : v.bytes()).encode()
                    : new KvResult.Versioned(v == null ? null : v.bytes(), v == null ? 0 : v.version()).encode();
        }
    }

    @Test
    void randomSequencesAgreeWithTheReference() {
        int swaps = 0;
        int errors = 0;
        for (long seed = 1; seed <= 200; seed++) {
            int[] counts = runSeed(seed, seed % 2 == 0, 300);
            swaps += counts[0];
            errors += counts[1];
        }
        assertTrue(swaps > 1_000 && errors > 1_000, swaps + " successful swaps, " + errors + " kind errors: the rules were exercised");
    }

    private static int[] runSeed(long seed, boolean keepNotes, int steps) {
        SplittableRandom random = new SplittableRandom(seed);
        KvStateMachine machine = new KvStateMachine(keepNotes);
        Model model = new Model(keepNotes);
        int[] counts = new int[2];
        long slot = 0;
        for (int step = 0; step < steps; step++) {
            slot += 1 + random.nextInt(3);
            KvCommand command = randomCommand(random, model, slot);
            String context = "seed " + seed + (keepNotes ? " (notes)" : "") + " slot " + slot + " " + command;
            byte[] expected = model.apply(slot, command);
            byte[] actual = command.isReadOnly() && random.nextBoolean() ? machine.read(command.encode())
                    : machine.apply(slot, command.encode());
            assertArrayEquals(expected, actual, context);
            counts[0] += Arrays.equals(expected, new KvResult.Swapped(true).encode()) ? 1 : 0;
            counts[1] += !(command instanceof KvCommand.ReadList) && KvResult.decode(expected) instanceof KvResult.Error ? 1 : 0;
            if (step % 60 == 59) {
                KvStateMachine restored = new KvStateMachine(keepNotes);
                restored.restore(machine.snapshot());
                assertArrayEquals(machine.snapshot(), restored.snapshot(), context + ": snapshot round trip");
                machine = restored; // Go on from the restored copy: the snapshot carried everything.
                model.events.removeIf(e -> true); // A restored machine's watch log starts after the snapshot.
            }
        }
        KeyChangeBatch events = machine.watchLog().read(1, 0, "", true, 1_000_000);
        List<Model.Event> got = events.events().stream().map(e -> new Model.Event(e.slot(), e.key(), e.type())).toList();
        assertEquals(model.events, got, "seed " + seed + ": watch events since the last restore");
        assertEquals(model.values.size() + model.lists.size(), machine.size(), "seed " + seed + ": data keys");
        return counts;
    }

    private static KvCommand randomCommand(SplittableRandom r, Model model, long slot) {
        String key = KEYS[r.nextInt(KEYS.length)];
        byte[] value = new byte[r.nextInt(3)];
        r.nextBytes(value);
        Model.Value now = model.values.get(key);
        return switch (r.nextInt(13)) {
            case 0, 1 -> new KvCommand.Put(key, value);
            case 2 -> new KvCommand.Delete(key);
            case 3 -> new KvCommand.CompareAndSet(key, now != null && r.nextBoolean() ? now.bytes() : r.nextBoolean() ? null : value, value);
            case 4 -> new KvCommand.CasVersion(key, now != null && r.nextBoolean() ? now.version() : r.nextInt(3) == 0 ? 0 : r.nextLong(slot + 1), value);
            case 5, 6 -> new KvCommand.Append(key, r.nextLong());
            case 7 -> new KvCommand.AppendNote(key, r.nextLong(), value.length == 0 ? new byte[] {1} : value);
            case 8 -> new KvCommand.Get(key);
            case 9 -> new KvCommand.GetVersioned(key);
            case 10 -> new KvCommand.ReadList(key);
            default -> new KvCommand.Scan(r.nextBoolean() ? "" : KEYS[r.nextInt(KEYS.length)],
                    r.nextBoolean() ? "" : KEYS[r.nextInt(KEYS.length)], 1 + r.nextInt(4));
        };
    }

    @Test
    void theReferenceSeesEveryKindOfResult() {
        // A guard on the model itself: a model that agreed by answering nothing would pass the test above.
        Model model = new Model(false);
        assertArrayEquals(new KvResult.Done().encode(), model.apply(1, new KvCommand.Append("l", 1)));
        assertEquals(new KvResult.Error("key l holds a list, not a value"), KvResult.decode(model.apply(2, new KvCommand.Put("l", new byte[1]))));
        assertEquals(new KvResult.Swapped(true), KvResult.decode(model.apply(3, new KvCommand.CompareAndSet("v", null, new byte[] {7}))));
        assertEquals(new KvResult.Swapped(false), KvResult.decode(model.apply(4, new KvCommand.CasVersion("v", 2, new byte[] {8}))));
        assertEquals(3, ((KvResult.Versioned) KvResult.decode(model.apply(5, new KvCommand.GetVersioned("v")))).version());
        Map<String, Model.Value> values = model.values;
        assertEquals(1, values.size());
    }
}
