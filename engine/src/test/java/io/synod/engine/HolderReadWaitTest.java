package io.synod.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.paxos.Role;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which refused quorum-lease reads wait for the holder to catch up, and for how long (time is passed in). */
class HolderReadWaitTest {
    private static final long WAIT = 100_000_000L;
    private static final int SELF = 2;
    private static final long HOLDERS_WITH_SELF = (1L << 0) | (1L << SELF);

    @Test
    void aReadOfAKeyThisFollowerHoldsWaitsUntilItsTimeIsUp() {
        HolderReadWait<String> wait = new HolderReadWait<>(WAIT);
        assertTrue(wait.park("a", HOLDERS_WITH_SELF, SELF, Role.FOLLOWER, 1_000, 1_000));
        assertTrue(wait.park("b", HOLDERS_WITH_SELF, SELF, Role.FOLLOWER, 1_000, 1_000 + WAIT - 1));
        assertFalse(wait.park("c", HOLDERS_WITH_SELF, SELF, Role.FOLLOWER, 1_000, 1_000 + WAIT),
                "a read that arrived the whole wait ago is refused");
        assertEquals(List.of("a", "b"), wait.takeAll());
        assertTrue(wait.isEmpty());
    }

    @Test
    void otherReadsAreRefusedAtOnce() {
        HolderReadWait<String> wait = new HolderReadWait<>(WAIT);
        assertFalse(wait.park("not a holder", 1L << 0, SELF, Role.FOLLOWER, 0, 0));
        assertFalse(wait.park("no holder set", -1, SELF, Role.FOLLOWER, 0, 0));
        assertFalse(wait.park("candidate", HOLDERS_WITH_SELF, SELF, Role.CANDIDATE, 0, 0));
        assertFalse(new HolderReadWait<String>(0).park("no wait configured", HOLDERS_WITH_SELF, SELF, Role.FOLLOWER, 0, 0));
        assertTrue(wait.isEmpty());
    }

    @Test
    void theNumberWaitingIsBounded() {
        HolderReadWait<Integer> wait = new HolderReadWait<>(WAIT);
        for (int i = 0; i < HolderReadWait.MAX_WAITING; i++) {
            assertTrue(wait.park(i, HOLDERS_WITH_SELF, SELF, Role.FOLLOWER, 0, 0));
        }
        assertFalse(wait.park(-1, HOLDERS_WITH_SELF, SELF, Role.FOLLOWER, 0, 0), "one more is refused");
        assertEquals(HolderReadWait.MAX_WAITING, wait.takeAll().size());
        assertThrows(IllegalArgumentException.class, () -> new HolderReadWait<String>(-1));
    }
}
