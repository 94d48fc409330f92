package io.synod.server.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.kv.KvStateMachine;
import io.synod.core.paxos.SnapshotSource;
import io.synod.core.paxos.StateMachine;
import io.synod.protocol.KvCommand;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deferred follower rebuild over RocksDB: a command sequence applied partly from deferral headers (then rebuilt)
 * gives the same results, versions, watch events and (once resolved) snapshots as applying every command whole;
 * unresolved keys survive a restart in the store; forged values are refused.
 */
class RocksDeferredRebuildTest {
    @TempDir
    Path dir;

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static int crc(byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(payload);
        return (int) crc.getValue();
    }

    private static byte[] applyDeferred(StateMachine machine, long slot, byte[] payload) {
        byte[] header = machine.deferralHeader(payload);
        return machine.applyDeferred(slot, header, payload.length, crc(payload), null);
    }

    /** A random command with values long enough to be deferred, a third of them session commands. */
    private static byte[] randomCommand(SplittableRandom r, long slot, List<Long> grants) {
        if (r.nextInt(4) == 0) {
            String key = "k" + r.nextInt(8);
            byte[] value = new byte[1 + r.nextInt(40)];
            r.nextBytes(value);
            return r.nextBoolean() ? new KvCommand.Put(key, value).encode() : new KvCommand.AppendNote(key, r.nextLong(), value).encode();
        }
        return RocksKvStateMachineTest.randomMixedCommand(r, slot, grants);
    }

    @Test
    void aDeferredSequenceGivesTheSameResultsVersionsEventsAndSnapshotsAsTheWholeCommands() throws Exception {
        SplittableRandom r = new SplittableRandom(11);
        List<Long> grants = new ArrayList<>();
        Map<Long, byte[]> payloads = new HashMap<>();
        int deferredApplies = 0;
        int resolvedBeforeCommands = 0;
        int reopens = 0;
        int snapshots = 0;
        long eventsSince = 1; // A reopened machine's watch log starts after its durable state.
        RocksKvStateMachine rocksDeferred = new RocksKvStateMachine(dir.resolve("deferred"));
        try (RocksKvStateMachine rocksWhole = new RocksKvStateMachine(dir.resolve("whole"))) {
            for (long slot = 1; slot <= 3_000; slot++) {
                byte[] cmd = randomCommand(r, slot, grants);
                payloads.put(slot, cmd);
                byte[] expected = rocksWhole.apply(slot, cmd);
                byte[] header = rocksDeferred.deferralHeader(cmd);
                if (header != null && r.nextInt(4) != 0) {
                    // What a follower does with a coded entry it cannot rebuild locally.
                    assertArrayEquals(expected, applyDeferred(rocksDeferred, slot, cmd), "deferred, slot " + slot);
                    deferredApplies++;
                } else {
                    // What the learner does before applying any other command: rebuild what it reads.
                    for (long s : rocksDeferred.unresolvedSlotsFor(cmd)) {
                        rocksDeferred.resolve(s, payloads.get(s));
                        resolvedBeforeCommands++;
                    }
                    assertArrayEquals(expected, rocksDeferred.apply(slot, cmd), "slot " + slot);
                }
                if (r.nextInt(5) == 0) {
                    rocksDeferred.commitApplied();
                }
                if (r.nextInt(200) == 0) {
                    // A restart: what was written (everything, after commitApplied) comes back, unresolved keys included.
                    long[] unresolved = rocksDeferred.unresolvedSlots();
                    rocksDeferred.close();
                    rocksDeferred = new RocksKvStateMachine(dir.resolve("deferred"));
                    assertEquals(slot, rocksDeferred.durableAppliedSlot());
                    assertArrayEquals(unresolved, rocksDeferred.unresolvedSlots(), "reopened at " + slot);
                    reopens++;
                    eventsSince = slot + 1;
                }
                if (slot % 150 == 0) {
                    // A snapshot is due: refused while anything is unresolved, then every key is resolved (rule 5).
                    if (rocksDeferred.unresolvedSlots().length > 0) {
                        RocksKvStateMachine machine = rocksDeferred;
                        long at = slot;
                        assertThrows(IllegalStateException.class, machine::snapshot);
                        assertThrows(IllegalStateException.class, () -> machine.snapshotSource(at));
                    }
                    for (long s : rocksDeferred.unresolvedSlots()) {
                        rocksDeferred.resolve(s, payloads.get(s));
                    }
                    assertEquals(0, rocksDeferred.unresolvedKeys());
                    assertArrayEquals(rocksWhole.snapshot(), rocksDeferred.snapshot(), "snapshot at " + slot);
                    assertEquals(rocksWhole.watchLog().read(eventsSince, 0, "", true, 100_000).events(),
                            rocksDeferred.watchLog().read(eventsSince, 0, "", true, 100_000).events(), "watch events at " + slot);
                    snapshots++;
                }
            }
        } finally {
            rocksDeferred.close();
        }
        assertTrue(deferredApplies > 300 && resolvedBeforeCommands > 50 && reopens > 3 && snapshots == 20,
                deferredApplies + " deferred applies, " + resolvedBeforeCommands + " rebuilt before a command, " + reopens
                        + " reopens");
    }

