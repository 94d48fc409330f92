package io.synod.server.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.synod.core.kv.KvCommand;
import io.synod.core.kv.KvStateMachine;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksKvStateMachineTest {
    @TempDir
    Path dir;

    static byte[] randomCommand(SplittableRandom r) {
        String key = "k" + r.nextInt(8);
        byte[] value = new byte[r.nextInt(4)];
        r.nextBytes(value);
        KvCommand c = switch (r.nextInt(11)) {
            case 0, 1 -> new KvCommand.Put(key, value);
            case 2 -> new KvCommand.Get(key);
            case 3 -> new KvCommand.Delete(key);
            case 4 -> new KvCommand.CompareAndSet(key, r.nextBoolean() ? null : value, value);
            case 5 -> new KvCommand.Append(key, r.nextLong());
            case 7 -> new KvCommand.GetVersioned(key);
            case 8 -> new KvCommand.CasVersion(key, r.nextInt(3) == 0 ? 0 : r.nextInt(2_000), value);
            case 9 -> new KvCommand.Scan(r.nextBoolean() ? "" : "k" + r.nextInt(8), r.nextBoolean() ? "" : "k" + r.nextInt(9),
                    1 + r.nextInt(5));
            case 10 -> new KvCommand.AppendNote(key, r.nextLong(), value);
            default -> new KvCommand.ReadList(key);
        };
        return c.encode();
    }

    @Test
    void answersExactlyLikeTheInMemoryStateMachine() throws Exception {
        SplittableRandom r = new SplittableRandom(42);
        KvStateMachine reference = new KvStateMachine();
        try (RocksKvStateMachine rocks = new RocksKvStateMachine(dir.resolve("a"))) {
            for (long slot = 1; slot <= 2_000; slot++) {
                byte[] cmd = r.nextInt(50) == 0 ? new byte[] {9, 9} : randomCommand(r);
                assertArrayEquals(reference.apply(slot, cmd), rocks.apply(slot, cmd), "slot " + slot);
                assertEquals(slot, rocks.appliedSlot(), "applied slot written with the data");
                if (reference.isReadOnly(cmd)) {
                    assertArrayEquals(reference.read(cmd), rocks.read(cmd));
                }
            }
        }
    }

    @Test
    void snapshotsAreIdenticalAcrossReplicasAndRestoreExactly() throws Exception {
        SplittableRandom r1 = new SplittableRandom(7);
        SplittableRandom r2 = new SplittableRandom(7);
        try (RocksKvStateMachine a = new RocksKvStateMachine(dir.resolve("a"));
                RocksKvStateMachine b = new RocksKvStateMachine(dir.resolve("b"));
                RocksKvStateMachine c = new RocksKvStateMachine(dir.resolve("c"))) {
            for (long slot = 1; slot <= 500; slot++) {
                a.apply(slot, randomCommand(r1));
                b.apply(slot, randomCommand(r2));
            }
            byte[] snap = a.snapshot();
            assertArrayEquals(snap, b.snapshot(), "same commands, same snapshot bytes");
            c.apply(1, new KvCommand.Put("stale", new byte[] {1}).encode());
            c.restore(snap);
            assertArrayEquals(snap, c.snapshot(), "restore replaces the whole state");
            assertEquals(a.size(), c.size());
        }
    }

    @Test
    void aBadSnapshotIsRejectedWithAClearError() throws Exception {
        try (RocksKvStateMachine a = new RocksKvStateMachine(dir.resolve("a"))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> a.restore(new byte[] {0, 0, 0, 1, 0x7F, 0, 0, 0}));
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("snapshot"), e.getMessage());
        }
    }

    @Test
    void stateSurvivesReopen() throws Exception {
        try (RocksKvStateMachine a = new RocksKvStateMachine(dir.resolve("a"))) {
            a.apply(1, new KvCommand.Put("x", new byte[] {4}).encode());
        }
        try (RocksKvStateMachine a = new RocksKvStateMachine(dir.resolve("a"))) {
            assertEquals(1, a.appliedSlot());
            assertEquals(1, a.size());
        }
    }
}
