package io.synod.core.paxos;

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
}