    @Test
    void aDeferredPutReadsLikeTheWholePutOnceResolvedAndOnlyThen() throws Exception {
        byte[] put = new KvCommand.Put("k", bytes("the value of k")).encode();
        byte[] get = new KvCommand.GetVersioned("k").encode();
        KvStateMachine core = new KvStateMachine();
        try (RocksKvStateMachine whole = new RocksKvStateMachine(dir.resolve("whole"));
                RocksKvStateMachine machine = new RocksKvStateMachine(dir.resolve("deferred"))) {
            assertArrayEquals(whole.apply(7, put), applyDeferred(machine, 7, put));
            applyDeferred(core, 7, put);
            assertArrayEquals(new long[] {7}, machine.unresolvedSlotsFor(get));
            assertArrayEquals(new long[] {7}, machine.unresolvedSlotsFor(new KvCommand.CompareAndSet("k", null, bytes("x")).encode()));
            assertArrayEquals(new long[] {7}, machine.unresolvedSlotsFor(new KvCommand.Scan("a", "z", 10).encode()));
            assertEquals(0, machine.unresolvedSlotsFor(new KvCommand.Scan("l", "z", 10).encode()).length);
            assertEquals(0, machine.unresolvedSlotsFor(new KvCommand.Put("k", bytes("next")).encode()).length);
            assertEquals(0, machine.unresolvedSlotsFor(new KvCommand.Get("other").encode()).length);
            assertArrayEquals(core.unresolvedSlotsFor(new io.synod.protocol.SessionCommand.KeepAlive(3).encode()),
                    machine.unresolvedSlotsFor(new io.synod.protocol.SessionCommand.KeepAlive(3).encode()));

            byte[] forged = put.clone();
            forged[forged.length - 1] ^= 1;
            assertThrows(IllegalStateException.class, () -> machine.resolve(7, forged));
            byte[] otherLength = new KvCommand.Put("k", bytes("another value")).encode();
            assertThrows(IllegalStateException.class, () -> machine.resolve(7, otherLength));
            machine.resolve(6, put); // Not the slot it was written at: ignored.
            assertArrayEquals(new long[] {7}, machine.unresolvedSlots());

            machine.resolve(7, put);
            assertEquals(0, machine.unresolvedKeys());
            assertArrayEquals(whole.read(get), machine.read(get));
            assertArrayEquals(whole.snapshot(), machine.snapshot());
        }
    }

    @Test
    void anOverwriteOrDeleteDropsTheUnresolvedBytesDurably() throws Exception {
        Path path = dir.resolve("m");
        try (RocksKvStateMachine machine = new RocksKvStateMachine(path)) {
            applyDeferred(machine, 1, new KvCommand.Put("a", bytes("first a")).encode());
            applyDeferred(machine, 2, new KvCommand.Put("b", bytes("first b")).encode());
            applyDeferred(machine, 3, new KvCommand.Put("c", bytes("first c")).encode());
            applyDeferred(machine, 4, new KvCommand.AppendNote("list", 5, bytes("a note")).encode());
            assertArrayEquals(new long[] {1, 2, 3}, machine.unresolvedSlots(), "a note is not state here");
            machine.apply(5, new KvCommand.Put("a", bytes("second a")).encode());
            machine.apply(6, new KvCommand.Delete("b").encode());
            machine.apply(7, new KvCommand.CasVersion("c", 3, bytes("second c")).encode());
            assertEquals(0, machine.unresolvedSlots().length);
        }
        try (RocksKvStateMachine machine = new RocksKvStateMachine(path)) {
            assertEquals(0, machine.unresolvedSlots().length, "the drops were written with the data");
            machine.snapshotSource(7); // Nothing unresolved: allowed.
        }
    }

