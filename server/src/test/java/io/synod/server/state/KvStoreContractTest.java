package io.synod.server.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.synod.core.store.KvStore;
import io.synod.core.store.MemoryKvStore;
import io.synod.core.store.StoreBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What {@link KvStore} promises, checked on both stores (core's in-memory one and the server's RocksDB one): byte
 * order, bounded scans, batches applied whole with their applied slot, a range deletion before the batch's own changes,
 * and (RocksDB) the state and slot of the last batch after a reopen.
 */
class KvStoreContractTest {
    @TempDir
    static Path tmp;

    private static int opened;

    static Stream<Function<String, KvStore>> stores() {
        return Stream.of(name -> new MemoryKvStore(), name -> {
            try {
                Path dir = tmp.resolve(name + "-" + opened++);
                return new RocksKvStore(dir, dir.resolveSibling(dir.getFileName() + "-snapshots"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    @ParameterizedTest
    @MethodSource("stores")
    void scansInUnsignedByteOrderWithinTheirBounds(Function<String, KvStore> open) {
        try (KvStore store = open.apply("order")) {
            store.write(new StoreBatch().put(b("b"), b("2")).put(new byte[] {(byte) 0xC3, (byte) 0xA9}, b("e"))
                    .put(b("a"), b("1")).put(b("ab"), b("3")).put(new byte[] {(byte) 0xFF}, b("last")).appliedSlot(4));
            assertEquals(List.of("a", "ab", "b", "\u00e9", "\u00ff?"), keys(store, new byte[0], null, 10));
            assertEquals(List.of("ab", "b"), keys(store, b("aa"), b("b\0"), 10));
            assertEquals(List.of("a", "ab"), keys(store, new byte[0], null, 2), "the visitor stops the scan");
            assertEquals(List.of(), keys(store, b("b"), b("ab"), 10), "a range that ends before it starts is empty");
            assertEquals(List.of(), keys(store, b("b"), b("b"), 10), "an empty range");
            List<String> prefixed = new ArrayList<>();
            store.scanPrefix(b("a"), (k, v) -> prefixed.add(new String(k, StandardCharsets.UTF_8)));
            assertEquals(List.of("a", "ab"), prefixed);
            assertArrayEquals(b("3"), store.get(b("ab")));
            assertNull(store.get(b("zz")));
            assertEquals(4, store.appliedSlot());
        }
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aBatchDeletesItsRangeFirstThenWritesAndKeepsTheLastChangeOfAKey(Function<String, KvStore> open) {
        try (KvStore store = open.apply("range")) {
            store.write(new StoreBatch().put(b("k1"), b("1")).put(b("k2"), b("2")).put(b("z"), b("z")).appliedSlot(1));
            StoreBatch batch = new StoreBatch().deleteRange(b("k"), b("l")).put(b("k2"), b("new")).put(b("k3"), b("x"))
                    .delete(b("k3"));
            assertEquals(true, batch.contains(b("k1")), "the range decides k1");
            assertNull(batch.get(b("k1")));
            store.write(batch);
            assertEquals(List.of("k2", "z"), keys(store, new byte[0], null, 10));
            assertArrayEquals(b("new"), store.get(b("k2")));
            assertEquals(1, store.appliedSlot(), "a batch without a slot leaves the slot");
            assertThrows(IllegalStateException.class, () -> new StoreBatch().put(b("a"), b("1")).deleteRange(b("a"), b("b")));
        }
    }

    /** A random history of batches, compared after each with a plain sorted map (the model). */
    @ParameterizedTest
    @MethodSource("stores")
    void agreesWithASortedMapOverARandomHistory(Function<String, KvStore> open) {
        SplittableRandom r = new SplittableRandom(7);
        TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        try (KvStore store = open.apply("random")) {
            for (int slot = 1; slot <= 200; slot++) {
                StoreBatch batch = new StoreBatch();
                if (r.nextInt(20) == 0) {
                    byte[] from = {(byte) r.nextInt(4)};
                    byte[] to = {(byte) (from[0] + 1 + r.nextInt(2))};
                    batch.deleteRange(from, to);
                    model.subMap(from, true, to, false).clear();
                }
                for (int i = r.nextInt(5); i >= 0; i--) {
                    byte[] key = {(byte) r.nextInt(5), (byte) r.nextInt(3)};
                    if (r.nextInt(3) == 0) {
                        batch.delete(key);
                        model.remove(key);
                    } else {
                        byte[] value = {(byte) slot};
                        batch.put(key, value);
                        model.put(key, value);
                    }
                }
                store.write(batch.appliedSlot(slot));
                TreeMap<byte[], byte[]> seen = new TreeMap<>(Arrays::compareUnsigned);
                store.scan(new byte[0], null, (k, v) -> seen.put(k, v) == null);
                assertEquals(show(model), show(seen), "after slot " + slot);
                assertEquals(slot, store.appliedSlot());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("stores")
    void rocksDbKeepsTheLastBatchAndItsSlotAcrossAReopen(Function<String, KvStore> open) throws IOException {
        KvStore first = open.apply("reopen");
        if (!(first instanceof RocksKvStore)) {
            first.close();
            return; // The in-memory store lives as long as its object.
        }
        Path dir = tmp.resolve("reopen-" + (opened - 1));
        first.write(new StoreBatch().put(b("a"), b("1")).appliedSlot(7));
        first.write(new StoreBatch().deleteRange(new byte[] {0}, new byte[] {(byte) 0xFF}).put(b("b"), b("2")));
        first.close();
        try (KvStore again = new RocksKvStore(dir, dir.resolveSibling(dir.getFileName() + "-snapshots"))) {
            assertEquals(List.of("b"), keys(again, new byte[0], null, 10), "the applied slot's key is the store's, not scanned");
            assertEquals(7, again.appliedSlot(), "a range deletion over the whole key space keeps the slot");
        }
    }

    private static List<String> keys(KvStore store, byte[] from, byte[] to, int limit) {
        List<String> out = new ArrayList<>();
        store.scan(from, to, (k, v) -> {
            out.add(new String(k, StandardCharsets.UTF_8).replace("\ufffd", "\u00ff?"));
            return out.size() < limit;
        });
        return out;
    }

    private static String show(TreeMap<byte[], byte[]> map) {
        StringBuilder out = new StringBuilder();
        map.forEach((k, v) -> out.append(Arrays.toString(k)).append('=').append(Arrays.toString(v)).append(' '));
        return out.toString();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
