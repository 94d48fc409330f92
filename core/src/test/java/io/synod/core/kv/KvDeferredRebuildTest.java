package io.synod.core.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.synod.core.paxos.SnapshotSource;
import io.synod.protocol.KvCommand;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Deferred follower rebuild in the key-value machine: a Put (or, keeping notes, an AppendNote) applied
 * from its header has exactly the effects and result of the whole command except its bytes, which stay
 * unresolved until resolved; what reads them asks for their slot; snapshots refuse unresolved keys.
 */
class KvDeferredRebuildTest {
    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static int crc(byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(payload);
        return (int) crc.getValue();
    }

    private static byte[] applyDeferred(KvStateMachine machine, long slot, byte[] payload) {
        byte[] header = machine.deferralHeader(payload);
        return machine.applyDeferred(slot, header, payload.length, crc(payload), null);
    }

    @Test
    void aDeferredPutHasTheWholePutsResultVersionAndWatchEventButNoBytesUntilResolved() {
        KvStateMachine whole = new KvStateMachine();
        KvStateMachine deferred = new KvStateMachine();
        byte[] put = new KvCommand.Put("k", bytes("the value of k")).encode();
        assertArrayEquals(whole.apply(7, put), applyDeferred(deferred, 7, put));
        assertArrayEquals(new long[] {7}, deferred.unresolvedSlots());
        byte[] get = new KvCommand.GetVersioned("k").encode();
        assertArrayEquals(new long[] {7}, deferred.unresolvedSlotsFor(get));
        assertArrayEquals(new long[] {7}, deferred.unresolvedSlotsFor(new KvCommand.CompareAndSet("k", null, bytes("x")).encode()));
        assertArrayEquals(new long[] {7}, deferred.unresolvedSlotsFor(new KvCommand.Scan("a", "z", 10).encode()));
        assertEquals(0, deferred.unresolvedSlotsFor(new KvCommand.Get("other").encode()).length);
        assertEquals(0, deferred.unresolvedSlotsFor(new KvCommand.Put("k", bytes("next")).encode()).length);
        assertEquals(whole.watchLog().read(0, 0, "", true, 10), deferred.watchLog().read(0, 0, "", true, 10));
        assertThrows(IllegalStateException.class, deferred::snapshot);

        deferred.resolve(7, put);
        assertEquals(0, deferred.unresolvedSlots().length);
        assertArrayEquals(whole.read(get), deferred.read(get));
        assertArrayEquals(whole.snapshot(), deferred.snapshot());
    }

    @Test
    void aValueThatDoesNotMatchTheHeaderOrChecksumIsRefused() {
        KvStateMachine machine = new KvStateMachine();
        byte[] put = new KvCommand.Put("k", bytes("the value of k")).encode();
        applyDeferred(machine, 3, put);
        byte[] forged = put.clone();
        forged[forged.length - 1] ^= 1;
        assertThrows(IllegalStateException.class, () -> machine.resolve(3, forged));
        byte[] otherLength = new KvCommand.Put("k", bytes("another value")).encode();
        assertThrows(IllegalStateException.class, () -> machine.resolve(3, otherLength));
        assertArrayEquals(new long[] {3}, machine.unresolvedSlots());
        machine.resolve(2, put); // Not the slot it was written at: ignored.
        assertArrayEquals(new long[] {3}, machine.unresolvedSlots());
    }

    @Test
    void anOverwriteOrDeleteDropsTheUnresolvedBytes() {
        KvStateMachine machine = new KvStateMachine();
        applyDeferred(machine, 1, new KvCommand.Put("a", bytes("first a")).encode());
        applyDeferred(machine, 2, new KvCommand.Put("b", bytes("first b")).encode());
        machine.apply(3, new KvCommand.Put("a", bytes("second a")).encode());
        machine.apply(4, new KvCommand.Delete("b").encode());
        assertEquals(0, machine.unresolvedSlots().length);
        machine.snapshot(); // Nothing unresolved: allowed.
    }