    @Test
    void aRestartKeepsUnresolvedKeysAndAResolveAfterItServesTheBytes() throws Exception {
        Path path = dir.resolve("m");
        byte[] put = new KvCommand.Put("k", bytes("a value that is deferred")).encode();
        try (RocksKvStateMachine machine = new RocksKvStateMachine(path)) {
            applyDeferred(machine, 1, put);
        } // close() writes what is staged, like the group loop's batch after each pass.
        try (RocksKvStateMachine machine = new RocksKvStateMachine(path)) {
            assertArrayEquals(new long[] {1}, machine.unresolvedSlots());
            assertArrayEquals(new long[] {1}, machine.unresolvedSlotsFor(new KvCommand.Get("k").encode()));
            machine.resolve(1, put);
        }
        try (RocksKvStateMachine machine = new RocksKvStateMachine(path)) {
            assertEquals(0, machine.unresolvedKeys());
            assertArrayEquals(new io.synod.protocol.KvResult.Versioned(bytes("a value that is deferred"), 1).encode(),
                    machine.read(new KvCommand.GetVersioned("k").encode()));
        }
    }

    @Test
    void aCrashBeforeTheBatchLosesTheDeferredApplyAndItsRecordTogether() throws Exception {
        Path path = dir.resolve("m");
        RocksKvStateMachine machine = new RocksKvStateMachine(path);
        machine.apply(1, new KvCommand.Put("x", bytes("x")).encode());
        machine.commitApplied();
        applyDeferred(machine, 2, new KvCommand.Put("k", bytes("never written")).encode());
        machine.closeWithoutWriting();
        try (RocksKvStateMachine reopened = new RocksKvStateMachine(path)) {
            assertEquals(1, reopened.durableAppliedSlot());
            assertEquals(0, reopened.unresolvedKeys());
        }
    }

    @Test
    void aPeersSnapshotResolvesKeysAtOrBelowItsSlotAndIsCheckedAgainstTheRecordedChecksum() throws Exception {
        byte[] a1 = new KvCommand.Put("a", bytes("value of a")).encode();
        byte[] b2 = new KvCommand.Put("b", bytes("value of b")).encode();
        byte[] c3 = new KvCommand.Put("c", bytes("value of c")).encode();
        try (RocksKvStateMachine peer = new RocksKvStateMachine(dir.resolve("peer"));
                RocksKvStateMachine machine = new RocksKvStateMachine(dir.resolve("m"));
                RocksKvStateMachine liar = new RocksKvStateMachine(dir.resolve("liar"))) {
            peer.apply(1, a1);
            peer.apply(2, b2);
            SnapshotSource checkpoint = peer.snapshotSource(2);
            applyDeferred(machine, 1, a1);
            applyDeferred(machine, 2, b2);
            applyDeferred(machine, 3, c3);
            machine.resolveFrom(2, checkpoint);
            assertArrayEquals(new long[] {3}, machine.unresolvedSlots(), "c was written after the snapshot's slot");
            assertArrayEquals(peer.read(new KvCommand.GetVersioned("a").encode()),
                    machine.read(new KvCommand.GetVersioned("a").encode()));
            assertArrayEquals(peer.read(new KvCommand.GetVersioned("b").encode()),
                    machine.read(new KvCommand.GetVersioned("b").encode()));
            // Snapshot bytes work too; a snapshot whose value differs from the recorded checksum is refused.
            peer.apply(3, c3);
            machine.resolveFrom(3, SnapshotSource.ofBytes(peer.snapshot()));
            assertEquals(0, machine.unresolvedKeys());

            liar.apply(1, new KvCommand.Put("a", bytes("value of A")).encode());
            try (RocksKvStateMachine victim = new RocksKvStateMachine(dir.resolve("victim"))) {
                applyDeferred(victim, 1, a1);
                SnapshotSource lie = SnapshotSource.ofBytes(liar.snapshot());
                assertThrows(IllegalStateException.class, () -> victim.resolveFrom(1, lie));
                assertEquals(1, victim.unresolvedKeys());
            }
        }
    }

    @Test
    void aBadHeaderIsRefusedByName() throws Exception {
        try (RocksKvStateMachine machine = new RocksKvStateMachine(dir.resolve("m"))) {
            byte[] put = new KvCommand.Put("k", bytes("value")).encode();
            byte[] header = machine.deferralHeader(put);
            IllegalArgumentException wrongLength = assertThrows(IllegalArgumentException.class,
                    () -> machine.applyDeferred(1, header, put.length + 1, crc(put), null));
            assertTrue(wrongLength.getMessage().contains("value bytes"), wrongLength.getMessage());
            byte[] notAPut = header.clone();
            notAPut[0] = KvCommand.TAG_PUT + 2;
            assertThrows(IllegalArgumentException.class, () -> machine.applyDeferred(1, notAPut, put.length, crc(put), null));
            assertEquals(0, machine.unresolvedKeys());
        }
    }
}
