package io.synod.server.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.synod.core.kv.KvStateMachine;
import io.synod.protocol.KvCommand;
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

    /** A random command, a third of them session commands on the sessions granted so far ({@code grants}: their slots). */
    /** Session owners and who asks (by slot, so the random sequence of commands stays as it was): ownership applies alike. */
    private static final String[] OWNERS = {"", "alice", "bob"};
    private static final String[] PRINCIPALS = {"", "alice", "bob", io.synod.protocol.SessionOwnership.ANY};

    static byte[] randomMixedCommand(SplittableRandom r, long slot, java.util.List<Long> grants) {
        if (r.nextInt(3) != 0) {
            return randomCommand(r);
        }
        long session = grants.isEmpty() || r.nextInt(10) == 0 ? (r.nextBoolean() ? 0 : 999_999)
                : grants.get(r.nextInt(grants.size()));
        String key = r.nextBoolean() ? "k" + r.nextInt(8) : "lock/" + (r.nextBoolean() ? "a" : "b") + "/n-";
        byte[] value = new byte[r.nextInt(3)];
        r.nextBytes(value);
        io.synod.protocol.SessionCommand c = switch (r.nextInt(10)) {
            case 0 -> {
                grants.add(slot);
                yield new io.synod.protocol.SessionCommand.Grant(1 + r.nextInt(10_000), OWNERS[(int) (slot % 3)]);
            }
            case 1 -> new io.synod.protocol.SessionCommand.KeepAlive(session, PRINCIPALS[(int) (slot % 4)]);
            case 2 -> new io.synod.protocol.SessionCommand.Expire(session, r.nextBoolean() ? session : slot - 1 - r.nextInt(5));
            case 3 -> new io.synod.protocol.SessionCommand.Revoke(session, PRINCIPALS[(int) (slot % 4)]);
            case 4, 5 -> new io.synod.protocol.SessionCommand.Create(key, value, session, key.startsWith("lock/") || r.nextInt(4) == 0);
            case 6 -> new io.synod.protocol.SessionCommand.DeleteIf(r.nextBoolean() ? "k" + r.nextInt(8) : "lock/a/n-000000000" + r.nextInt(3),
                    r.nextBoolean() ? io.synod.protocol.SessionCommand.ANY_TOKEN : slot - 1 - r.nextInt(30));
            case 7 -> new io.synod.protocol.SessionCommand.GetEntry(r.nextBoolean() ? "k" + r.nextInt(8) : "lock/a/n-000000000" + r.nextInt(3));
            default -> new io.synod.protocol.SessionCommand.ListPrefix(r.nextBoolean() ? "lock/" : "k", 1 + r.nextInt(6));
        };
        return c.encode();
    }

    /**
     * The store under the one machine does not change its answers: over RocksDB, with its batch written at random
     * pass boundaries (and scans writing it early), every result, read, session table, watch event and snapshot is
     * the one the same machine gives over the in-memory store, which writes each command at once. The meaning of the
     * commands is checked against reference models in core ({@code KvCommandsPropertyTest},
     * {@code KvSessionsPropertyTest}); this checks the storage.
     */
    @Test
    void overRocksDbCommittedAtAnyPassBoundaryTheMachineAnswersAsInMemory() throws Exception {
        SplittableRandom r = new SplittableRandom(4242);
        KvStateMachine reference = new KvStateMachine();
        java.util.List<Long> grants = new java.util.ArrayList<>();
        int created = 0;
        int ended = 0;
        try (RocksKvStateMachine rocks = new RocksKvStateMachine(dir.resolve("a"));
                RocksKvStateMachine copy = new RocksKvStateMachine(dir.resolve("b"))) {
            for (long slot = 1; slot <= 3_000; slot++) {
                byte[] cmd = randomMixedCommand(r, slot, grants);
                byte[] expected = reference.apply(slot, cmd);
                assertArrayEquals(expected, rocks.apply(slot, cmd), "slot " + slot);
                if (reference.isReadOnly(cmd)) {
                    assertArrayEquals(reference.read(cmd), rocks.read(cmd), "read at slot " + slot);
                }
                if (io.synod.protocol.SessionResult.isSessionResult(expected)) {
                    io.synod.protocol.SessionResult result = io.synod.protocol.SessionResult.decode(expected);
                    created += result instanceof io.synod.protocol.SessionResult.Created ? 1 : 0;
                    io.synod.protocol.SessionCommand command = io.synod.protocol.SessionCommand.decode(cmd);
                    ended += (command instanceof io.synod.protocol.SessionCommand.Revoke
                            || command instanceof io.synod.protocol.SessionCommand.Expire)
                            && result.equals(new io.synod.protocol.SessionResult.Applied(true)) ? 1 : 0;
                }
                if (r.nextInt(7) == 0) {
                    rocks.commitApplied();
                }
                if (slot % 250 == 0) {
                    reference.sessions().checkInvariants();
                    assertEquals(reference.sessions().sessions(), rocks.liveSessions(), "session table at slot " + slot);
                    assertEquals(reference.watchLog().read(1, 0, "", true, 100_000),
                            rocks.watchLog().read(1, 0, "", true, 100_000), "watch events at slot " + slot);
                    copy.restore(rocks.snapshot());
                    assertArrayEquals(rocks.snapshot(), copy.snapshot(), "the snapshot carries the session tables");
                    assertEquals(reference.sessions().sessions(), copy.liveSessions(), "restored session table");
                }
            }
            assertSameData(reference, rocks);
            // The comparison exercised what it is about.
            org.junit.jupiter.api.Assertions.assertTrue(grants.size() > 50 && created > 40 && ended > 20,
                    grants.size() + " grants, " + created + " creates, " + ended + " revokes");
        }
    }

    @Test
    void anUnknownSnapshotVersionIsRefusedByName() throws Exception {
        try (RocksKvStateMachine a = new RocksKvStateMachine(dir.resolve("a"))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> a.restore(new byte[] {0, 0, 0, 9, 0, 0, 0, 0}));
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("version 9"), e.getMessage());
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

    private static byte[] put(String key, int value) {
        return new KvCommand.Put(key, new byte[] {(byte) value}).encode();
    }

    /** Applies slots {@code from..to} as client {@code 100 + slot % 3}'s commands, with their session writes. */
    private static void applyRange(RocksKvStateMachine m, KvStateMachine reference, long from, long to) {
        for (long slot = from; slot <= to; slot++) {
            byte[] cmd = put("k" + (slot % 5), (int) slot);
            m.apply(slot, cmd, new io.synod.core.paxos.StateMachine.SessionWrite(100 + slot % 3, slot, 0));
            if (reference != null) {
                reference.apply(slot, cmd);
            }
        }
    }

    @Test
    void aCrashBetweenBatchesLeavesDataAppliedSlotAndSessionsOfTheLastBatchOnly() throws Exception {
        KvStateMachine reference = new KvStateMachine();
        RocksKvStateMachine a = new RocksKvStateMachine(dir.resolve("a"));
        applyRange(a, reference, 1, 10);
        a.commitApplied(); // batch 1: slots 1..10
        applyRange(a, null, 11, 15); // batch 2 staged, then the process dies
        assertEquals(15, a.appliedSlot(), "reads see the staged batch");
        a.closeWithoutWriting();
        try (RocksKvStateMachine b = new RocksKvStateMachine(dir.resolve("a"))) {
            assertEquals(10, b.durableAppliedSlot(), "the applied slot of the last whole batch");
            assertSameData(reference, b); // exactly the data of slots 1..10, nothing of 11..15
            java.util.Map<Long, io.synod.core.paxos.AppliedState.ClientSession> sessions = new java.util.TreeMap<>();
            b.durableSessions().forEach(cs -> sessions.put(cs.clientId(), cs));
            assertEquals(3, sessions.size());
            for (long client = 100; client <= 102; client++) {
                long last = 10 - ((10 - (client - 100)) % 3); // the last slot <= 10 with slot % 3 == client - 100
                assertEquals(last, sessions.get(client).slot(), "client " + client);
                assertEquals(last, sessions.get(client).sequence(), "client " + client);
            }
            // The next batch goes on from slot 11 as if nothing happened.
            applyRange(b, reference, 11, 15);
            b.commitApplied();
            assertEquals(15, b.durableAppliedSlot());
            assertSameData(reference, b);
        }
    }

    @Test
    void anEvictedSessionLeavesRocksDbInTheSameBatch() throws Exception {
        try (RocksKvStateMachine a = new RocksKvStateMachine(dir.resolve("a"))) {
            a.apply(1, put("x", 1), new io.synod.core.paxos.StateMachine.SessionWrite(5, 1, 0));
            a.apply(2, put("y", 2), new io.synod.core.paxos.StateMachine.SessionWrite(6, 1, 5));
            a.commitApplied();
            assertEquals(1, a.durableSessions().size());
            assertEquals(6, a.durableSessions().get(0).clientId());
        }
    }

    /** Streams {@code source} into {@code sink} in chunks of {@code chunk} bytes. */
    static io.synod.core.paxos.SnapshotSource stream(io.synod.core.paxos.SnapshotSource source,
            io.synod.core.paxos.SnapshotSink sink, int chunk) {
        for (long at = 0; at < source.sizeBytes(); ) {
            byte[] piece = source.read(at, chunk);
            org.junit.jupiter.api.Assertions.assertTrue(piece.length <= chunk);
            sink.write(piece);
            at += piece.length;
        }
        return sink.finish();
    }

    @Test
    void aCheckpointStreamsInSmallChunksIntoAnotherRocksDbAndIsSwappedIn() throws Exception {
        KvStateMachine reference = new KvStateMachine();
        try (RocksKvStateMachine a = new RocksKvStateMachine(dir.resolve("a"));
                RocksKvStateMachine b = new RocksKvStateMachine(dir.resolve("b"))) {
            SplittableRandom r = new SplittableRandom(3);
            for (long slot = 1; slot <= 400; slot++) {
                byte[] cmd = randomCommand(r);
                a.apply(slot, cmd, new io.synod.core.paxos.StateMachine.SessionWrite(1 + slot % 4, slot, 0));
                reference.apply(slot, cmd);
            }
            b.apply(1, put("stale", 1));
            b.commitApplied();
            CheckpointSource taken = (CheckpointSource) a.snapshotSource(400);
            assertEquals(400, a.durableAppliedSlot(), "the checkpoint follows the staged batch");
            // The same checkpoint cut into 100-byte pieces, sent in 333-byte chunks.
            CheckpointSource source = new CheckpointSource(taken.dir(), 400, 100);
            org.junit.jupiter.api.Assertions.assertTrue(source.sizeBytes() > 20 * 333, "many chunks: " + source.sizeBytes());

            // A transfer cut midway is aborted: its temporary directory is gone.
            io.synod.core.paxos.SnapshotSink cut = b.snapshotSink(400);
            cut.write(source.read(0, 333));
            cut.write(source.read(333, 333));
            cut.abort();
            org.junit.jupiter.api.Assertions.assertTrue(incoming(dir.resolve("b-snapshots")).isEmpty(), "partial transfer removed");

            // A flipped byte in a piece is caught by its CRC32C.
            io.synod.core.paxos.SnapshotSink corrupt = b.snapshotSink(400);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
                for (long at = 0; at < source.sizeBytes(); ) {
                    byte[] piece = source.read(at, 333);
                    if (at >= 2000) {
                        piece[7] ^= 1;
                    }
                    corrupt.write(piece);
                    at += piece.length;
                }
            });
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("CRC32C"), e.getMessage());
            corrupt.abort();

            // A clean transfer restarts from offset 0 and is installed.
            io.synod.core.paxos.SnapshotSource received = stream(source, b.snapshotSink(400), 333);
            b.restore(400, received, a.durableSessions());
            assertEquals(400, b.durableAppliedSlot());
            assertSameData(reference, b); // b holds exactly a's data; its stale key is gone
            assertArrayEquals(a.snapshot(), b.snapshot());
            assertEquals(a.durableSessions().size(), b.durableSessions().size());
            byte[] get = new KvCommand.Get("k3").encode();
            assertArrayEquals(reference.read(get), b.read(get));
        }
        // The swapped-in database is the one that opens next time.
        try (RocksKvStateMachine b = new RocksKvStateMachine(dir.resolve("b"))) {
            assertEquals(400, b.durableAppliedSlot());
            assertSameData(reference, b);
        }
    }

    @Test
    void aSwapCutByACrashIsFinishedOrDiscardedAtOpen() throws Exception {
        try (RocksKvStateMachine a = new RocksKvStateMachine(dir.resolve("a"))) {
            a.apply(1, put("x", 1));
        }
        // Crash after "<db>" was renamed to "<db>.old", before "<db>.next" took its place.
        java.nio.file.Files.move(dir.resolve("a"), dir.resolve("a.old"));
        try (RocksKvStateMachine a = new RocksKvStateMachine(dir.resolve("a"))) {
            assertEquals(1, a.appliedSlot(), "without a new one the old database is taken back");
        }
        // A copy that was still being built (no rename yet) is discarded.
        java.nio.file.Files.createDirectories(dir.resolve("a.next"));
        try (RocksKvStateMachine a = new RocksKvStateMachine(dir.resolve("a"))) {
            assertEquals(1, a.appliedSlot());
        }
        org.junit.jupiter.api.Assertions.assertFalse(java.nio.file.Files.exists(dir.resolve("a.next")));
    }

    /** Every key the tests use reads the same in both machines. */
    private static void assertSameData(KvStateMachine reference, RocksKvStateMachine m) {
        for (String key : new String[] {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "stale"}) {
            byte[] get = new KvCommand.Get(key).encode();
            byte[] list = new KvCommand.ReadList(key).encode();
            assertArrayEquals(reference.read(get), m.read(get), key);
            assertArrayEquals(reference.read(list), m.read(list), key);
        }
        assertEquals(reference.size(), m.size(), "number of keys");
    }

    private static java.util.List<Path> incoming(Path snapshots) throws Exception {
        try (java.util.stream.Stream<Path> s = java.nio.file.Files.list(snapshots)) {
            return s.filter(p -> p.getFileName().toString().startsWith("incoming-")).toList();
        }
    }
}
