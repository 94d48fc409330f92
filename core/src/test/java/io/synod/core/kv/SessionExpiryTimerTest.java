package io.synod.core.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Command;
import io.synod.protocol.SessionCommand;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The leader's session timer: deadlines from what this leader learned and when, never from a follower's view. */
class SessionExpiryTimerTest {
    private static final long MS = 1_000_000L;

    private static KvStateMachine withSession(long grantSlot, long ttlMillis) {
        KvStateMachine machine = new KvStateMachine();
        machine.apply(grantSlot, new SessionCommand.Grant(ttlMillis).encode());
        return machine;
    }

    private static SessionCommand.Expire only(List<Command> commands) {
        assertEquals(1, commands.size(), commands.toString());
        return (SessionCommand.Expire) SessionCommand.decode(commands.get(0).payload());
    }

    @Test
    void aFollowerNeverExpiresAnything() {
        KvStateMachine machine = withSession(3, 10);
        SessionExpiryTimer timer = new SessionExpiryTimer(1, 8);
        for (long now = 0; now < 1_000 * MS; now += 5 * MS) {
            assertEquals(List.of(), timer.poll(null, now, machine.sessions()));
        }
    }

    @Test
    void aNewLeaderGivesEverySessionAFullTtlFromItsTakeover() {
        KvStateMachine machine = withSession(3, 10);
        SessionExpiryTimer timer = new SessionExpiryTimer(1, 8);
        Ballot ballot = new Ballot(4, 1);
        // As a follower for a long time: nothing counts towards expiry.
        timer.poll(null, 500 * MS, machine.sessions());
        assertEquals(List.of(), timer.poll(ballot, 600 * MS, machine.sessions()));
        assertEquals(List.of(), timer.poll(ballot, 609 * MS, machine.sessions()));
        SessionCommand.Expire expire = only(timer.poll(ballot, 610 * MS, machine.sessions()));
        assertEquals(new SessionCommand.Expire(3, 3), expire);
        // Proposed once; again only a TTL later if it still has not been applied.
        assertEquals(List.of(), timer.poll(ballot, 615 * MS, machine.sessions()));
        assertEquals(new SessionCommand.Expire(3, 3), only(timer.poll(ballot, 620 * MS, machine.sessions())));
    }

    @Test
    void aKeepAliveLearnedRestartsTheTtlAndTheExpiryNamesIt() {
        KvStateMachine machine = withSession(3, 10);
        SessionExpiryTimer timer = new SessionExpiryTimer(1, 8);
        Ballot ballot = new Ballot(4, 1);
        timer.poll(ballot, 0, machine.sessions());
        machine.apply(7, new SessionCommand.KeepAlive(3).encode());
        assertEquals(List.of(), timer.poll(ballot, 8 * MS, machine.sessions())); // learned at 8 ms
        assertEquals(List.of(), timer.poll(ballot, 17 * MS, machine.sessions()));
        assertEquals(new SessionCommand.Expire(3, 7), only(timer.poll(ballot, 18 * MS, machine.sessions())));
        machine.apply(9, new SessionCommand.Expire(3, 7).encode());
        assertTrue(!machine.sessions().isLive(3));
        assertEquals(List.of(), timer.poll(ballot, 100 * MS, machine.sessions()));
    }

    @Test
    void commandsOfLaterTermsHaveHigherSequencesAndAreBounded() {
        KvStateMachine machine = new KvStateMachine();
        for (int i = 1; i <= 5; i++) {
            machine.apply(i, new SessionCommand.Grant(1).encode());
        }
        SessionExpiryTimer timer = new SessionExpiryTimer(2, 3);
        timer.poll(new Ballot(4, 2), 0, machine.sessions());
        List<Command> first = timer.poll(new Ballot(4, 2), 2 * MS, machine.sessions());
        assertEquals(3, first.size(), "at most maxPerPoll per poll");
        assertEquals(2, timer.poll(new Ballot(4, 2), 2 * MS, machine.sessions()).size(), "the rest on the next poll");
        timer.poll(null, 3 * MS, machine.sessions());
        timer.poll(new Ballot(9, 2), 3 * MS, machine.sessions());
        List<Command> later = timer.poll(new Ballot(9, 2), 5 * MS, machine.sessions());
        assertEquals(SessionExpiryTimer.clientIdOf(2), later.get(0).clientId());
        assertTrue(later.get(0).sequence() > first.get(2).sequence(), "a new term's sequences pass the old term's");
    }
}
