package io.synod.engine;

import io.synod.core.kv.KvSessions;
import io.synod.core.kv.SessionExpiryTimer;
import io.synod.core.paxos.ClientRequest;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Replica;
import io.synod.core.paxos.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Runs core's {@link SessionExpiryTimer} beside one group's replica in the group's driver: after each tick, while the
 * replica leads (and serves), the timer looks at the state machine's session table and the returned {@code Expire}
 * commands are proposed through the log like any client's. A follower (or a repairing replica) only tells the timer
 * it does not lead, so the timer forgets its deadlines and a new term starts with a full TTL for every session;
 * nothing is ever expired off the log (docs/lock-primitives.md, "Expiry is the leader's decision").
 */
final class SessionExpiryDriver {
    /** Most expiries proposed per tick (a bound on one tick's proposals; the rest follow on the next ticks). */
    static final int MAX_EXPIRIES_PER_TICK = 64;

    private final SessionExpiryTimer timer;
    private final Supplier<List<KvSessions.Session>> sessions;
    private long proposed;

    SessionExpiryDriver(int nodeId, Supplier<List<KvSessions.Session>> sessions) {
        this.timer = new SessionExpiryTimer(nodeId, MAX_EXPIRIES_PER_TICK);
        this.sessions = sessions;
    }

    /** One look after a tick: the expiry requests to propose (none unless {@code serving} and leading). */
    List<ClientRequest> afterTick(Replica replica, boolean serving, long nowNanos) {
        if (!serving || replica.role() != Role.LEADER) {
            timer.poll(null, nowNanos, List.of());
            return List.of();
        }
        List<Command> expiries = timer.poll(replica.ownBallot(), nowNanos, sessions.get());
        List<ClientRequest> out = new ArrayList<>(expiries.size());
        for (Command expire : expiries) {
            out.add(new ClientRequest(expire));
        }
        proposed += out.size();
        return out;
    }

    /** Expiry commands proposed so far (re-proposals included). */
    long proposed() {
        return proposed;
    }
}
