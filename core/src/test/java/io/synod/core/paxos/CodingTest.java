package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The RS-Paxos quorum arithmetic (Mu et al. 2014, §4), the coding choice and the bounded value cache. */
class CodingTest {
    @Test
    void quorumsFollowThePaper() {
        Coding five = Coding.rsPaxos(5, 1, 3, 100);
        assertEquals(4, five.readQuorum());
        assertEquals(4, five.writeQuorum(3));
        assertEquals(2, five.writeQuorum(1));
        Coding seven = Coding.rsPaxos(7, 2, 3, 100);
        assertEquals(5, seven.readQuorum());
        assertEquals(5, seven.writeQuorum(3));
        assertEquals(3, seven.writeQuorum(1));
        // Any read quorum meets any write quorum in at least X acceptors: Q_R + Q_W(X) - N = X.
        for (int x = 1; x <= 3; x++) {
            assertEquals(x, seven.readQuorum() + seven.writeQuorum(x) - 7);
        }
        QuorumPolicy quorum = five.quorum();
        assertEquals(4, quorum.phase1Quorum(5));
        Entry coded = new Entry(1, new Ballot(1, 0), new Command(1, 1, new byte[0]), new CodedValue(3, 5, 300, 7, null));
        Entry plain = new Entry(1, new Ballot(1, 0), new Command(1, 1, new byte[10]));
        assertFalse(quorum.isWriteQuorum(coded, 3, 5));
        assertTrue(quorum.isWriteQuorum(coded, 4, 5));
        assertTrue(quorum.isWriteQuorum(plain, 2, 5));
    }

    @Test
    void valuesAtOrAboveTheThresholdAreCoded() {
        Coding coding = Coding.rsPaxos(5, 1, 3, 100);
        assertTrue(coding.codes(new Command(1, 1, new byte[100])));
        assertFalse(coding.codes(new Command(1, 1, new byte[99])));
        assertFalse(coding.codes(Command.NOOP));
        assertFalse(Coding.rsPaxos(5, 1, 1, 100).codes(new Command(1, 1, new byte[1000])), "X = 1 is plain Paxos");
        assertFalse(Coding.OFF.codes(new Command(1, 1, new byte[1 << 20])));
    }

    @Test
    void impossibleParametersAreRejectedByName() {
        assertEquals("coding needs 1 <= X <= N - 2F = 3, got X=4",
                assertThrows(IllegalArgumentException.class, () -> Coding.rsPaxos(5, 1, 4, 1)).getMessage());
        assertEquals("coding needs 1 <= F and 2F < N, got N=4 F=2",
                assertThrows(IllegalArgumentException.class, () -> Coding.rsPaxos(4, 2, 1, 1)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Coding.rsPaxos(5, 1, 3, 0));
        assertThrows(IllegalArgumentException.class, () -> Coding.rsPaxos(2, 0, 1, 10));
    }

    @Test
    void theValueCacheIsBoundedAndMatchesTheValueNotJustTheSlot() {
        ValueCache cache = new ValueCache(2, 1000);
        CodedValue coding = new CodedValue(3, 5, 4, 99, null);
        Command a = new Command(1, 1, new byte[] {1, 2, 3, 4});
        cache.put(1, a, coding);
        Entry stub = new Entry(1, new Ballot(1, 0), new Command(1, 1, new byte[0]), coding);
        assertNotNull(cache.get(stub));
        assertNull(cache.get(new Entry(1, new Ballot(1, 0), new Command(2, 1, new byte[0]), coding)), "another value in that slot");
        cache.put(2, a, coding);
        cache.put(3, a, coding);
        assertNull(cache.get(stub), "evicted: at most two values");
        ValueCache small = new ValueCache(100, 6);
        small.put(1, a, coding);
        small.put(2, a, coding);
        assertNull(small.get(stub), "evicted: at most 6 bytes");
    }

    @Test
    void aCodingChangeRoundTripsThroughItsCommandAndKeepsTheGroupsFlags() {
        Coding base = Coding.rsPaxos(5, 1, 3, 512).withDeferredRebuild().withCache(7, 700);
        Coding next = base.withChange(2, 1, 100);
        assertEquals(5, next.nodes());
        assertEquals(2, next.failures());
        assertEquals(1, next.dataShards());
        assertEquals(100, next.thresholdBytes());
        assertTrue(next.defersRebuild());
        assertEquals(7, next.cacheEntries());
        Command change = next.changeCommand();
        assertTrue(Coding.isChange(change));
        assertFalse(next.codes(change), "a change entry is never coded");
        assertTrue(base.after(change).sameParameters(next));
        assertEquals(2, Coding.failuresAfter(change));
        assertTrue(Coding.decodeParameters(base, next.encodeParameters()).sameParameters(next));
        assertEquals("coding change is for N=7, the group has N=5", assertThrows(IllegalArgumentException.class,
                () -> base.after(Coding.rsPaxos(7, 1, 3, 512).changeCommand())).getMessage());
        assertThrows(IllegalArgumentException.class, () -> base.after(new Command(Coding.CHANGE_CLIENT, 0, new byte[19])));
        assertThrows(IllegalArgumentException.class, () -> base.withChange(1, 4, 512), "X > N - 2F");
        assertThrows(IllegalStateException.class, () -> Coding.OFF.withChange(1, 1, 1));
    }

    @Test
    void perSlotQuorumsUseTheSlotsFailuresAndTheEntrysOwnX() {
        QuorumPolicy quorum = Coding.rsPaxos(7, 2, 3, 512).quorum();
        Entry coded = new Entry(1, new Ballot(1, 0), new Command(1, 1, new byte[0]), new CodedValue(5, 7, 900, 1, null));
        Entry plain = new Entry(2, new Ballot(1, 0), new Command(1, 2, new byte[] {1}));
        assertFalse(quorum.isWriteQuorum(coded, 1, 5, 7), "X = 5 under F = 1 needs 6");
        assertTrue(quorum.isWriteQuorum(coded, 1, 6, 7));
        assertFalse(quorum.isWriteQuorum(plain, 2, 2, 7), "plain under F = 2 needs 3");
        assertTrue(quorum.isWriteQuorum(plain, 1, 2, 7), "plain under F = 1 needs 2");
        assertEquals(6, quorum.phase1Quorum(7, 1), "N - min F");
        assertEquals(5, quorum.phase1Quorum(7, 2));
        assertEquals(3, QuorumPolicy.MAJORITY.phase1Quorum(5, 1), "majorities ignore F");
    }

    @Test
    void theSessionTableCarriesTheCodingOnlyOnceItChanged() {
        ClientSessions sessions = new ClientSessions(10);
        sessions.recordApplied(4, 1, 3, new byte[] {9});
        byte[] plain = sessions.encode();
        assertNull(ClientSessions.trailerOf(plain), "format 1 has no trailer");
        byte[] trailer = Coding.rsPaxos(5, 2, 1, 64).encodeParameters();
        byte[] withCoding = sessions.encode(trailer);
        assertArrayEquals(trailer, ClientSessions.trailerOf(withCoding));
        ClientSessions restored = new ClientSessions(10);
        assertArrayEquals(trailer, restored.restoreWithTrailer(withCoding));
        assertArrayEquals(plain, restored.encode(), "the sessions themselves are the same");
        byte[] truncated = java.util.Arrays.copyOf(withCoding, withCoding.length - 1);
        assertThrows(IllegalArgumentException.class, () -> ClientSessions.trailerOf(truncated));
    }
}
