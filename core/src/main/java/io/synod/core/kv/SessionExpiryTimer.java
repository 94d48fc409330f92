package io.synod.core.kv;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Command;
import io.synod.core.util.Check;
import io.synod.protocol.SessionCommand;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The leader's session timer: decides, on the leader's own clock, which sessions have expired, and turns each into
 * an {@link SessionCommand.Expire} to propose through the log. Only the leader runs it; a follower never expires
 * anything (its clock and its view of keep-alives may lag), and the state machine never reads a clock at all.
 * Sans-I/O: time is passed in.
 *
 * <p><b>Rules.</b> A session's deadline is its TTL after the moment this leader learned of its newest renewal (the
 * grant or a keep-alive applied here; learning happens at or after the client sent it, so the client's own view
 * "alive until I sent my last acknowledged keep-alive plus the TTL" ends no later than the deadline, up to clock
 * rate drift). A new leader cannot know when its predecessor last heard a client, so at takeover it gives every
 * session a full TTL from then (what etcd's lessor does on promotion). The Expire names the renewal slot the
 * decision was based on; the state machine applies it only if no keep-alive came in between, so a keep-alive that
 * races the expiry and is ordered first in the log wins. An Expire still not applied a TTL after it was proposed
 * (lost with a batch) is proposed again; applying it twice is harmless.
 *
 * <p>Commands go out as client {@link #clientIdOf(int)} of the proposing node, with sequences that grow across its
 * terms (the ballot's epoch in the high bits), so at-most-once filtering never drops a new term's expiry.
 */
public final class SessionExpiryTimer {
    /** Base of the client ids the leaders' expiry commands use (one per node). */
    public static final long CLIENT_ID_BASE = 0x5E55_0000_0000L;
    /** Commands within one term: the low bits of the sequence. */
    private static final int TERM_SEQUENCE_BITS = 24;

    private final int nodeId;
    private final int maxPerPoll;
    private final Map<Long, Tracked> tracked = new HashMap<>();
    private boolean leading;
    private long termEpoch;
    private long termSequence;

    private static final class Tracked {
        long renewSlot;
        long deadlineNanos;
        long proposedAtNanos;
        boolean proposed;
    }

    /** @param maxPerPoll most Expire commands one {@link #poll} returns (a bound on one tick's proposals) */
    public SessionExpiryTimer(int nodeId, int maxPerPoll) {
        Check.argument(nodeId >= 0 && nodeId < 65_536, "node id must be 0..65535");
        Check.argument(maxPerPoll > 0, "maxPerPoll must be positive");
        this.nodeId = nodeId;
        this.maxPerPoll = maxPerPoll;
    }

    /** The client id of node {@code nodeId}'s expiry commands. */
    public static long clientIdOf(int nodeId) {
        return CLIENT_ID_BASE + nodeId;
    }

    /**
     * One look at the sessions: call it on every tick and after applying. {@code ballot} is this replica's ballot
     * when it leads and serves, else {@code null} (a follower: forget everything). Returns the commands to propose.
     */
    public List<Command> poll(Ballot ballot, long nowNanos, KvSessions sessions) {
        return poll(ballot, nowNanos, ballot == null ? List.of() : sessions.sessions());
    }

    /** As {@link #poll(Ballot, long, KvSessions)}, over a session table read elsewhere (the server's RocksDB machine). */
    public List<Command> poll(Ballot ballot, long nowNanos, List<KvSessions.Session> liveSessions) {
        if (ballot == null) {
            leading = false;
            tracked.clear();
            return List.of();
        }
        boolean takeover = !leading || ballot.epoch() != termEpoch;
        if (takeover) {
            leading = true;
            tracked.clear();
            termEpoch = ballot.epoch();
            termSequence = 0;
        }
        List<Command> out = new ArrayList<>();
        Map<Long, Boolean> live = new HashMap<>();
        for (KvSessions.Session session : liveSessions) {
            live.put(session.id(), Boolean.TRUE);
            Tracked t = tracked.get(session.id());
            long ttlNanos = session.ttlMillis() * 1_000_000L;
            if (t == null || t.renewSlot != session.renewSlot()) {
                t = t == null ? new Tracked() : t;
                t.renewSlot = session.renewSlot();
                t.deadlineNanos = nowNanos + ttlNanos; // learned now (or taken over now): a full TTL from here
                t.proposed = false;
                tracked.put(session.id(), t);
            }
            boolean due = nowNanos - t.deadlineNanos >= 0 && (!t.proposed || nowNanos - t.proposedAtNanos >= ttlNanos);
            if (due && out.size() < maxPerPoll) {
                t.proposed = true;
                t.proposedAtNanos = nowNanos;
                out.add(nextCommand(new SessionCommand.Expire(session.id(), t.renewSlot)));
            }
        }
        for (Iterator<Long> it = tracked.keySet().iterator(); it.hasNext(); ) {
            if (!live.containsKey(it.next())) {
                it.remove();
            }
        }
        return out;
    }

    private Command nextCommand(SessionCommand command) {
        termSequence++;
        Check.state(termSequence < (1L << TERM_SEQUENCE_BITS), "more than 2^24 expiry commands in one term");
        return new Command(clientIdOf(nodeId), (termEpoch << TERM_SEQUENCE_BITS) + termSequence, command.encode());
    }
}