    @Test
    void aPutOnAListKeyIsTheSameErrorDeferredAndNothingIsLeftUnresolved() {
        KvStateMachine whole = new KvStateMachine();
        KvStateMachine deferred = new KvStateMachine();
        byte[] append = new KvCommand.Append("l", 1).encode();
        whole.apply(1, append);
        deferred.apply(1, append);
        byte[] put = new KvCommand.Put("l", bytes("not a list")).encode();
        assertArrayEquals(whole.apply(2, put), applyDeferred(deferred, 2, put));
        assertEquals(0, deferred.unresolvedSlots().length);
    }

    @Test
    void onlyPutsAndAppendNotesWithBytesHaveAHeader() {
        KvStateMachine machine = new KvStateMachine();
        assertNull(machine.deferralHeader(new KvCommand.Put("k", new byte[0]).encode()));
        assertNull(machine.deferralHeader(new KvCommand.CompareAndSet("k", null, bytes("v")).encode()));
        assertNull(machine.deferralHeader(new KvCommand.Append("k", 3).encode()));
        assertNull(machine.deferralHeader(new byte[] {99, 0}));
        byte[] put = new KvCommand.Put("key", bytes("value")).encode();
        assertArrayEquals(Arrays.copyOf(put, put.length - 5), machine.deferralHeader(put));
    }

    @Test
    void keptNotesAreDeferredLikeValuesAndReadsCarryTheLastNotesChecksum() {
        KvStateMachine whole = new KvStateMachine(true);
        KvStateMachine deferred = new KvStateMachine(true);
        byte[] first = new KvCommand.AppendNote("l", 1, bytes("note one")).encode();
        byte[] second = new KvCommand.AppendNote("l", 2, bytes("note two, longer")).encode();
        whole.apply(1, first);
        deferred.apply(1, first);
        assertArrayEquals(whole.apply(2, second), applyDeferred(deferred, 2, second));
        byte[] read = new KvCommand.ReadList("l").encode();
        assertArrayEquals(new long[] {2}, deferred.unresolvedSlotsFor(read));
        // Served unresolved (the negative control's bug), the read carries the first note's checksum.
        byte[] stale = deferred.read(read);
        assertEquals(crc(bytes("note one")), tail(stale));
        assertEquals(crc(bytes("note two, longer")), tail(whole.read(read)));
        deferred.resolve(2, second);
        assertArrayEquals(whole.read(read), deferred.read(read));
        assertArrayEquals(whole.snapshot(), deferred.snapshot());
    }

    @Test
    void aPeersSnapshotResolvesKeysWrittenAtOrBelowItsSlot() {
        KvStateMachine peer = new KvStateMachine();
        KvStateMachine deferred = new KvStateMachine();
        byte[] a = new KvCommand.Put("a", bytes("value of a")).encode();
        byte[] b = new KvCommand.Put("b", bytes("value of b")).encode();
        peer.apply(5, a);
        applyDeferred(deferred, 5, a);
        byte[] peerState = peer.snapshot();
        peer.apply(6, b);
        applyDeferred(deferred, 6, b);
        deferred.resolveFrom(5, SnapshotSource.ofBytes(peerState));
        assertArrayEquals(new long[] {6}, deferred.unresolvedSlots());
        deferred.resolve(6, b);
        assertArrayEquals(peer.snapshot(), deferred.snapshot());
    }

    @Test
    void aSnapshotWithOtherBytesForTheKeyIsRefused() {
        KvStateMachine peer = new KvStateMachine();
        KvStateMachine deferred = new KvStateMachine();
        peer.apply(5, new KvCommand.Put("a", bytes("other bytes")).encode());
        applyDeferred(deferred, 5, new KvCommand.Put("a", bytes("value of a")).encode());
        assertThrows(IllegalStateException.class, () -> deferred.resolveFrom(5, SnapshotSource.ofBytes(peer.snapshot())));
    }

    private static int tail(byte[] result) {
        return java.nio.ByteBuffer.wrap(result, result.length - 4, 4).getInt();
    }
}
